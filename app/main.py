"""The application factory: lifespan wiring, routers, error handlers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.metadata import PackageNotFoundError, version

from fastapi import FastAPI

from app.auth.keys import KeyCache
from app.comparisons.pool import JudgePool
from app.comparisons.router import router as comparisons_router
from app.comparisons.sweeper import run_sweeper
from app.config import Settings, get_settings
from app.db import create_engine, create_sessionmaker
from app.deps import State
from app.errors import install_error_handlers
from app.fields import LIMITS
from app.health.router import router as health_router
from app.judges.registry import JudgeRegistry, TransportFactory
from app.judges.router import router as judges_router
from app.logs import configure_logging
from app.middleware import RequestContextMiddleware
from app.reports.router import router as reports_router
from app.schema import upgrade_async


def package_version() -> str:
    """The installed distribution's version (the OpenAPI info.version)."""
    try:
        return version("fairpair")
    except PackageNotFoundError:
        return "0.0.0"


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
        registry = JudgeRegistry(settings, sessionmaker, transport_for)
        await registry.start()
        state = State(
            settings=settings,
            engine=engine,
            sessionmaker=sessionmaker,
            key_cache=KeyCache(settings.key_cache_ttl_s),
            registry=registry,
            pool=JudgePool(settings.max_concurrency, settings.max_pending),
        )
        async with run_sweeper(sessionmaker, settings.sweep_interval_s, settings.sweep_grace_s):
            yield state
        await registry.aclose()
        await engine.dispose()

    app = FastAPI(
        title="fairpair",
        version=package_version(),
        lifespan=lifespan,
        description="Debiased pairwise comparison with LLM judges.",
    )
    install_error_handlers(app)
    app.add_middleware(RequestContextMiddleware, max_body_bytes=settings.max_body_bytes)
    for router in (health_router, judges_router, comparisons_router, reports_router):
        app.include_router(router)
    return app
