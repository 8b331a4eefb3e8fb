"""A batch item's score session: run under the id allocated at submission, resumable on redelivery.

The counterpart of `app/comparisons/resume.py`. A worker killed mid-item leaves the session
`running` (or closed `interrupted` when it was read meanwhile) with some reviewers' calls stored.
The next delivery reopens it with the plan stored first and asks only the reviewers without a
stored call: no (session, reviewer) is ever asked twice, and the unique key on score calls settles
the rare race of two deliveries storing the same reviewer's call.
"""

from __future__ import annotations

import time
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import utcnow
from app.judges.registry import RuntimeJudge
from app.judging.types import ScoreCallResult
from app.scoring import answers, queries
from app.scoring.fanout import ScoreFanOut
from app.scoring.idempotency import request_hash
from app.scoring.models import Score, ScoreCall, ScoreSession
from app.scoring.panels import ScoringPlan
from app.scoring.queries import StoredSession
from app.scoring.rubrics import rubric_in, to_rubric
from app.scoring.schemas import ScoreRequest, ScoreSessionRead
from app.scoring.service import (
    Prepared,
    Services,
    finish,
    insert_session,
    new_fanout,
    plan_session,
    session_rows,
    timeout_of,
    to_criteria,
)


async def run_item_score(
    request: ScoreRequest, session_id: str, api_key_id: str, services: Services
) -> ScoreSessionRead:
    """Run (or finish running) the score session `session_id`; a finished one is read back."""
    digest = request_hash(request)
    async with services.sessionmaker() as session:
        found = await session.get(ScoreSession, session_id)
        if found is not None and not needs_run(found):
            return answers.to_read(await queries.load_session(session, found))
        stored = await queries.load_session(session, found) if found is not None else None
    if stored is None:
        prepared, stored = await start(request, session_id, api_key_id, digest, services)
    else:
        prepared = await reopen(stored, request, services)
    asked = {call.judge_name for call in stored.calls}
    fanout = new_fanout(digest, services, ResumingScoreFanOut)
    calls, scores = await fanout.run(
        stored.session,
        prepared.plan,
        prepared.judges,
        request,
        to_rubric(prepared.rubric),
        to_criteria(request),
        time.monotonic() + prepared.timeout_s,
        reviewers=[name for name in prepared.plan.reviewers if name not in asked],
    )
    done = StoredSession(
        stored.session,
        stored.responses,
        [*stored.calls, *calls],
        [*stored.scores, *scores],
        stored.tags,
    )
    return await finish(done, fanout.unsaved, services)


def needs_run(row: ScoreSession) -> bool:
    """Whether a delivery must (re)run it: still running, or closed by an interruption."""
    return row.status == "running" or row.error_kind == "interrupted"


async def start(
    request: ScoreRequest, session_id: str, api_key_id: str, digest: str, services: Services
) -> tuple[Prepared, StoredSession]:
    """Plan the reviewers and insert the session as `running` under its allocated id.

    Two deliveries racing to insert it means two processes hold the item: the loser's
    IntegrityError ends its attempt, and the item's lease decides who carries on.
    """
    names = services.registry.panel_or_default(request.judges)
    prepared = await plan_session(request, names, services)
    stored = session_rows(request, session_id, api_key_id, None, digest, prepared, services)
    await insert_session(stored, services.sessionmaker)
    return prepared, stored


async def reopen(stored: StoredSession, request: ScoreRequest, services: Services) -> Prepared:
    """Mark it running again with a fresh deadline; its plan is the one stored first.

    The stored plan, not a new one: audit draws must not change between deliveries, and the
    reviewers already stored must be the ones the plan asks.
    """
    row = stored.session
    timeout_s = timeout_of(request, services.settings)
    deadline_at = utcnow() + timedelta(seconds=timeout_s)
    values = {"status": "running", "error_kind": None, "completed_at": None}
    async with services.sessionmaker() as session:
        names = [name for name, _version in row.panel["reviewers"]]
        resolved = await services.registry.resolve(session, names)
        await session.execute(
            update(ScoreSession)
            .where(ScoreSession.id == row.id)
            .values(deadline_at=deadline_at, **values)
        )
        await session.commit()
    row.deadline_at = deadline_at
    for key, value in values.items():
        setattr(row, key, value)
    families = [response.resolved_family for response in stored.responses]
    plan = ScoringPlan.from_json(row.panel["plan"])
    judges = {judge.name: judge for judge in resolved}
    return Prepared(rubric_in(request), families, plan, judges, timeout_s)


class ResumingScoreFanOut(ScoreFanOut):
    """Stores calls like `POST /v1/score`; a reviewer's call another delivery stored first is
    kept, with its scores, instead of this one."""

    async def persist(
        self,
        session: ScoreSession,
        plan: ScoringPlan,
        judge: RuntimeJudge,
        order: list[int],
        lengths: list[int],
        result: ScoreCallResult,
    ) -> tuple[ScoreCall, list[Score]]:
        try:
            return await super().persist(session, plan, judge, order, lengths, result)
        except IntegrityError:
            async with self.sessionmaker() as db:
                kept = await kept_call(db, session.id, judge.name)
            if kept is None:
                raise
            return kept


async def kept_call(
    db: AsyncSession, session_id: str, reviewer: str
) -> tuple[ScoreCall, list[Score]] | None:
    """The call (and its scores) of `reviewer` that another delivery stored, if any."""
    call = await db.scalar(
        select(ScoreCall).where(
            ScoreCall.session_id == session_id, ScoreCall.judge_name == reviewer
        )
    )
    if call is None:
        return None
    return call, list(await db.scalars(select(Score).where(Score.call_id == call.id)))
