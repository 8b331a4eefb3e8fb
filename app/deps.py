"""Small dependencies over the lifespan's state, with `Annotated` aliases for routes."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Annotated, Any, TypedDict

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.auth.keys import ANONYMOUS, KeyCache, Principal
from app.auth.ratelimit import KeyRateLimiter
from app.config import Settings
from app.errors import Forbidden, RateLimited, Unauthorized
from app.privacy import TextKeeper

if TYPE_CHECKING:
    from redis.asyncio import Redis

    from app.batches.queue import ItemQueue
    from app.comparisons.pool import JudgePool
    from app.comparisons.writes import GroupCommit
    from app.judges.registry import JudgeRegistry


class State(TypedDict):
    """Process-wide resources created in the lifespan."""

    settings: Settings
    engine: AsyncEngine
    sessionmaker: async_sessionmaker[AsyncSession]
    key_cache: KeyCache
    key_limiter: KeyRateLimiter
    registry: JudgeRegistry
    pool: JudgePool
    writes: GroupCommit
    in_flight: set[asyncio.Task[Any]]
    batch_queue: ItemQueue
    redis: Redis | None
    # Under the instance's stored HMAC salt (app/keyring/service.py).
    keeper: TextKeeper


def get_settings(request: Request) -> Settings:
    """The app's settings."""
    settings: Settings = request.state.settings
    return settings


def get_sessionmaker(request: Request) -> async_sessionmaker[AsyncSession]:
    """The session factory, for services that open one short session per write."""
    maker: async_sessionmaker[AsyncSession] = request.state.sessionmaker
    return maker


async def get_session(request: Request) -> AsyncIterator[AsyncSession]:
    """One session per request; services commit before the response is sent."""
    async with get_sessionmaker(request)() as session:
        yield session


def get_registry(request: Request) -> JudgeRegistry:
    """The judge registry."""
    registry: JudgeRegistry = request.state.registry
    return registry


def get_pool(request: Request) -> JudgePool:
    """The shared judge pool."""
    pool: JudgePool = request.state.pool
    return pool


def get_keeper(request: Request) -> TextKeeper:
    """What is stored of submitted texts; filters hash what they match the same way."""
    keeper: TextKeeper = request.state.keeper
    return keeper


SettingsDep = Annotated[Settings, Depends(get_settings)]
KeeperDep = Annotated[TextKeeper, Depends(get_keeper)]
SessionDep = Annotated[AsyncSession, Depends(get_session)]
SessionmakerDep = Annotated[async_sessionmaker[AsyncSession], Depends(get_sessionmaker)]
RegistryDep = Annotated["JudgeRegistry", Depends(get_registry)]
PoolDep = Annotated["JudgePool", Depends(get_pool)]


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer ...` header."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def authenticate(request: Request) -> Principal:
    """The caller, from its API key (everyone is admin when auth is off)."""
    settings = get_settings(request)
    if settings.auth == "off":
        return ANONYMOUS
    token = bearer_token(request)
    if token is None:
        raise Unauthorized(
            "send Authorization: Bearer fp_<id>_<secret>", headers={"WWW-Authenticate": "Bearer"}
        )
    cache: KeyCache = request.state.key_cache
    async with get_sessionmaker(request)() as session:
        principal = await cache.verify(session, token)
    if principal is None:
        raise Unauthorized(
            "the API key is not valid or was revoked", headers={"WWW-Authenticate": "Bearer"}
        )
    await check_rate(request, principal)
    return principal


async def check_rate(request: Request, principal: Principal) -> None:
    """Count the request against its key's per-minute limit (429 past it)."""
    limiter: KeyRateLimiter = request.state.key_limiter
    wait = await limiter.retry_after(principal.key_id)
    if wait is not None:
        raise RateLimited(
            f"more than {limiter.per_minute} requests a minute with this key",
            headers={"Retry-After": str(wait)},
        )


def require(scope: str) -> Callable[..., Awaitable[Principal]]:
    """A dependency that admits only keys with `scope` (or `admin`)."""

    async def check(principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
        if scope not in principal.scopes and "admin" not in principal.scopes:
            raise Forbidden(f"this API key lacks the '{scope}' scope")
        return principal

    return check


CompareKey = Annotated[Principal, Depends(require("compare"))]
ScoreKey = Annotated[Principal, Depends(require("score"))]
ReadKey = Annotated[Principal, Depends(require("read"))]
LabelKey = Annotated[Principal, Depends(require("label"))]
AdminKey = Annotated[Principal, Depends(require("admin"))]
