"""The application factory: settings, error handlers, middleware, routers."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from fastapi import FastAPI

from app.auth.hosts import LoopbackHostsOnly
from app.batches.router import SUBMIT_SCOPES
from app.batches.router import router as batches_router
from app.batches.schemas import batch_max_values
from app.canaries.router import router as canaries_router
from app.cards.router import router as cards_router
from app.comparisons.router import router as comparisons_router
from app.config import Settings, get_settings
from app.dashboard.assets import routes as assets_router
from app.dashboard.router import router as dashboard_router
from app.experiments.router import router as experiments_router
from app.fields import LIMITS
from app.health.router import router as health_router
from app.jobs.schemas import DEADLINE_DESCRIPTION
from app.judges.registry import TransportFactory
from app.judges.router import router as judges_router
from app.labels.router import router as labels_router
from app.leaderboard.router import router as leaderboard_router
from app.lifespan import lifespan_for
from app.metrics import instrument
from app.metrics import router as metrics_router
from app.middleware import AnswerCancelledRequests, LargeBodies, RequestContextMiddleware
from app.problems import PROBLEM_RESPONSES, install_error_handlers, problem_media_type
from app.reports.router import router as reports_router
from app.scoring.router import router as scoring_router
from app.winrates.router import router as winrates_router

ROUTERS = (
    health_router,
    judges_router,
    comparisons_router,
    scoring_router,
    reports_router,
    leaderboard_router,
    winrates_router,
    batches_router,
    canaries_router,
    experiments_router,
    cards_router,
    labels_router,
    metrics_router,
    dashboard_router,
    assets_router,
)


def package_version() -> str:
    """The installed distribution's version (the OpenAPI info.version)."""
    try:
        return version("fairpair")
    except PackageNotFoundError:
        return "0.0.0"


def create_app(
    settings: Settings | None = None,
    *,
    transport_for: TransportFactory | None = None,
    freeze_heap: bool = False,
) -> FastAPI:
    """Build the app; `transport_for` lets tests fake a judge's HTTP transport; `freeze_heap`
    for a process that serves only this app (`serving_app`)."""
    settings = settings or get_settings()
    LIMITS.max_text_chars = settings.max_text_chars
    app = FastAPI(
        title="fairpair",
        version=package_version(),
        lifespan=lifespan_for(settings, transport_for, freeze_heap=freeze_heap),
        description="Debiased pairwise comparison with LLM judges.",
        responses=PROBLEM_RESPONSES,
        # /docs is served from the app's own copy of Swagger UI (app/dashboard/assets.py).
        docs_url=None,
        # ReDoc's page loads its script from a CDN: no page of the app does (`/docs` instead).
        redoc_url=None,
    )
    install_error_handlers(app)
    if settings.auth == "off":
        # Inside the request context, so a refused request is still logged with its id.
        app.add_middleware(LoopbackHostsOnly)
    app.add_middleware(
        RequestContextMiddleware,
        max_body_bytes=settings.max_body_bytes,
        large_bodies={
            "/v1/batches": LargeBodies(
                settings.max_batch_bytes,
                SUBMIT_SCOPES,
                batch_max_values(settings.max_batch_items),
            )
        },
    )
    app.add_middleware(AnswerCancelledRequests)
    instrument(app)
    for router in ROUTERS:
        app.include_router(router)
    document_problems(app, settings.compare_timeout_s)
    return app


def serving_app(settings: Settings | None = None) -> FastAPI:
    """The app of a `fairpair serve` process (uvicorn's factory for each of `--workers N`):
    it serves until the process exits, so it freezes what its start-up built."""
    return create_app(settings, freeze_heap=True)


def document_problems(app: FastAPI, max_timeout_s: float) -> None:
    """Serve the schema with error answers typed application/problem+json, and with the
    deadline's bound this server enforces."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = state_deadline_bound(problem_media_type(build()), max_timeout_s)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def state_deadline_bound(openapi: dict[str, Any], max_timeout_s: float) -> dict[str, Any]:
    """Every request's `timeout_s` says `maximum` = the setting (a model cannot know it)."""
    for schema in openapi.get("components", {}).get("schemas", {}).values():
        field = schema.get("properties", {}).get("timeout_s", {})
        if field.get("description") != DEADLINE_DESCRIPTION:
            continue  # a judge's own timeout_s is another field, with its own fixed bound
        for branch in field.get("anyOf", []):
            if branch.get("type") == "number":
                branch["maximum"] = max_timeout_s
    return openapi
