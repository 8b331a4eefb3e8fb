"""`fairpair worker`: a process that runs batch items from Redis, with what it runs them with.

The worker's own assembly (as app/lifespan.py is the API's): it builds the process-wide objects,
runs items until told to stop, then finishes or hands back what is running.
"""

from __future__ import annotations

import asyncio
import signal
import sys

import structlog
from taskiq.acks import AcknowledgeType
from taskiq.receiver import Receiver

from app.batches.provider import run_provider_rounds
from app.batches.queue import RedisQueue, register
from app.batches.ratelimit import shared_limiters
from app.batches.reconciler import run_reconciler
from app.batches.runner import ItemRunner
from app.batches.worker import process_name
from app.canaries.scheduler import run_canary_scheduler
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.fields import LIMITS
from app.heap import freeze_startup_heap
from app.jobs.kind import Services
from app.jobs.slots import JudgePool
from app.jobs.writes import GroupCommit
from app.judges.registry import JudgeRegistry
from app.keyring.service import text_keeper
from app.logs import configure_logging, warn_unknown_variables
from app.metrics import serve_metrics

log = structlog.get_logger()


async def run_worker(
    settings: Settings, concurrency: int, stop: asyncio.Event, *, freeze_heap: bool = False
) -> None:
    """Run items from Redis until `stop` is set; then finish or hand back what is running.
    `freeze_heap` for the `fairpair worker` process, once started (`app.heap`)."""
    assert settings.redis_url
    LIMITS.max_text_chars = settings.max_text_chars
    name = process_name()
    engine = create_engine(settings.database_url, settings.database_timeout_s)
    sessionmaker = create_sessionmaker(engine)
    keeper = await text_keeper(settings, sessionmaker)
    registry = JudgeRegistry(settings, sessionmaker, limiters=shared_limiters(settings.redis_url))
    await registry.start()
    pool = JudgePool(settings.max_concurrency, settings.max_pending)
    writes = GroupCommit(sessionmaker)
    services = Services(settings, sessionmaker, registry, pool, writes, keeper)
    queue = RedisQueue(settings.redis_url, settings, consumer_name=name)
    runner = ItemRunner(services, name, rate_limits=queue.rate_limits)
    register(queue.broker, runner)
    receiver = Receiver(
        queue.broker,
        max_async_tasks=concurrency,
        max_prefetch=0,
        ack_type=AcknowledgeType.WHEN_EXECUTED,
        wait_tasks_timeout=settings.shutdown_grace_s,
    )
    if freeze_heap:
        freeze_startup_heap()
    log.info("worker_started", name=name, concurrency=concurrency)
    try:
        async with (
            run_reconciler(sessionmaker, queue, settings),
            run_provider_rounds(services, queue),
            run_canary_scheduler(services, queue),
            queue.heartbeat(name),
        ):
            await listen_until_stopped(receiver, stop, settings.shutdown_grace_s + LISTEN_MARGIN_S)
            released = await runner.drain(0)
            await queue.enqueue(released)
    finally:
        await writes.aclose()
        await queue.shutdown()
        await registry.aclose()
        await engine.dispose()
        log.info("worker_stopped", name=name)


# Past the grace its running items have, how long a stopped receiver may take to return.
LISTEN_MARGIN_S = 5.0


async def listen_until_stopped(receiver: Receiver, stop: asyncio.Event, bound_s: float) -> None:
    """`receiver.listen(stop)`, but once `stop` is set it has `bound_s` to return, and its
    cancellation 5 s more: a receiver stuck in a read of a Redis that was killed and restarted
    (seen once in a CI stress run) would otherwise keep the worker from ever exiting. A receiver
    that outlives both is left behind, logged; the process exits without it."""
    listening = asyncio.ensure_future(receiver.listen(stop))
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({listening, stopping}, return_when=asyncio.FIRST_COMPLETED)
        if not listening.done():
            await asyncio.wait({listening}, timeout=bound_s)
        if not listening.done():
            listening.cancel()
            await asyncio.wait({listening}, timeout=LISTEN_MARGIN_S)
            log.warning("worker_receiver_stuck", bound_s=bound_s, left=not listening.done())
            return
    finally:
        stopping.cancel()
        if not listening.done():  # this worker was cancelled itself
            listening.cancel()
    if not listening.cancelled():
        listening.result()  # its error, if it failed


def main(settings: Settings, concurrency: int, *, metrics: tuple[str, int] | None = None) -> None:
    """`fairpair worker`: SIGTERM or SIGINT stop taking items and let the running ones finish.
    `metrics` (host, port): serve `/metrics` there, where this worker's work is counted."""
    configure_logging(settings.log_level, settings.log_format)
    warn_unknown_variables(settings)
    stop_metrics = None
    if metrics is not None:
        try:
            stop_metrics = serve_metrics(*metrics, settings.metrics_token)
        except OSError as exc:
            host, port = metrics
            sys.stderr.write(f"refusing to start: cannot serve metrics on {host}:{port}: {exc}\n")
            raise SystemExit(2) from None

    async def serve() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(signum, stop.set)
        await run_worker(settings, concurrency, stop, freeze_heap=True)

    try:
        asyncio.run(serve())
    finally:
        if stop_metrics is not None:
            stop_metrics()
