"""One score session's reviewer calls: all at once, each in its reviewer's own random order,
each stored with its scores in its own short transaction the moment it completes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.comparisons.pool import JudgePool
from app.db import utcnow
from app.errors import DATABASE_ERRORS
from app.judges.registry import RuntimeJudge
from app.judging.prompts import PromptTooLongError
from app.judging.types import Criteria, ErrorKind, Rubric, ScoreCallResult
from app.privacy import TextKeeper
from app.scoring.models import Score, ScoreCall, ScoreSession
from app.scoring.panels import ScoringPlan
from app.scoring.schemas import ScoreRequest

_order_rng = random.SystemRandom()


def failed_call(started: datetime, kind: ErrorKind, message: str) -> ScoreCallResult:
    """A call that never produced an answer (deadline, or a prompt over the call's limit)."""
    now = utcnow()
    return ScoreCallResult(
        labels=(),
        scores=None,
        raw_output=None,
        provider_model=None,
        tokens_in=None,
        tokens_out=None,
        cost_usd=None,
        latency_ms=(now - started).total_seconds() * 1000,
        started_at=started,
        finished_at=now,
        retries=0,
        error_kind=kind,
        error=message,
        template_hash="",
        nonces=(),
        anonymized_replacements=0,
    )


class ScoreFanOut:
    """Runs every reviewer's call through the shared pool and stores each as it completes."""

    def __init__(
        self,
        pool: JudgePool,
        request_concurrency: int,
        sessionmaker: async_sessionmaker[AsyncSession],
        keeper: TextKeeper,
        draw_seed: str | None = None,
    ) -> None:
        self.pool = pool
        self.slots = asyncio.Semaphore(request_concurrency)
        self.sessionmaker = sessionmaker
        self.keeper = keeper
        self.draw_seed = draw_seed
        # Calls the judge answered but the database did not take: the answer still carries them.
        self.unsaved: list[ScoreCall] = []

    def rng(self, judge: RuntimeJudge) -> random.Random | None:
        """A reproducible draw per reviewer when seeded (tests, benchmarks), else the system's."""
        return None if self.draw_seed is None else random.Random(f"{self.draw_seed}:{judge.name}")

    async def run(
        self,
        session: ScoreSession,
        plan: ScoringPlan,
        judges: dict[str, RuntimeJudge],
        request: ScoreRequest,
        rubric: Rubric,
        criteria: Criteria | None,
        deadline: float,
        reviewers: Sequence[str] | None = None,
    ) -> tuple[list[ScoreCall], list[Score]]:
        """The calls and scores of `reviewers` (default: every reviewer of the plan)."""

        async def one(name: str) -> tuple[ScoreCall, list[Score]]:
            order, rng = plan.shown_to(name), self.rng(judges[name])
            (rng or _order_rng).shuffle(order)
            texts = [request.responses[i].text for i in order]
            result = await self.call(
                judges[name], request.prompt, texts, rubric, criteria, deadline, rng
            )
            lengths = [len(t) for t in texts]
            return await self.persist(session, plan, judges[name], order, lengths, result)

        async with asyncio.TaskGroup() as group:
            names = plan.reviewers if reviewers is None else reviewers
            tasks = [group.create_task(one(name)) for name in names]
        stored = [task.result() for task in tasks]
        return [call for call, _ in stored], [s for _, scores in stored for s in scores]

    async def call(
        self,
        judge: RuntimeJudge,
        prompt: str,
        texts: list[str],
        rubric: Rubric,
        criteria: Criteria | None,
        deadline: float,
        rng: random.Random | None,
    ) -> ScoreCallResult:
        """One scoring call within the deadline; failures come back as results."""

        async def invoke() -> ScoreCallResult:
            return await judge.client.judge_scores(
                prompt, texts, rubric, criteria=criteria, deadline=deadline, rng=rng
            )

        started = utcnow()
        try:
            async with asyncio.timeout_at(deadline):
                return await self.pool.run(self.slots, invoke)
        except TimeoutError:
            return failed_call(started, "deadline", "the session's deadline passed")
        except PromptTooLongError as exc:  # checked before the session; kept as a safety net
            return failed_call(started, "bad_request", str(exc))

    async def persist(
        self,
        session: ScoreSession,
        plan: ScoringPlan,
        judge: RuntimeJudge,
        order: list[int],
        lengths: list[int],
        result: ScoreCallResult,
    ) -> tuple[ScoreCall, list[Score]]:
        """Store the call, then its scores (JUDGING.md "What is recorded")."""
        call = ScoreCall(
            session_id=session.id,
            judge_name=judge.name,
            judge_version=judge.version,
            judge_config_hash=judge.config_hash,
            judge_family=judge.family,
            rubric_id=session.rubric_id,
            display_order=order,
            labels=list(result.labels),
            scores=list(result.scores) if result.scores is not None else None,
            template_hash=result.template_hash,
            nonces=list(result.nonces),
            anonymized_replacements=result.anonymized_replacements,
            provider_model=result.provider_model,
            raw_output=self.keeper.text(result.raw_output),
            raw_output_hmac=self.keeper.hmac(result.raw_output),
            latency_ms=result.latency_ms,
            started_at=result.started_at,
            finished_at=result.finished_at,
            tokens_in=result.tokens_in,
            tokens_out=result.tokens_out,
            cost_usd=result.cost_usd,
            retries=result.retries,
            error_kind=result.error_kind,
            error=self.keeper.text(result.error),  # a provider's text may quote the request
        )
        pairs = list(zip(order, result.scores, strict=True)) if result.scores is not None else []
        scores = [
            Score(
                session_id=session.id,
                response_index=index,
                reviewer=judge.name,
                judge_version=judge.version,
                rubric_id=session.rubric_id,
                position=k + 1,
                label=result.labels[k],
                score=value,
                length=lengths[k],
                counted=judge.name in plan.responses[index].voters,
                scored_at=result.started_at,
            )
            for k, (index, value) in enumerate(pairs)
        ]
        try:
            async with self.sessionmaker() as db:
                db.add(call)
                await db.flush()
                for score in scores:
                    score.call_id = call.id
                db.add_all(scores)
                await db.commit()
        except DATABASE_ERRORS:
            self.unsaved.append(call)
        return call, scores
