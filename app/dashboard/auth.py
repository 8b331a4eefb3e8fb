"""Who may see the dashboard: a `read` key from the login cookie or an `Authorization` header."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from app.auth.keys import ANONYMOUS, KeyCache, Principal
from app.auth.ratelimit import KeyRateLimiter
from app.deps import bearer_token, get_sessionmaker, get_settings
from app.errors import Forbidden, RateLimited

COOKIE = "fairpair_key"
COOKIE_MAX_AGE_S = 8 * 3600


def may_read(principal: Principal) -> bool:
    """Pages need the `read` scope (or `admin`)."""
    return bool({"read", "admin"} & principal.scopes)


async def verify_token(request: Request, token: str) -> Principal | None:
    """The key's principal as the API verifies it (cached), rate limited; None if not valid."""
    cache: KeyCache = request.state.key_cache
    async with get_sessionmaker(request)() as session:
        principal = await cache.verify(session, token)
    if principal is None:
        return None
    limiter: KeyRateLimiter = request.state.key_limiter
    wait = limiter.retry_after(principal.key_id)
    if wait is not None:
        raise RateLimited(f"more than {limiter.per_minute} requests a minute with this key",
                          headers={"Retry-After": str(wait)})
    return principal


async def page_principal(request: Request) -> Principal | None:
    """The viewer, or None when a login is needed; 403 for a key without `read`."""
    if get_settings(request).auth == "off":
        return ANONYMOUS
    token = bearer_token(request) or request.cookies.get(COOKIE)
    if not token:
        return None
    principal = await verify_token(request, token)
    if principal is not None and not may_read(principal):
        raise Forbidden("this API key lacks the 'read' scope")
    return principal


Viewer = Annotated[Principal | None, Depends(page_principal)]
