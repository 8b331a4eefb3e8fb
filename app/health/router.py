"""Liveness and readiness probes (open, no key needed)."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Literal

from fastapi import APIRouter
from fastapi.responses import JSONResponse
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from app.deps import EngineDep, RedisDep
from app.errors import ServiceUnavailable
from app.judges.registry import RegistryDep
from app.problems import problem

if TYPE_CHECKING:
    from redis.asyncio import Redis

router = APIRouter(tags=["health"])
PROBE_TIMEOUT_S = 2.0
# Said of Redis when the settings name none (the embedded queue): neither up nor down, and
# still truthy, so a probe that checks every value reads the service as ready.
NotConfigured = Literal["not_configured"]
NOT_CONFIGURED: NotConfigured = "not_configured"


@router.get("/healthz", operation_id="healthz")
async def healthz() -> dict[str, str]:
    """The process is alive."""
    return {"status": "ok"}


async def _database_ready(engine: AsyncEngine) -> bool:
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S), engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
    except Exception:  # any failure means not ready; the probe must never raise
        return False
    return True


async def _redis_ready(redis: Redis | None) -> bool | NotConfigured:
    if redis is None:
        return NOT_CONFIGURED
    try:
        async with asyncio.timeout(PROBE_TIMEOUT_S):
            return bool(await redis.ping())
    except Exception:  # any failure means not ready
        return False


@router.get("/readyz", operation_id="readyz", responses={503: {"description": "not ready"}})
async def readyz(engine: EngineDep, redis: RedisDep, registry: RegistryDep) -> JSONResponse:
    """The database (and Redis, when configured) answer; `redis` is `"not_configured"` without
    FAIRPAIR_REDIS_URL. `unavailable_judges` names the judges this process cannot call and why
    (a missing key, say): they do not make the process unready, since every other judge works."""
    checks: dict[str, bool | str] = {
        "database": await _database_ready(engine),
        "redis": await _redis_ready(redis),
    }
    judges = registry.unavailable()
    if all(value is not False for value in checks.values()):
        return JSONResponse({"status": "ready", "checks": checks, "unavailable_judges": judges})
    return problem(
        503,
        ServiceUnavailable.slug,
        ServiceUnavailable.title,
        "a dependency is unreachable",
        instance="/readyz",
        headers={"Retry-After": "5"},
        checks=checks,
        unavailable_judges=judges,
    )
