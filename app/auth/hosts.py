"""With auth off, only requests addressed to a loopback name are served (no DNS rebinding).

`FAIRPAIR_AUTH=off` is allowed only on a loopback bind, but a web page the user opens can still
reach that socket: it points a host name of its own at 127.0.0.1 (DNS rebinding), and the
browser then treats the API as that page's origin. Such a request carries the attacker's name in
`Host`, so refusing every `Host` that is not a loopback name or address closes it, as Jupyter and
Ollama do. Loopback names are `localhost` and `*.localhost` (RFC 6761: browsers resolve them to
loopback themselves, never through DNS), and addresses are 127.0.0.0/8 and ::1 (also written
IPv4-mapped), each with or without a port, IPv6 in brackets. `0.0.0.0` is not loopback.
"""

from __future__ import annotations

import ipaddress

from starlette.types import ASGIApp, Receive, Scope, Send

from app.errors import HostNotLoopback
from app.problems import problem


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


class LoopbackHostsOnly:
    """Answers 403 `forbidden` to an HTTP request whose `Host` is not a loopback name."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # The app serves no websockets; lifespan messages carry no Host.
        if scope["type"] != "http" or is_loopback_host(_host_header(scope)):
            await self.app(scope, receive, send)
            return
        response = problem(
            HostNotLoopback.status,
            HostNotLoopback.slug,
            HostNotLoopback.title,
            "FAIRPAIR_AUTH=off serves requests addressed to localhost, 127.0.0.1 or [::1] only; "
            "use one of those names, or turn auth on",
            instance=scope.get("path"),
        )
        await response(scope, receive, send)


def _host_header(scope: Scope) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == b"host":
            return bytes(value).decode("latin-1")
    return None
