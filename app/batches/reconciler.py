"""Sends items again that nobody is running and nobody will: the queue's safety net.

taskiq-redis reclaims unacknowledged messages only when new ones arrive, so a killed worker's items
would wait for the next submission. The reconciler needs no traffic; every round it
- queues again running items whose lease expired (their process died or stalled), and
- sends again queued items that waited longer than `batch_requeue_after_s` while the stream holds
  nothing undelivered (their message was lost), or every queued item at once when the consumer
  group had to be created again (Redis restarted without its data).
Each UPDATE ... RETURNING hands an item to one reconciler only, however many workers run one; a
duplicate message costs a skipped claim, never a second run.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import timedelta

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.background import running, survive
from app.batches import leases
from app.batches.queue import ItemQueue
from app.config import Settings
from app.db import utcnow
from app.logs import error_fields

log = structlog.get_logger()


async def reconcile(
    sessionmaker: async_sessionmaker[AsyncSession],
    queue: ItemQueue,
    settings: Settings,
    *,
    stream_lost: bool = False,
) -> int:
    """One round; the number of items sent again."""
    ids = await leases.requeue_expired(sessionmaker)
    if stream_lost:
        ids += await leases.requeue_waiting(sessionmaker, utcnow())
    elif not await queue.backlog():
        horizon = utcnow() - timedelta(seconds=settings.batch_requeue_after_s)
        ids += await leases.requeue_waiting(sessionmaker, horizon)
    if ids:
        log.warning("batch_items_sent_again", count=len(ids), stream_lost=stream_lost)
        await queue.enqueue(ids)
    return len(ids)


async def _reconcile_forever(
    sessionmaker: async_sessionmaker[AsyncSession], queue: ItemQueue, settings: Settings
) -> None:
    interval = settings.batch_lease_s / 3
    while True:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(queue.stream_reset.wait(), timeout=interval)
        stream_lost = queue.stream_reset.is_set()
        queue.stream_reset.clear()
        try:
            await reconcile(sessionmaker, queue, settings, stream_lost=stream_lost)
        except Exception as exc:  # an outage must not end the loop; the next round retries
            survive(exc)
            log.warning("batch_reconcile_failed", **error_fields(exc))


@contextlib.asynccontextmanager
async def run_reconciler(
    sessionmaker: async_sessionmaker[AsyncSession], queue: ItemQueue, settings: Settings
) -> AsyncIterator[None]:
    """Reconcile every third of a lease (and at once when the stream was lost) while open."""
    async with running(_reconcile_forever(sessionmaker, queue, settings)):
        yield
