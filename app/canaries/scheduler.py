"""When canaries run by themselves: on their schedule, and when a judge changes.

Every API process and every worker ticks (`FAIRPAIR_CANARY_TICK_S`). A tick settles the runs whose
items all finished, then claims what is due:
- a scheduled run at each multiple of the canary's interval after its creation (a tick that
  finds several multiples past claims only the latest: a stopped service does not owe runs);
- a run of one judge when its current version differs from the one the canary last saw;
- a run of one judge when the provider model of its newest call differs from the one the canary
  last saw at the same judge version (the first call with a new model: a provider rotation; a
  new version that names another model is the version's run).
Each is claimed by a due key unique per canary (`CanaryRun.due_key`), derived only from what every
process reads alike (the time slot; the judge and its new version; the new model and the time the
canary last saw the old one), so a due run starts exactly once whoever finds it.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from datetime import datetime, timedelta

import structlog
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.background import running
from app.batches.queue import ItemQueue
from app.canaries import runs, service
from app.canaries.models import Canary, CanaryJudge, CanaryRun
from app.canaries.runs import Due
from app.db import utcnow
from app.jobs.lifecycle import Services
from app.judges.models import Judge
from app.metrics import CANARY_DRIFT

log = structlog.get_logger()


async def tick(services: Services, queue: ItemQueue) -> None:
    """One round: settle finished runs, publish drift, then start every due run."""
    sessionmaker = services.sessionmaker
    async with sessionmaker() as session:
        await settle_open(session, services.settings.min_effect)
        await publish_drift(session)
        canaries = list(await session.scalars(select(Canary).order_by(Canary.name)))
    if services.settings.privacy == "hash":
        return  # nothing to re-run: canaries cannot be created in privacy mode
    now = utcnow()
    for canary in canaries:
        for due in await due_runs(sessionmaker, canary, now):
            await runs.start(services, queue, canary, due)


async def settle_open(session: AsyncSession, min_effect: float) -> None:
    """Settle every run that has not been settled yet and whose items all finished."""
    open_runs = list(
        await session.scalars(select(CanaryRun).where(CanaryRun.finished_at.is_(None)))
    )
    for run in open_runs:
        await runs.settle(session, run, min_effect)


async def publish_drift(session: AsyncSession) -> None:
    """`fairpair_canary_drift{judge,canary}`: 1 when the judge's latest settled run of the
    canary flagged drift, else 0 (every process publishes the same value: alert on `max`)."""
    rows = await session.execute(
        select(Canary.name, CanaryRun.figures)
        .join(CanaryRun, CanaryRun.canary_id == Canary.id)
        .where(CanaryRun.finished_at.is_not(None))
        .order_by(Canary.name, CanaryRun.number)
    )
    latest: dict[tuple[str, str], bool] = {}
    for name, figures in rows:
        for judge, entry in (figures or {}).items():
            latest[(judge, name)] = bool((entry.get("drift") or {}).get("drift"))
    for (judge, name), drift in latest.items():
        CANARY_DRIFT.labels(judge=judge, canary=name).set(1 if drift else 0)


async def due_runs(
    sessionmaker: async_sessionmaker[AsyncSession], canary: Canary, now: datetime
) -> list[Due]:
    """The runs due now, and what the canary saw of its judges updated to now."""
    due: list[Due] = []
    if canary.interval_s:
        slots = math.floor((now - canary.created_at).total_seconds() / canary.interval_s)
        if slots >= 1:
            slot = canary.created_at + timedelta(seconds=slots * canary.interval_s)
            due.append(Due(list(canary.judges), "schedule", f"schedule:{slot.isoformat()}"))
    async with sessionmaker() as session:
        states = list(
            await session.scalars(select(CanaryJudge).where(CanaryJudge.canary_id == canary.id))
        )
        versions = {
            row[0]: row[1]
            for row in await session.execute(
                select(Judge.name, Judge.current_version).where(
                    Judge.name.in_([s.judge for s in states])
                )
            )
        }
        for state in states:
            due += await _judge_changes(session, state, versions.get(state.judge))
        await session.commit()
    return due


async def _judge_changes(
    session: AsyncSession, state: CanaryJudge, version: int | None
) -> list[Due]:
    """Runs due because the judge changed since the canary last looked; the state moves on."""
    due: list[Due] = []
    values: dict[str, object] = {}
    if version is not None and version != state.version:
        if state.version is not None:
            due.append(Due([state.judge], "version", f"version:{state.judge}:{version}"))
        values["version"] = version
    seen = await service.latest_model(session, state.judge)
    if seen.model is not None and seen.model != state.provider_model:
        # Only under the version the old model was seen at: a new version that names another
        # model changes what the provider reports too, and its version run covers both.
        if state.provider_model is not None and seen.version == state.model_version:
            since = state.model_seen_at.isoformat() if state.model_seen_at else "-"
            due.append(Due([state.judge], "model", f"model:{state.judge}:{seen.model}:{since}"))
        values |= {
            "provider_model": seen.model,
            "model_seen_at": seen.at,
            "model_version": seen.version,
        }
    if values:
        await session.execute(
            update(CanaryJudge)
            .where(CanaryJudge.canary_id == state.canary_id, CanaryJudge.judge == state.judge)
            .values(**values)
        )
    return due


async def _tick_forever(services: Services, queue: ItemQueue) -> None:
    interval = services.settings.canary_tick_s
    while True:
        await asyncio.sleep(interval)
        try:
            await tick(services, queue)
        except Exception as exc:  # an outage must not end the loop; the next tick retries
            log.warning("canary_tick_failed", error=type(exc).__name__, detail=str(exc)[:200])


@contextlib.asynccontextmanager
async def run_canary_scheduler(services: Services, queue: ItemQueue) -> AsyncIterator[None]:
    """Tick every `canary_tick_s` while open (0 turns the scheduler off)."""
    if services.settings.canary_tick_s <= 0:
        yield
        return
    async with running(_tick_forever(services, queue)):
        yield
