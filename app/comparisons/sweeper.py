"""Closes comparisons left `running` by a killed process: at start-up and every interval."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

import structlog
from sqlalchemy import ColumnElement, exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.comparisons.models import Comparison, JudgeCall
from app.db import rowcount, utcnow
from app.scoring import sweeper as scoring_sweeper

log = structlog.get_logger()


async def close_interrupted(session: AsyncSession, condition: ColumnElement[bool]) -> int:
    """Mark running comparisons matching `condition` `partial` (a call parsed) or `failed`."""
    running = (Comparison.status == "running") & condition
    parsed = exists(
        select(JudgeCall.id).where(
            JudgeCall.comparison_id == Comparison.id, JudgeCall.pick.is_not(None)
        )
    )
    now = utcnow()
    partial = await session.execute(
        update(Comparison)
        .where(running, parsed)
        .values(status="partial", error_kind="interrupted", completed_at=now)
    )
    failed = await session.execute(
        update(Comparison)
        .where(running)
        .values(status="failed", error_kind="interrupted", completed_at=now, idempotency_key=None)
    )
    return rowcount(partial) + rowcount(failed)


async def sweep(sessionmaker: async_sessionmaker[AsyncSession], grace_s: float) -> int:
    """Close running comparisons and score sessions past their deadline plus a grace period."""
    cutoff = utcnow() - timedelta(seconds=grace_s)
    async with sessionmaker() as session:
        comparisons = await close_interrupted(session, Comparison.deadline_at < cutoff)
        sessions = await scoring_sweeper.close_interrupted(
            session, scoring_sweeper.interrupted(grace_s=grace_s))
        await session.commit()
    if comparisons or sessions:
        log.warning("swept_interrupted", comparisons=comparisons, score_sessions=sessions)
    return comparisons + sessions


async def _sweep_forever(
    sessionmaker: async_sessionmaker[AsyncSession], interval_s: float, grace_s: float
) -> None:
    while True:
        await asyncio.sleep(interval_s)
        try:
            await sweep(sessionmaker, grace_s)
        except Exception as exc:  # an outage must not kill the loop; the next round retries
            log.warning("sweep_failed", error=type(exc).__name__)


@contextlib.asynccontextmanager
async def run_sweeper(
    sessionmaker: async_sessionmaker[AsyncSession], interval_s: float, grace_s: float
) -> AsyncIterator[None]:
    """Sweep once now, then every `interval_s` while the app runs."""
    await sweep(sessionmaker, grace_s)
    task = asyncio.create_task(_sweep_forever(sessionmaker, interval_s, grace_s))
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
