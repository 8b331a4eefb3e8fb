"""One score session's reviewer calls: all at once, each in its reviewer's own random order, each
stored with its scores through the job kernel's write path the moment it completes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app import metrics
from app.db import utcnow
from app.jobs.callcache import StoredAnswers
from app.jobs.kind import Run
from app.jobs.models import record_values
from app.jobs.writes import StagedCall
from app.judges.registry import RuntimeJudge
from app.judging.prompts import PromptTooLongError
from app.judging.types import Criteria, Rubric, ScoreCallResult
from app.scoring.models import Score, ScoreCall, ScoreSession
from app.scoring.panels import ScoringPlan
from app.scoring.schemas import ScoreRequest

_order_rng = random.SystemRandom()
Stored = tuple[ScoreCall, list[Score]]


class ScoreCalls:
    """Scoring calls in the write path: each call's scores go in with it, pointing at its id."""

    table = ScoreCall
    children = (Score, "call_id")


class ScoreFanOut:
    """Runs every reviewer's call through the job's slots and stores each as it completes."""

    def __init__(self, run: Run) -> None:
        self.run = run

    async def reviews(
        self,
        session: ScoreSession,
        plan: ScoringPlan,
        judges: dict[str, RuntimeJudge],
        request: ScoreRequest,
        rubric: Rubric,
        criteria: Criteria | None,
        reviewers: Sequence[str],
    ) -> tuple[list[ScoreCall], list[Score]]:
        """The calls and scores of `reviewers`."""

        async def one(name: str) -> Stored:
            rng = self.run.slots.rng(name)
            order = plan.shown_to(name)
            (rng or _order_rng).shuffle(order)
            texts = [request.responses[i].text for i in order]
            result = await self.call(judges[name], request.prompt, texts, rubric, criteria, rng)
            lengths = [len(t) for t in texts]
            return await self.persist(session, plan, judges[name], order, lengths, result)

        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(one(name)) for name in reviewers]
        stored = [task.result() for task in tasks]
        return [call for call, _ in stored], [s for _, scores in stored for s in scores]

    async def call(
        self,
        judge: RuntimeJudge,
        prompt: str,
        texts: list[str],
        rubric: Rubric,
        criteria: Criteria | None,
        rng: random.Random | None,
    ) -> ScoreCallResult:
        """One scoring call within the deadline; failures come back as results."""
        slots = self.run.slots

        client = judge.client
        if client.config.cache:  # an exact repeat is answered from the stored score call
            client = client.caching(StoredAnswers(judge, ScoreCall, self.run))

        async def invoke() -> ScoreCallResult:
            try:
                return await client.judge_scores(
                    prompt, texts, rubric, criteria=criteria, deadline=slots.deadline, rng=rng
                )
            except PromptTooLongError as exc:  # checked before the session; a safety net
                return ScoreCallResult.failure(started, "bad_request", str(exc))

        started = utcnow()
        return await slots.run(invoke, ScoreCallResult, "session")

    async def persist(
        self,
        session: ScoreSession,
        plan: ScoringPlan,
        judge: RuntimeJudge,
        order: list[int],
        lengths: list[int],
        result: ScoreCallResult,
    ) -> Stored:
        """Store the call with its scores (JUDGING.md "What is recorded")."""
        values = {
            **record_values(judge, result, self.run.keeper),
            "session_id": session.id,
            "rubric_id": session.rubric_id,
            "display_order": order,
            "labels": list(result.labels),
            "scores": list(result.scores) if result.scores is not None else None,
        }
        pairs = list(zip(order, result.scores, strict=True)) if result.scores is not None else []
        scores: list[dict[str, Any]] = [
            {
                "session_id": session.id,
                "response_index": index,
                "reviewer": judge.name,
                "judge_version": judge.version,
                "rubric_id": session.rubric_id,
                "position": k + 1,
                "label": result.labels[k],
                "score": value,
                "length": lengths[k],
                "counted": judge.name in plan.responses[index].voters,
                "scored_at": result.started_at,
            }
            for k, (index, value) in enumerate(pairs)
        ]
        try:
            await self.run.writer.store(StagedCall(values, scores))
        except IntegrityError:
            # Another delivery of the same batch item stored this reviewer's call first.
            kept = await self.kept_call(session.id, judge.name)
            if kept is None:
                raise
            return kept
        metrics.count_reasoning_tokens(judge.name, result.reasoning_tokens)
        return ScoreCall(**values), [Score(**score) for score in scores]

    async def kept_call(self, session_id: str, reviewer: str) -> Stored | None:
        """The call (and its scores) of `reviewer` that another delivery stored, if any."""
        async with self.run.sessionmaker() as db:
            return await stored_call(db, session_id, reviewer)


async def stored_call(db: AsyncSession, session_id: str, reviewer: str) -> Stored | None:
    """A reviewer's stored call of a session, with its scores."""
    call = await db.scalar(
        select(ScoreCall).where(
            ScoreCall.session_id == session_id, ScoreCall.judge_name == reviewer
        )
    )
    if call is None:
        return None
    return call, list(await db.scalars(select(Score).where(Score.call_id == call.id)))
