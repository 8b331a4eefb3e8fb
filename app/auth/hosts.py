"""With auth off, only requests addressed to a loopback name are served (no DNS rebinding).

`FAIRPAIR_AUTH=off` is allowed only on a loopback bind, but a web page the user opens can still
reach that socket: it points a host name of its own at 127.0.0.1 (DNS rebinding), and the
browser then treats the API as that page's origin. Such a request carries the attacker's name in
`Host`, so refusing every `Host` that is not a loopback name or address closes it, as Jupyter and
Ollama do. Loopback names are `localhost` and `*.localhost` (RFC 6761: browsers resolve them to
loopback themselves, never through DNS), and addresses are 127.0.0.0/8 and ::1 (also written
IPv4-mapped), each with or without a port, IPv6 in brackets. `0.0.0.0` is not loopback.

A page of another site can also send a request to `localhost` itself, without rebinding: the
browser will not let it read the answer, but a POST with no body (running a canary) or a simple
form still acts. So a request that may change state (any method but GET, HEAD and OPTIONS) is
refused when the browser says it comes from another site: an `Origin` that is not a loopback
address or name (`null` included), or `Sec-Fetch-Site: cross-site`. Clients other than browsers
send neither and are served.
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import CrossSiteRequest, HostNotLoopback
from app.problems import problem

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def split_host(host: str) -> str:
    """The name or address of a `Host` value, without its port or IPv6 brackets."""
    if host.startswith("["):
        address, bracket, rest = host[1:].partition("]")
        return address if bracket and (not rest or _is_port(rest)) else host
    name, colon, port = host.rpartition(":")
    return name if colon and _is_port(":" + port) else host


def _is_port(text: str) -> bool:
    return text.startswith(":") and text[1:].isdigit() and len(text) <= 6


def is_loopback_host(host: str | None) -> bool:
    """True when a `Host` header names this machine only."""
    if not host:
        return False
    name = split_host(host.strip().lower())
    name = name[:-1] if name.endswith(".") else name
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(name)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def cross_site(method: str, origin: str | None, fetch_site: str | None) -> bool:
    """True when a browser says this state-changing request comes from another site."""
    if method in SAFE_METHODS:
        return False
    if fetch_site is not None and fetch_site.strip().lower() == "cross-site":
        return True
    if origin is None:
        return False
    scheme, separator, host = origin.strip().partition("://")
    return not (separator and scheme.lower() in ("http", "https") and is_loopback_host(host))


Refusal = tuple[type[HostNotLoopback | CrossSiteRequest], str]
NOT_LOOPBACK: Refusal = (
    HostNotLoopback,
    "FAIRPAIR_AUTH=off serves requests addressed to localhost, 127.0.0.1 or [::1] only; "
    "use one of those names, or turn auth on",
)
FROM_ANOTHER_SITE: Refusal = (
    CrossSiteRequest,
    "FAIRPAIR_AUTH=off refuses a change from another site's page; send it from a loopback "
    "origin or without Origin, or turn auth on",
)


def refusal(scope: Scope) -> Refusal | None:
    """Why auth off does not serve this HTTP request, or None."""
    if not is_loopback_host(_header(scope, b"host")):
        return NOT_LOOPBACK
    if cross_site(scope["method"], _header(scope, b"origin"), _header(scope, b"sec-fetch-site")):
        return FROM_ANOTHER_SITE
    return None


class LoopbackHostsOnly:
    """With auth off: 403 `forbidden` to an HTTP request whose `Host` is not a loopback name,
    or that may change state and comes from another site."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The app serves no websockets; lifespan messages carry no Host.
        refused = refusal(scope) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
            return
        error, detail = refused
        response = problem(
            error.status, error.slug, error.title, detail, instance=scope.get("path")
        )
        await response(scope, receive, send)


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return bytes(value).decode("latin-1")
    return None
