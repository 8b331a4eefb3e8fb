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
The tick also queues the judge cards that are due (app/cards/auto.py: once per judge version and
provider model, claimed by the card batch's idempotency key).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import NamedTuple

import structlog
from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.background import running, survive
from app.batches.queue import ItemQueue
from app.canaries import runs, service
from app.canaries.models import Canary, CanaryJudge
from app.canaries.runs import Due
from app.cards import auto as cards_auto
from app.db import utcnow
from app.jobs.kind import Services
from app.logs import error_fields
from app.metrics import CANARY_DRIFT, CANARY_TICKS, record_loop_success

log = structlog.get_logger()


async def tick(services: Services, queue: ItemQueue) -> None:
    """One round: settle finished runs, publish drift, then start every due run."""
    async with services.sessionmaker() as session:
        await runs.settle_all(session, services.settings.min_effect)
        await publish_drift(session)
        canaries = list(await session.scalars(select(Canary).order_by(Canary.name)))
    try:
        await cards_auto.tick(services, queue, newest_model)
    except Exception as exc:  # a card's failure must not hold up the canaries
        survive(exc)
        log.warning("card_tick_failed", error=type(exc).__name__)
    if services.settings.privacy == "hash":
        return  # nothing to re-run: canaries cannot be created in privacy mode
    now = utcnow()
    for canary in canaries:
        try:
            await advance(services, queue, canary, now)
        except Exception as exc:  # one canary's failure must not hold up the others
            survive(exc)
            log.warning("canary_tick_failed", canary=canary.name, error=type(exc).__name__)


async def publish_drift(session: AsyncSession) -> None:
    """`fairpair_canary_drift{judge,canary}`: 1 from the run that flagged drift until an admin
    acknowledges it or pins a baseline, else 0 (every process publishes the same value: alert
    on `max`). Absent, not 0, while no run of the judge had an earlier one to compare with
    (nothing was tested); a deleted canary's series go."""
    rows = await session.execute(
        select(CanaryJudge.judge, Canary.name, CanaryJudge.drift_run)
        .join(Canary, Canary.id == CanaryJudge.canary_id)
        .where(CanaryJudge.last_drift.is_not(None) | CanaryJudge.drift_run.is_not(None))
    )
    CANARY_DRIFT.clear()  # no await until the values are set again: a scrape sees all or none
    for judge, name, drift_run in rows:
        CANARY_DRIFT.labels(judge=judge, canary=name).set(0 if drift_run is None else 1)


async def advance(services: Services, queue: ItemQueue, canary: Canary, now: datetime) -> None:
    """Start the canary's due runs, then remember what it saw of its judges.

    Nothing starts while a run of the canary is unsettled (a brake on providers that flap
    between models, and on intervals shorter than a run); what is due stays due, since the state
    moves on only after the claims. A crash between the two claims nothing twice: due keys are
    derived from what every process reads alike."""
    async with services.sessionmaker() as session:
        if await runs.has_open_run(session, canary):
            return
        states = list(
            await session.scalars(select(CanaryJudge).where(CanaryJudge.canary_id == canary.id))
        )
        versions = await service.current_versions(session, [s.judge for s in states])
        changes = [await judge_changes(session, s, versions.get(s.judge)) for s in states]
    due = [*scheduled(canary, now), *(d for change in changes for d in change.due)]
    for run in due:
        await runs.start(services, queue, canary, run)
    async with services.sessionmaker() as session:
        for state, change in zip(states, changes, strict=True):
            if change.values:
                await session.execute(
                    update(CanaryJudge)
                    .where(CanaryJudge.canary_id == canary.id, CanaryJudge.judge == state.judge)
                    .values(**change.values)
                )
        await session.commit()


async def newest_model(session: AsyncSession, judge: str) -> tuple[str | None, int | None]:
    """The judge's newest reported provider model and its call's version, for the card."""
    seen = await service.latest_model(session, judge)
    return seen.model, seen.version


def scheduled(canary: Canary, now: datetime) -> list[Due]:
    """The run of the latest interval slot past (a stopped service owes one run, not all)."""
    if not canary.interval_s:
        return []
    slots = math.floor((now - canary.created_at).total_seconds() / canary.interval_s)
    if slots < 1:
        return []
    slot = canary.created_at + timedelta(seconds=slots * canary.interval_s)
    return [Due(list(canary.judges), "schedule", f"schedule:{slot.isoformat()}")]


class Change(NamedTuple):
    """Runs due because a judge changed, and the state to remember once they are claimed."""

    due: list[Due]
    values: dict[str, object]


async def judge_changes(session: AsyncSession, state: CanaryJudge, version: int | None) -> Change:
    """A version run when the judge's version moved on; a model run when its newest call
    reports another model under the version of the call the canary saw before (a provider
    rotation: a new version that names another model is the version's run). Each model runs
    once per judge version, so a provider flapping between two models costs two runs."""
    due: list[Due] = []
    values: dict[str, object] = {}
    if version is not None and version != state.version:
        if state.version is not None:
            due.append(Due([state.judge], "version", f"version:{state.judge}:{version}"))
        values["version"] = version
    seen = await service.latest_model(session, state.judge)
    if seen.model is not None and (seen.model, seen.version) != (
        state.provider_model,
        state.model_version,
    ):
        rotated = state.provider_model is not None and seen.model != state.provider_model
        if rotated and seen.version == state.model_version:
            key = f"model:{state.judge}:{seen.version}:{seen.model}"
            due.append(Due([state.judge], "model", key))
        values |= {
            "provider_model": seen.model,
            "model_seen_at": seen.at,
            "model_version": seen.version,
        }
    return Change(due, values)


async def _tick_forever(services: Services, queue: ItemQueue) -> None:
    interval = services.settings.canary_tick_s
    while True:
        await asyncio.sleep(interval)
        try:
            await tick(services, queue)
        except Exception as exc:  # an outage must not end the loop; the next tick retries
            survive(exc)
            log.warning("canary_tick_failed", **error_fields(exc))
            CANARY_TICKS.labels("failed").inc()
            continue
        CANARY_TICKS.labels("ok").inc()
        record_loop_success("canary_scheduler")


@contextlib.asynccontextmanager
async def run_canary_scheduler(services: Services, queue: ItemQueue) -> AsyncIterator[None]:
    """Tick every `canary_tick_s` while open (0 turns the scheduler off)."""
    if services.settings.canary_tick_s <= 0:
        yield
        return
    async with running(_tick_forever(services, queue)):
        yield
