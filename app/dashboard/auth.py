"""Who may see the dashboard: a `read` key's session cookie or an `Authorization` header.

A `label` key may log in too, but sees only the labeling page (/dashboard/label); the labeler is
the key's id (`app.labels.service.labeler_name`).

The cookie holds a session token (app/auth/sessions.py), never the API key. Logging in and out
are refused when the form comes from another origin: a browser sends `Origin` with every POST,
and its host must be the request's `Host` (as Grafana and Jupyter check; the scheme is left out
so that a TLS-terminating proxy needs no setting for it). Without `Origin` the request is a
non-browser client's, unless `Sec-Fetch-Site` says otherwise. The cookie is `Secure` when the
request is https: its own scheme, or `X-Forwarded-Proto: https` from a peer listed in
`FAIRPAIR_TRUSTED_PROXIES`.
"""

from __future__ import annotations

import ipaddress
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Request

from app.auth.keys import ANONYMOUS, Principal
from app.auth.sessions import SESSION_LIFETIME, session_principal
from app.config import Settings
from app.deps import KeyCheck, KeyCheckDep, bearer_token
from app.errors import CrossOriginForm, Forbidden

# The name predates sessions; browsers holding an API key under it are simply sent to log in.
COOKIE = "fairpair_key"
COOKIE_MAX_AGE_S = int(SESSION_LIFETIME.total_seconds())
SAME_SITE_FETCHES = frozenset({"same-origin", "none"})
LABEL_PAGE = "/dashboard/label"


def may_read(principal: Principal) -> bool:
    """Pages need the `read` scope (or `admin`)."""
    return bool({"read", "admin"} & principal.scopes)


def may_label(principal: Principal) -> bool:
    """The labeling page needs the `label` scope (or `admin`)."""
    return bool({"label", "admin"} & principal.scopes)


def may_log_in(principal: Principal) -> bool:
    """A key that may see some page: the report pages or the labeling page."""
    return may_read(principal) or may_label(principal)


def landing(principal: Principal, target: str) -> str:
    """Where a login goes: `target`, but the labeling page for a key that may only label."""
    return target if may_read(principal) else LABEL_PAGE


async def verify_session(keys: KeyCheck, token: str) -> Principal | None:
    """The principal of a live session cookie, rate limited; None if it is not one."""
    async with keys.sessionmaker() as session:
        principal = await session_principal(session, token)
    if principal is not None:
        await keys.check_rate(principal)
    return principal


async def dashboard_principal(request: Request, keys: KeyCheckDep) -> Principal | None:
    """Who is at the browser, whatever their scopes; None when a login is needed."""
    if keys.settings.auth == "off":
        return ANONYMOUS
    header, cookie = bearer_token(request), request.cookies.get(COOKIE)
    if header:
        return await keys.verify(header)
    if cookie:
        return await verify_session(keys, cookie)
    return None


async def page_principal(request: Request, keys: KeyCheckDep) -> Principal | None:
    """The viewer, or None when a login is needed; 403 for a key without `read`."""
    principal = await dashboard_principal(request, keys)
    if principal is not None and not may_read(principal):
        hint = f": it may label at {LABEL_PAGE}" if may_label(principal) else ""
        raise Forbidden(f"this API key lacks the 'read' scope{hint}")
    return principal


Viewer = Annotated[Principal | None, Depends(page_principal)]
# The labeling page checks the `label` scope itself, to say on the page what is missing.
Visitor = Annotated[Principal | None, Depends(dashboard_principal)]


def check_origin(request: Request) -> None:
    """Refuse a dashboard form (login, logout, a label) posted from another origin (CSRF)."""
    origin = request.headers.get("origin")
    if origin is None:
        fetch_site = request.headers.get("sec-fetch-site")
        if fetch_site is None or fetch_site in SAME_SITE_FETCHES:
            return
        raise CrossOriginForm(f"a {fetch_site} form may not post to the dashboard")
    host = request.headers.get("host", "").lower()
    parts = urlsplit(origin.lower())
    if parts.scheme not in ("http", "https") or not host or parts.netloc != host:
        raise CrossOriginForm(f"Origin {origin[:100]!r} is not this dashboard's (Host {host!r})")


def is_https(request: Request, settings: Settings) -> bool:
    """True when the browser reached us over https, directly or through a trusted proxy."""
    if request.url.scheme == "https":
        return True
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    peer = request.client.host if request.client else ""
    return forwarded == "https" and _is_trusted_proxy(peer, settings.trusted_proxies)


def _is_trusted_proxy(peer: str, trusted: str) -> bool:
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    for entry in filter(None, (part.strip() for part in trusted.split(","))):
        try:
            if address in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False
