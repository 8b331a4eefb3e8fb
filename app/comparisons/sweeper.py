"""Closes comparisons left `running` by a killed process: at start-up and every interval."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

import structlog
from sqlalchemy import exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.comparisons.models import Comparison, JudgeCall
from app.db import utcnow

log = structlog.get_logger()


async def sweep(sessionmaker: async_sessionmaker[AsyncSession], grace_s: float) -> int:
    """Mark running comparisons past deadline + grace `partial` (some call parsed) or `failed`."""
    cutoff = utcnow() - timedelta(seconds=grace_s)
    stale = (Comparison.status == "running") & (Comparison.deadline_at < cutoff)
    parsed = exists(
        select(JudgeCall.id).where(
            JudgeCall.comparison_id == Comparison.id, JudgeCall.pick.is_not(None)
        )
    )
    async with sessionmaker() as session:
        partial = await session.execute(
            update(Comparison)
            .where(stale, parsed)
            .values(status="partial", error_kind="interrupted", completed_at=utcnow())
        )
        failed = await session.execute(
            update(Comparison)
            .where(stale)
            .values(
                status="failed",
                error_kind="interrupted",
                completed_at=utcnow(),
                idempotency_key=None,
            )
        )
        await session.commit()
    swept = int(partial.rowcount or 0) + int(failed.rowcount or 0)  # type: ignore[attr-defined]
    if swept:
        log.warning("swept_interrupted_comparisons", count=swept)
    return swept


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
