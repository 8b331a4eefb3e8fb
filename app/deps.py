"""Typed dependencies over the lifespan's state, with `Annotated` aliases for routes.

Only this module (and app/lifespan.py, which builds the state) reads the state: routes receive
each process-wide object through its alias, typed.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any, Literal

from fastapi import Depends, Request
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.auth.keys import ANONYMOUS, KeyCache, Principal
from app.auth.ratelimit import KeyRateLimiter
from app.config import Settings
from app.errors import Forbidden, RateLimited, Unauthorized
from app.privacy import TextKeeper

if TYPE_CHECKING:
    from redis.asyncio import Redis


# The fields of `State` (app/lifespan.py; tests/test_state_access.py keeps the two equal).
StateKey = Literal[
    "settings",
    "engine",
    "sessionmaker",
    "key_cache",
    "key_limiter",
    "registry",
    "pool",
    "writes",
    "in_flight",
    "batch_queue",
    "redis",
    "keeper",
    "leaderboard_cache",
    "calibrations",
    "jobs",
    "dashboard_pages",
    "dashboard_charts",
]


def from_state(key: StateKey) -> Any:
    """`Depends` on one object of the lifespan's `State`; the alias that uses it says its type.

    Starlette copies the state the lifespan yields into every request's scope (`request.state`).
    An object of a feature above this layer gets its alias in that feature (`RegistryDep` in
    app/judges/registry.py, say); the ones below are here.
    """

    # `async`: FastAPI runs a plain `def` dependency in a worker thread, a hop per request.
    async def get(request: Request) -> Any:
        return request.scope["state"][key]

    get.__name__ = get.__qualname__ = f"get_{key}"
    return Depends(get)


SettingsDep = Annotated[Settings, from_state("settings")]
EngineDep = Annotated[AsyncEngine, from_state("engine")]
SessionmakerDep = Annotated[async_sessionmaker[AsyncSession], from_state("sessionmaker")]
KeyCacheDep = Annotated[KeyCache, from_state("key_cache")]
KeyLimiterDep = Annotated[KeyRateLimiter, from_state("key_limiter")]
InFlightDep = Annotated[set[asyncio.Task[Any]], from_state("in_flight")]
RedisDep = Annotated["Redis | None", from_state("redis")]
KeeperDep = Annotated[TextKeeper, from_state("keeper")]


async def get_session(sessionmaker: SessionmakerDep) -> AsyncIterator[AsyncSession]:
    """One session per request; services commit before the response is sent."""
    async with sessionmaker() as session:
        yield session


SessionDep = Annotated[AsyncSession, Depends(get_session)]


@dataclass(frozen=True)
class KeyCheck:
    """What admits an API key, for the API and the dashboard alike."""

    settings: Settings
    sessionmaker: async_sessionmaker[AsyncSession]
    cache: KeyCache
    limiter: KeyRateLimiter

    async def verify(self, token: str) -> Principal | None:
        """The key's principal (verified through the cache), rate limited; None if not valid."""
        async with self.sessionmaker() as session:
            principal = await self.cache.verify(session, token)
        if principal is not None:
            await self.check_rate(principal)
        return principal

    async def check_rate(self, principal: Principal) -> None:
        """Count the request against its key's per-minute limit (429 past it)."""
        wait = await self.limiter.retry_after(principal.key_id)
        if wait is not None:
            raise RateLimited(
                f"more than {self.limiter.per_minute} requests a minute with this key",
                headers={"Retry-After": str(wait)},
            )


async def key_check(request: Request) -> KeyCheck:
    """The key check over this process's cache and limiter.

    Read from the state in one step rather than through four aliases: every API request runs it,
    and each dependency FastAPI resolves costs the request path CPU.
    """
    state = request.scope["state"]
    return KeyCheck(
        state["settings"], state["sessionmaker"], state["key_cache"], state["key_limiter"]
    )


KeyCheckDep = Annotated[KeyCheck, Depends(key_check)]


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer ...` header."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


async def authenticate(request: Request, keys: KeyCheckDep) -> Principal:
    """The caller, from its API key (everyone is admin when auth is off)."""
    if keys.settings.auth == "off":
        return ANONYMOUS
    token = bearer_token(request)
    if token is None:
        raise Unauthorized(
            "send Authorization: Bearer fp_<id>_<secret>", headers={"WWW-Authenticate": "Bearer"}
        )
    principal = await keys.verify(token)
    if principal is None:
        raise Unauthorized(
            "the API key is not valid or was revoked", headers={"WWW-Authenticate": "Bearer"}
        )
    return principal


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
