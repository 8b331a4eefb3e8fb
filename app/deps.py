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
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.auth.keys import ANONYMOUS, KeyCache, Principal
from app.auth.ratelimit import FailedAuthThrottle, KeyRateLimiter
from app.config import Settings
from app.errors import Forbidden, RateLimited, Unauthorized
from app.privacy import TextKeeper
from app.processes import ChildPool

if TYPE_CHECKING:
    from redis.asyncio import Redis


# The fields of `State` (app/lifespan.py; tests/test_state_access.py keeps the two equal).
StateKey = Literal[
    "settings",
    "engine",
    "sessionmaker",
    "key_cache",
    "key_limiter",
    "auth_failures",
    "registry",
    "pool",
    "writes",
    "in_flight",
    "batch_queue",
    "redis",
    "keeper",
    "leaderboard_cache",
    "compare_kind",
    "score_kind",
    "jobs",
    "dashboard_pages",
    "dashboard_charts",
    "body_checks",
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
    failures: FailedAuthThrottle

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
        state["settings"],
        state["sessionmaker"],
        state["key_cache"],
        state["key_limiter"],
        state["auth_failures"],
    )


KeyCheckDep = Annotated[KeyCheck, Depends(key_check)]


def bearer_token(request: Request) -> str | None:
    """The token of an `Authorization: Bearer ...` header."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" and token.strip() else None


# Where the middleware leaves the caller it admitted before reading a large body
# (`admit`): the route's own check takes it from there instead of counting the request twice.
ADMITTED = "fairpair.principal"


# Declares the bearer scheme in the OpenAPI document, on exactly the operations that check a key,
# so that generated clients and tools send it; the header itself is read by `bearer_token`.
BEARER_SCHEME = HTTPBearer(
    scheme_name="bearer",
    description="an API key, `fp_<id>_<secret>` (`fairpair keys create`)",
    auto_error=False,
)
DeclaredBearer = Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER_SCHEME)]


async def authenticate(request: Request, keys: KeyCheckDep, _: DeclaredBearer) -> Principal:
    """The caller (`principal_of`), as routes depend on it: the dependency declares the scheme."""
    return await principal_of(request, keys)


async def principal_of(request: Request, keys: KeyCheck) -> Principal:
    """The caller, from its API key (everyone is admin when auth is off).

    A request that fails is 401, or 429 once its client failed more than the
    `FAIRPAIR_AUTH_FAILURES_PER_MINUTE` budget.
    """
    admitted: Principal | None = request.scope.get(ADMITTED)
    if admitted is not None:
        return admitted
    if keys.settings.auth == "off":
        return ANONYMOUS
    token = bearer_token(request)
    principal = None if token is None else await keys.verify(token)
    if principal is None:
        raise auth_refusal(request, keys, missing=token is None)
    return principal


def auth_refusal(request: Request, keys: KeyCheck, *, missing: bool) -> RateLimited | Unauthorized:
    """401 for a request without a valid key, 429 past its client's budget of those."""
    wait = keys.failures.failed(request.client.host if request.client else None)
    if wait is not None:
        return RateLimited(
            "too many requests without a valid API key from this address",
            headers={"Retry-After": str(wait)},
        )
    if missing:
        return Unauthorized(
            "send Authorization: Bearer fp_<id>_<secret>", headers={"WWW-Authenticate": "Bearer"}
        )
    return Unauthorized(
        "the API key is not valid or was revoked", headers={"WWW-Authenticate": "Bearer"}
    )


def check_scope(principal: Principal, scopes: tuple[str, ...]) -> None:
    """403 unless the key holds one of `scopes` (or `admin`)."""
    if "admin" not in principal.scopes and principal.scopes.isdisjoint(scopes):
        named = " or ".join(f"'{scope}'" for scope in scopes)
        raise Forbidden(f"this API key lacks the {named} scope")


async def admit(request: Request, scopes: tuple[str, ...]) -> Principal:
    """The route's key and scope check, run by the middleware before it reads a large body."""
    principal = await principal_of(request, await key_check(request))
    check_scope(principal, scopes)
    request.scope[ADMITTED] = principal
    return principal


def body_checks(request: Request) -> ChildPool:
    """The child processes that check large bodies (for the middleware, which has no routes)."""
    pool: ChildPool = request.scope["state"]["body_checks"]
    return pool


def require(*scopes: str) -> Callable[..., Awaitable[Principal]]:
    """A dependency that admits only keys with one of `scopes` (or `admin`)."""

    async def check(principal: Annotated[Principal, Depends(authenticate)]) -> Principal:
        check_scope(principal, scopes)
        return principal

    return check


CompareKey = Annotated[Principal, Depends(require("compare"))]
ScoreKey = Annotated[Principal, Depends(require("score"))]
ReadKey = Annotated[Principal, Depends(require("read"))]
LabelKey = Annotated[Principal, Depends(require("label"))]
AdminKey = Annotated[Principal, Depends(require("admin"))]
