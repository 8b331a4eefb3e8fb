"""The lifespan: every process-wide object is created here and handed to requests as `State`."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any, TypedDict

from fastapi import FastAPI
from redis.asyncio import Redis
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.auth.keys import KeyCache
from app.auth.ratelimit import FailedAuthThrottle, KeyRateLimiter
from app.batches.queue import ItemQueue
from app.batches.ratelimit import shared_limiters, shared_storage
from app.batches.worker import open_batch_queue
from app.canaries.scheduler import run_canary_scheduler
from app.comparisons.service import CompareKind
from app.config import Settings
from app.dashboard.cache import PageCache
from app.dashboard.charts import SvgRenderer
from app.db import create_engine, create_sessionmaker
from app.heap import freeze_startup_heap
from app.jobs.closing import JobTables, run_sweeper
from app.jobs.kind import Services
from app.jobs.slots import JudgePool
from app.jobs.writes import GroupCommit
from app.judges.registry import JudgeRegistry, TransportFactory
from app.keyring.service import text_keeper
from app.leaderboard.service import LeaderboardCache
from app.ledger.folder import run_folder
from app.logs import configure_logging, warn_unknown_variables
from app.privacy import TextKeeper
from app.processes import ChildPool
from app.schema import upgrade_async
from app.scoring.calibration import CalibrationCache
from app.scoring.service import ScoreKind

# Large bodies checked at once by one API process; more wait for a child (within the bound).
BODY_CHECK_CHILDREN = 2


class State(TypedDict):
    """Process-wide resources, created here; routes reach each through its alias in app/deps.py
    (or in its feature: `RegistryDep`, `LeaderboardCacheDep`, ...)."""

    settings: Settings
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    key_cache: KeyCache
    key_limiter: KeyRateLimiter
    auth_failures: FailedAuthThrottle
    registry: JudgeRegistry
    pool: JudgePool
    writes: GroupCommit
    in_flight: set[asyncio.Task[Any]]
    batch_queue: ItemQueue
    redis: Redis | None
    # Under the instance's stored HMAC salt (app/keyring/service.py).
    keeper: TextKeeper
    leaderboard_cache: LeaderboardCache
    # The job kinds, made once: a comparison's holds nothing, a score session's the process's
    # cache of reviewer offsets. Routes, the batch runner and the sweeper all use these.
    compare_kind: CompareKind
    score_kind: ScoreKind
    jobs: Services
    dashboard_pages: PageCache
    dashboard_charts: SvgRenderer
    # Started on the first body over 1 MB (app/middleware.py inspect_body).
    body_checks: ChildPool


Lifespan = Callable[[FastAPI], AbstractAsyncContextManager[State]]


async def drain(in_flight: set[asyncio.Task[Any]], grace_s: float) -> None:
    """Let in-flight comparisons finish within the grace period; interrupt the rest."""
    if not in_flight:
        return
    _done, pending = await asyncio.wait(set(in_flight), timeout=grace_s)
    for task in pending:
        task.cancel()  # the comparison marks itself interrupted and keeps its calls
    await asyncio.gather(*pending, return_exceptions=True)


def key_limiter(settings: Settings) -> KeyRateLimiter:
    """One budget per key across every replica sharing the Redis (app/auth/ratelimit.py)."""
    shared = settings.redis_url and settings.rate_limit_per_minute
    storage = shared_storage(settings.redis_url) if shared else None
    return KeyRateLimiter(settings.rate_limit_per_minute, storage)


def lifespan_for(
    settings: Settings,
    transport_for: TransportFactory | None = None,
    *,
    freeze_heap: bool = False,
) -> Lifespan:
    """The app's lifespan; `transport_for` lets tests fake a judge's HTTP transport.
    `freeze_heap`: a process that serves this one app until it exits freezes what start-up
    built (`freeze_startup_heap`); tests that start many apps in one process do not."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[State]:
        configure_logging(settings.log_level, settings.log_format)
        warn_unknown_variables(settings)
        if settings.is_embedded:
            await upgrade_async(settings.database_url)
        engine = create_engine(settings.database_url, settings.database_timeout_s)
        sessionmaker = create_sessionmaker(engine)
        # One keeper per process, under the salt every process reads from the database.
        keeper = await text_keeper(settings, sessionmaker)
        # Every process sharing the Redis shares each judge's rpm (docs/BATCHES.md).
        limiters = shared_limiters(settings.redis_url)
        registry = JudgeRegistry(settings, sessionmaker, transport_for, limiters)
        await registry.start()
        in_flight: set[asyncio.Task[Any]] = set()
        pool = JudgePool(
            settings.per_process(settings.max_concurrency),
            settings.per_process(settings.max_pending),
        )
        writes = GroupCommit(sessionmaker)
        jobs = Services(settings, sessionmaker, registry, pool, writes, keeper)
        compare_kind, score_kind = CompareKind(), ScoreKind(CalibrationCache())
        batches = open_batch_queue(jobs, compare_kind, score_kind)
        body_checks = ChildPool(
            BODY_CHECK_CHILDREN, settings.body_check_timeout_s, preload=("app.middleware",)
        )
        async with batches as batch_queue:
            state = State(
                settings=settings,
                engine=engine,
                sessionmaker=sessionmaker,
                key_cache=KeyCache(settings.key_cache_ttl_s),
                key_limiter=key_limiter(settings),
                auth_failures=FailedAuthThrottle(settings.auth_failures_per_minute),
                registry=registry,
                pool=pool,
                writes=writes,
                in_flight=in_flight,
                batch_queue=batch_queue,
                redis=batch_queue.redis,
                keeper=keeper,
                leaderboard_cache=LeaderboardCache(),
                compare_kind=compare_kind,
                score_kind=score_kind,
                jobs=jobs,
                dashboard_pages=PageCache(),
                dashboard_charts=SvgRenderer(),
                body_checks=body_checks,
            )
            kinds: list[JobTables[Any]] = [compare_kind.tables, score_kind.tables]
            sweeper = run_sweeper(
                sessionmaker, kinds, settings.sweep_interval_s, settings.sweep_grace_s
            )
            folder = run_folder(sessionmaker, settings.fold_interval_s)
            async with sweeper, folder, run_canary_scheduler(jobs, batch_queue):
                if freeze_heap:
                    freeze_startup_heap()
                yield state
                await drain(in_flight, settings.shutdown_grace_s)
                await writes.aclose()
                body_checks.close()
        await registry.aclose()
        await engine.dispose()

    return lifespan
