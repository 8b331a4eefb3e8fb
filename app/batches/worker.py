"""What runs batch items: `fairpair worker` processes on Redis (app/worker.py), or the API process
without Redis."""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog

from app.batches import leases
from app.batches.provider import run_provider_rounds
from app.batches.queue import ItemQueue, MemoryQueue, RedisQueue
from app.batches.ratelimit import RateLimitNotes
from app.batches.reconciler import run_reconciler
from app.batches.runner import ItemRunner
from app.comparisons.service import CompareKind
from app.jobs.kind import Services
from app.scoring.service import ScoreKind

log = structlog.get_logger()


def process_name() -> str:
    """This process's name as a lease owner and stream consumer: host, pid and a nonce."""
    return f"{socket.gethostname()[:60]}-{os.getpid()}-{uuid.uuid4().hex[:8]}"


@asynccontextmanager
async def open_batch_queue(
    services: Services, compare: CompareKind, score: ScoreKind
) -> AsyncIterator[ItemQueue]:
    """The API's queue: Redis streams when configured (workers run the items), else in process.

    In process, the items left queued or running by the previous process are sent again at
    start-up; run one API process then, since it is the only runner (of items and of the
    provider rounds of provider-mode batches; with Redis, the workers run both).
    """
    settings = services.settings
    if settings.redis_url:
        queue = RedisQueue(settings.redis_url, settings)
        await queue.startup()
        try:
            yield queue
        finally:
            await queue.shutdown()
        return
    notes = RateLimitNotes(None)
    runner = ItemRunner(
        services,
        process_name(),
        slots=settings.worker_concurrency,
        kinds=(compare, score),
        rate_limits=notes,
    )
    memory = MemoryQueue(runner, lambda: runner.waiting, notes)
    await memory.startup()
    await memory.enqueue(await leases.requeue_unfinished(services.sessionmaker))
    try:
        async with (
            run_reconciler(services.sessionmaker, memory, settings),
            run_provider_rounds(services, memory),
        ):
            yield memory
    finally:
        memory.closing = True
        await runner.drain(settings.shutdown_grace_s)
        await memory.shutdown()
