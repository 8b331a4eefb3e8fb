"""The application factory: lifespan wiring, routers, error handlers."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI

from app.auth.hosts import LoopbackHostsOnly
from app.auth.keys import KeyCache
from app.auth.ratelimit import KeyRateLimiter
from app.batches.ratelimit import shared_limiters, shared_storage
from app.batches.router import router as batches_router
from app.batches.worker import open_batch_queue
from app.comparisons.pool import JudgePool
from app.comparisons.router import router as comparisons_router
from app.comparisons.service import Services
from app.comparisons.sweeper import run_sweeper
from app.comparisons.writes import GroupCommit
from app.config import Settings, get_settings
from app.dashboard.router import router as dashboard_router
from app.db import create_engine, create_sessionmaker
from app.deps import State
from app.errors import (
    PROBLEM_RESPONSES,
    AnswerCancelledRequests,
    install_error_handlers,
    problem_media_type,
)
from app.fields import LIMITS
from app.health.router import router as health_router
from app.judges.registry import JudgeRegistry, TransportFactory
from app.judges.router import router as judges_router
from app.keyring.service import text_keeper
from app.labels.router import router as labels_router
from app.leaderboard.router import router as leaderboard_router
from app.logs import configure_logging
from app.metrics import router as metrics_router
from app.middleware import RequestContextMiddleware
from app.reports.router import router as reports_router
from app.schema import upgrade_async
from app.scoring.router import router as scoring_router


def package_version() -> str:
    """The installed distribution's version (the OpenAPI info.version)."""
    try:
        return version("fairpair")
    except PackageNotFoundError:
        return "0.0.0"


async def drain(in_flight: set[asyncio.Task[Any]], grace_s: float) -> None:
    """Let in-flight comparisons finish within the grace period; interrupt the rest."""
    if not in_flight:
        return
    _done, pending = await asyncio.wait(set(in_flight), timeout=grace_s)
    for task in pending:
        task.cancel()  # the comparison marks itself interrupted and keeps its calls
    await asyncio.gather(*pending, return_exceptions=True)


def create_app(
    settings: Settings | None = None, *, transport_for: TransportFactory | None = None
) -> FastAPI:
    """Build the app; `transport_for` lets tests fake a judge's HTTP transport."""
    settings = settings or get_settings()
    LIMITS.max_text_chars = settings.max_text_chars

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[State]:
        configure_logging(settings.log_level)
        if settings.is_embedded:
            await upgrade_async(settings.database_url)
        engine = create_engine(settings.database_url)
        sessionmaker = create_sessionmaker(engine)
        # One keeper per process, under the salt every process reads from the database.
        keeper = await text_keeper(settings, sessionmaker)
        # Every process sharing the Redis shares each judge's rpm (docs/BATCHES.md).
        limiters = shared_limiters(settings.redis_url)
        registry = JudgeRegistry(settings, sessionmaker, transport_for, limiters)
        await registry.start()
        in_flight: set[asyncio.Task[Any]] = set()
        pool = JudgePool(settings.max_concurrency, settings.max_pending)
        writes = GroupCommit(sessionmaker)
        batches = open_batch_queue(
            Services(settings, sessionmaker, registry, pool, text_keeper=keeper)
        )
        async with batches as batch_queue:
            state = State(
                settings=settings,
                engine=engine,
                sessionmaker=sessionmaker,
                key_cache=KeyCache(settings.key_cache_ttl_s),
                # One budget per key across every replica sharing the Redis (app/auth/ratelimit.py).
                key_limiter=KeyRateLimiter(
                    settings.rate_limit_per_minute,
                    shared_storage(settings.redis_url)
                    if settings.redis_url and settings.rate_limit_per_minute
                    else None,
                ),
                registry=registry,
                pool=pool,
                writes=writes,
                in_flight=in_flight,
                batch_queue=batch_queue,
                redis=batch_queue.redis,
                keeper=keeper,
            )
            async with run_sweeper(sessionmaker, settings.sweep_interval_s, settings.sweep_grace_s):
                yield state
                await drain(in_flight, settings.shutdown_grace_s)
                await writes.wait_idle()
        await registry.aclose()
        await engine.dispose()

    app = FastAPI(
        title="fairpair",
        version=package_version(),
        lifespan=lifespan,
        description="Debiased pairwise comparison with LLM judges.",
        responses=PROBLEM_RESPONSES,
    )
    install_error_handlers(app)
    if settings.auth == "off":
        # Inside the request context, so a refused request is still logged with its id.
        app.add_middleware(LoopbackHostsOnly)
    app.add_middleware(
        RequestContextMiddleware,
        max_body_bytes=settings.max_body_bytes,
        path_limits={"/v1/batches": settings.max_batch_bytes},
    )
    app.add_middleware(AnswerCancelledRequests)
    routers = (
        health_router,
        judges_router,
        comparisons_router,
        scoring_router,
        reports_router,
        leaderboard_router,
        batches_router,
        labels_router,
        metrics_router,
        dashboard_router,
    )
    for router in routers:
        app.include_router(router)
    document_problems(app)
    return app


def document_problems(app: FastAPI) -> None:
    """Serve the schema with error answers typed application/problem+json."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = problem_media_type(build())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
