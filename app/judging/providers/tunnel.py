"""A CONNECT tunnel through the operator's judge proxy (`FAIRPAIR_JUDGE_PROXY`).

The egress policy has checked the target before this runs (app/judging/egress.py); the proxy only
carries the connection. The tunnel is opened on a plain socket, which `LeanWire` then hands to
asyncio (TLS to the judge's host, when its URL is https, runs inside the tunnel).
"""

from __future__ import annotations

import asyncio
import socket

from app.proxies import JudgeProxy

# A proxy's answer to CONNECT is a status line and a few headers; more is not a proxy answering.
MAX_PROXY_HEAD_BYTES = 8192


class TunnelError(OSError):
    """The proxy could not be reached, or refused or garbled the tunnel (an OSError, as a
    failed direct connection is)."""


def connect_request(proxy: JudgeProxy, target: str, port: int) -> bytes:
    """The CONNECT request for `target:port` (an address, or a bracketed IPv6 one, or a name)."""
    authority = f"{target}:{port}"
    lines = [f"CONNECT {authority} HTTP/1.1", f"Host: {authority}"]
    if proxy.authorization is not None:
        lines.append(f"Proxy-Authorization: {proxy.authorization}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("ascii")


async def open_tunnel(proxy: JudgeProxy, target: str, port: int) -> socket.socket:
    """A socket connected to the proxy with a tunnel to `target:port` open through it; TunnelError
    when the proxy cannot be reached, or refuses or garbles the tunnel. The caller bounds the
    time; a cancelled open closes its socket."""
    loop = asyncio.get_running_loop()
    try:
        infos = await loop.getaddrinfo(proxy.host, proxy.port, type=socket.SOCK_STREAM)
    except OSError as exc:
        raise TunnelError(f"cannot resolve the judge proxy {proxy.host}: {exc}") from exc
    failure = TunnelError(f"the judge proxy {proxy.host} has no address")
    for family, kind, proto, _, address in infos:
        sock = socket.socket(family, kind, proto)
        try:
            sock.setblocking(False)
            await loop.sock_connect(sock, address)
            await loop.sock_sendall(sock, connect_request(proxy, target, port))
            await _read_established(loop, sock)
        except TunnelError:
            sock.close()
            raise
        except OSError as exc:
            sock.close()
            failure = TunnelError(f"cannot connect to the judge proxy {proxy.host}: {exc}")
            continue
        except BaseException:
            sock.close()
            raise
        return sock
    raise failure


async def _read_established(loop: asyncio.AbstractEventLoop, sock: socket.socket) -> None:
    """Read the proxy's answer to CONNECT: a 2xx status line and headers, nothing after them."""
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = await loop.sock_recv(sock, MAX_PROXY_HEAD_BYTES + 1 - len(head))
        if not chunk:
            raise TunnelError("the judge proxy closed the connection before answering CONNECT")
        head += chunk
        if len(head) > MAX_PROXY_HEAD_BYTES:
            raise TunnelError("the judge proxy's answer to CONNECT is too long")
    status_line = head.partition(b"\r\n")[0]
    parts = status_line.split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].startswith(b"2"):
        shown = status_line[:200].decode("latin-1")
        raise TunnelError(f"the judge proxy refused the tunnel: {shown}")
    if not head.endswith(b"\r\n\r\n") or head.count(b"\r\n\r\n") != 1:
        raise TunnelError("the judge proxy sent data before the tunnel was used")
