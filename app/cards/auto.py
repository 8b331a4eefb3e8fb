"""The card runs by itself: a judge's battery is queued once per judge version (its creation is
version 1), and once more per provider model the judge newly reports under that version.

The canary scheduler's tick (app/canaries/scheduler.py) calls `tick` in every API process and
worker. The claim is the batch's own idempotency key, unique per (api key, key): every process
derives the same key from the same judge, version and model, so a second claim fails on the
constraint and queues nothing; the batch queue's leases, retries and reconciler then run it like
any other card run. Bounded: `MAX_RUNS_PER_TICK` runs a tick at most; nothing for a retired
judge, for a judge whose latest card run is unfinished, in privacy mode, or with
`FAIRPAIR_CARD_AUTO=false`. A version that already has a card (run by hand) gets no second one.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

import structlog
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.batches.models import Batch
from app.batches.queue import ItemQueue
from app.cards import service
from app.jobs.kind import Services
from app.judges.models import Judge, JudgeVersion
from app.ledger.models import JudgeCall

log = structlog.get_logger()

# The API-key id the automatic runs' batches are stored under (no key has it: ids are hex).
AUTO_KEY_ID = "fairpair:card-auto"
MAX_RUNS_PER_TICK = 4
# The provider model of the judge's newest call that reported one, and that call's version.
NewestModel = Callable[[AsyncSession, str], Awaitable[tuple[str | None, int | None]]]


@dataclass(frozen=True)
class Due:
    """A card run that is due: the judge, its version, the claim's key and why."""

    judge: str
    version: int
    key: str
    trigger: Literal["version", "model"]


async def tick(services: Services, queue: ItemQueue, newest_model: NewestModel) -> list[Due]:
    """Queue every due card run (at most `MAX_RUNS_PER_TICK`); the ones this process claimed."""
    settings = services.settings
    if not settings.card_auto or settings.privacy == "hash":
        return []
    async with services.sessionmaker() as session:
        due = await find_due(session, newest_model)
    claimed: list[Due] = []
    for run in due[:MAX_RUNS_PER_TICK]:
        async with services.sessionmaker() as session:
            version = await session.scalar(
                select(JudgeVersion)
                .join(Judge, Judge.id == JudgeVersion.judge_id)
                .where(Judge.name == run.judge, JudgeVersion.version == run.version)
            )
        if version is None:
            continue
        started = await service.queue_battery(
            services, queue, run.judge, version, AUTO_KEY_ID, run.key
        )
        if started is not None:
            log.info("card_run_started", judge=run.judge, version=run.version, trigger=run.trigger)
            claimed.append(run)
    return claimed


async def find_due(session: AsyncSession, newest_model: NewestModel) -> list[Due]:
    """The enabled judges' due runs, by judge name."""
    judges = await session.execute(
        select(Judge.name, Judge.current_version).where(Judge.enabled).order_by(Judge.name)
    )
    due: list[Due] = []
    for name, version in judges.all():
        run = await _due(session, name, version, newest_model)
        if run is not None:
            due.append(run)
    return due


async def _due(
    session: AsyncSession, name: str, version: int, newest_model: NewestModel
) -> Due | None:
    run_id = await service.latest_run(session, name, version)
    if run_id is None:
        key = f"card:{name}:v{version}"
        return None if await _claimed(session, key) else Due(name, version, key, "version")
    total, done = await service.progress(session, run_id)
    if total == 0 or done < total:
        return None  # unfinished: its own calls may still report the model
    model, model_version = await newest_model(session, name)
    if model is None or model_version != version or model in await _models(session, run_id):
        return None
    key = f"card:{name}:v{version}:{model}"
    return None if await _claimed(session, key) else Due(name, version, key, "model")


async def _claimed(session: AsyncSession, key: str) -> bool:
    found = await session.scalar(
        select(Batch.id).where(Batch.api_key_id == AUTO_KEY_ID, Batch.idempotency_key == key)
    )
    return found is not None


async def _models(session: AsyncSession, run_id: str) -> set[str]:
    """The provider models the run's calls reported."""
    run = service.tag(service.RUN)
    models = await session.scalars(
        select(JudgeCall.provider_model)
        .select_from(run)
        .join(JudgeCall, JudgeCall.comparison_id == run.comparison_id)
        .where(run.key == service.RUN, run.value == run_id, JudgeCall.provider_model.is_not(None))
        .distinct()
    )
    return {m for m in models if m is not None}
