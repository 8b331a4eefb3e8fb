"""Liveness and readiness probes (open, no key needed)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from sqlalchemy import text

from app.errors import ServiceUnavailable, problem

router = APIRouter(tags=["health"])
PROBE_TIMEOUT_S = 2.0


@router.get("/healthz", operation_id="healthz")
async def healthz() -> dict[str, str]:
    """The process is alive."""
    return {"status": "ok"}


async def _database_ready(request: Request) -> bool:
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S), request.state.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception:  # any failure means not ready; the probe must never raise
        return False
    return True


async def _redis_ready(request: Request) -> bool:
    redis = getattr(request.state, "redis", None)
    if redis is None:
        return True
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            return bool(await redis.ping())
    except Exception:  # any failure means not ready
        return False


@router.get("/readyz", operation_id="readyz", responses={503: {"description": "not ready"}})
async def readyz(request: Request) -> JSONResponse:
    """The database (and Redis, when configured) answer."""
    checks = {"database": await _database_ready(request), "redis": await _redis_ready(request)}
    if all(checks.values()):
        return JSONResponse({"status": "ready", "checks": checks})
    return problem(
        503,
        ServiceUnavailable.slug,
        ServiceUnavailable.title,
        "a dependency is unreachable",
        instance="/readyz",
        headers={"Retry-After": "5"},
        checks=checks,
    )
