"""The judge's HTTP: requests to one origin, over a lean HTTP/1.1 client of our own.

Why not httpx2 on the hot path: for every request its pool scans the idle connections and asks
each one's socket whether it is readable (a select per connection), and its request and response
models, h11 and anyio cost about a fifth of the API's CPU under load (issue 20). A judge needs
much less: one origin, JSON POSTs (and the few GETs, DELETEs and uploads of a provider's batch
API), keep-alive, a connection limit, a timeout per call and the URL policy's check at connect
time. asyncio tells a connection when its peer closes it
(`connection_lost`, `eof_received`), so taking an idle one is a deque pop and a timestamp
comparison, without a system call; httptools (llhttp, which uvicorn already uses) parses answers.

Not supported, on purpose: HTTP/2, environment proxies (a proxy would connect past the URL
policy; the operator's `FAIRPAIR_JUDGE_PROXY` is a CONNECT tunnel to a checked target, in
app/judging/providers/tunnel.py), request compression, redirects (the SDKs do not follow them
either), upgrades and HEAD.
`Wire` is what providers see; tests and replays plug an httpx2 transport in behind the same
interface (app/judging/providers/http.py).
"""

from __future__ import annotations

import asyncio
import ssl
import time
import zlib
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol, cast
from urllib.parse import quote, urlsplit

import httptools
import orjson

from app.judging.egress import Address, EgressPolicy, EgressRefused
from app.judging.providers.tunnel import open_tunnel
from app.judging.retries import ProviderCallError

# A hostile or broken judge server must not exhaust memory: no judge answer comes near this.
# A request that expects more (a batch's output file) says so with its own `max_bytes`.
MAX_RESPONSE_BYTES = 16 * 1024 * 1024
# Below the 5 s keep-alive of uvicorn and Node servers, so we rarely race a server's close.
IDLE_EXPIRY_S = 4.0
CONNECT_TIMEOUT_S = 5.0
_PATH_SAFE = "/%:@!$&'()*+,;=~-._?"
# Every request's own headers besides Host and Content-Length (no Accept-Encoding: identity); a
# request's headers replace these by the same spelling of the name.
BASE_HEADERS = {
    "Accept": "application/json",
    "Content-Type": "application/json",
    "User-Agent": "fairpair",
}


class WireError(Exception):
    """A request that got no complete HTTP answer: timed out, refused, closed or malformed."""

    def __init__(self, message: str, *, timeout: bool = False, refused: bool = False) -> None:
        super().__init__(message)
        self.timeout = timeout
        # Refused by the judge URL policy, not by the network.
        self.refused = refused


@dataclass(frozen=True, slots=True)
class WireResponse:
    """A complete HTTP answer; header names are lower-case."""

    status: int
    headers: Mapping[str, str]
    content: bytes

    def json(self) -> Any:
        """The decoded JSON body (ValueError if it is not JSON)."""
        return orjson.loads(self.content)


class Wire(Protocol):
    """How a judge sends its requests: to the origin of its base URL, mostly JSON POSTs. Each
    call's whole exchange, queueing for a connection included, keeps within its `timeout_s`."""

    async def post_json(
        self, path: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout_s: float
    ) -> WireResponse:
        """POST `body` as JSON to `path`; WireError when no complete answer came in time."""
        return await self.request("POST", path, orjson.dumps(body), headers, timeout_s)

    async def request(
        self,
        method: str,
        path: str,
        content: bytes,
        headers: Mapping[str, str],
        timeout_s: float,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> WireResponse:
        """Send `content` (maybe empty) to `path`; an answer over `max_bytes` is a server error."""
        ...

    async def download(
        self,
        path: str,
        headers: Mapping[str, str],
        timeout_s: float,
        sink: BinaryIO,
        max_bytes: int,
    ) -> WireResponse:
        """GET `path`, writing a 2xx answer's body to `sink` (the answer's `content` is then
        empty) as it arrives, at most `max_bytes` of it; a body in a Content-Encoding (or a
        Transfer-Encoding besides chunked) is refused before any of it is read: we ask for
        none, and inflating one is how a small answer becomes gigabytes."""
        ...

    async def aclose(self) -> None:
        """Close the connections."""
        ...


def too_large(max_bytes: int = MAX_RESPONSE_BYTES) -> ProviderCallError:
    """The failure for an answer beyond `max_bytes` (a server error: it may pass)."""
    return ProviderCallError(
        "server_error", f"invalid response: larger than {max_bytes / 2**20:g} MiB"
    )


def unasked_encoding(headers: Mapping[str, str]) -> ProviderCallError | None:
    """The failure for a download in an encoding we never asked for, if it is in one."""
    content = headers.get("content-encoding", "").strip().lower()
    transfer = headers.get("transfer-encoding", "").strip().lower()
    if content not in ("", "identity") or transfer not in ("", "chunked"):
        encoding = content if content not in ("", "identity") else transfer
        return ProviderCallError("server_error", f"invalid response: a download in {encoding}")
    return None


def decoded(content: bytes, encoding: str, max_bytes: int = MAX_RESPONSE_BYTES) -> bytes:
    """`content` without its Content-Encoding; we ask for none, but a server may still gzip."""
    if encoding in ("", "identity"):
        return content
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise ProviderCallError("server_error", f"invalid response: Content-Encoding {encoding}")
    inflater = zlib.decompressobj(32 + zlib.MAX_WBITS)  # gzip or zlib, by the header
    try:
        body = inflater.decompress(content, max_bytes + 1)
    except zlib.error as exc:
        raise ProviderCallError("server_error", f"invalid response: {exc}") from exc
    if len(body) > max_bytes:
        raise too_large(max_bytes)
    return body


class _Connection(asyncio.Protocol):
    """One keep-alive HTTP/1.1 connection carrying one exchange at a time."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.open = False
        self.idle_since = 0.0
        self.reusable = False
        self._answer: asyncio.Future[WireResponse] | None = None
        # One parser for the connection's answers, one after the other (llhttp keeps alive).
        self._parser = httptools.HttpResponseParser(self)
        self._headers: dict[str, str] = {}
        self._body: list[bytes] = []
        self._received = 0
        self._max_bytes = MAX_RESPONSE_BYTES
        self._until_eof = False
        # Where a download's 2xx body goes instead of memory (`_sinking` once its head is read).
        self._sink: BinaryIO | None = None
        self._sinking = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        # uvloop's transports (the API's loop) have asyncio.Transport's methods without being
        # its subclasses: an isinstance check here failed every connection in production.
        self.transport, self.open = cast(asyncio.Transport, transport), True

    def data_received(self, data: bytes) -> None:
        if self._answer is None or self._answer.done():
            self.close()  # nothing was asked: a confused server, not a connection to reuse
            return
        self._received += len(data)
        if self._received > self._max_bytes:
            self._fail(too_large(self._max_bytes))
            return
        try:
            self._parser.feed_data(data)
        except (httptools.HttpParserError, httptools.HttpParserUpgrade) as exc:
            self._fail(WireError(f"malformed response: {exc}"))

    def eof_received(self) -> bool:
        self.open = False
        return False  # let the transport close; connection_lost resolves the answer

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if self._answer is None or self._answer.done():
            return
        if self._until_eof:  # a body delimited by the close (HTTP/1.0 style) ends here
            self.on_message_complete()
        if not self._answer.done():
            self._answer.set_exception(WireError("connection closed before a complete answer"))

    def on_message_begin(self) -> None:
        if self._answer is None or self._answer.done():
            self.close()  # a second answer to one request: the stream cannot be trusted

    def on_header(self, name: bytes, value: bytes) -> None:
        key, text = name.decode("latin-1").lower(), value.decode("latin-1")
        self._headers[key] = f"{self._headers[key]}, {text}" if key in self._headers else text

    def on_headers_complete(self) -> None:
        chunked = "chunked" in self._headers.get("transfer-encoding", "").lower()
        # 204 and 304 never have a body (an answer to a DELETE may be a 204 without a length).
        bodiless = self._parser.get_status_code() in (204, 304)
        self._until_eof = not (chunked or bodiless) and "content-length" not in self._headers
        status = self._parser.get_status_code()
        self._sinking = self._sink is not None and 200 <= status < 300
        refused = unasked_encoding(self._headers) if self._sinking else None
        if refused is not None:
            self._fail(refused)

    def on_body(self, body: bytes) -> None:
        if self._answer is None or self._answer.done():
            return  # refused: what the parser still holds goes nowhere
        if self._sinking and self._sink is not None:
            self._sink.write(body)
        else:
            self._body.append(body)

    def on_message_complete(self) -> None:
        if self._answer is None or self._answer.done():
            return
        status = self._parser.get_status_code()
        if status < 200:  # an interim answer (100 Continue): the real one follows
            self._headers, self._body, self._until_eof = {}, [], False
            return
        self.reusable = self.open and not self._until_eof and self._parser.should_keep_alive()
        try:
            encoding = "" if self._sinking else self._headers.get("content-encoding", "")
            content = decoded(b"".join(self._body), encoding, self._max_bytes)
        except ProviderCallError as exc:
            self._fail(exc)
            return
        self._answer.set_result(WireResponse(status, self._headers, content))

    def _fail(self, exc: Exception) -> None:
        if self._answer is not None and not self._answer.done():
            self._answer.set_exception(exc)
        self.close()

    async def exchange(
        self, request: bytes, max_bytes: int, sink: BinaryIO | None = None
    ) -> WireResponse:
        """Send `request` and wait for its complete answer, of at most `max_bytes` (a 2xx body
        written to `sink` when given)."""
        if self.transport is None or not self.open:
            raise WireError("connection closed before a complete answer")
        self._answer = asyncio.get_running_loop().create_future()
        self._headers, self._body, self._received, self.reusable = {}, [], 0, False
        self._max_bytes, self._sink, self._sinking = max_bytes, sink, False
        self.transport.write(request)
        try:
            return await self._answer
        finally:
            self._answer = None

    def close(self) -> None:
        """Close the connection; it is never reused."""
        self.open = self.reusable = False
        if self.transport is not None:
            self.transport.close()


class LeanWire(Wire):
    """A keep-alive pool of HTTP/1.1 connections to one origin, at most `max_connections`.

    Idle connections wait in a deque, most recently used first; one the server closed or that
    has idled past IDLE_EXPIRY_S is dropped when it comes up. Every new connection goes to an
    address the egress policy has just checked, so DNS rebinding reaches nothing forbidden.
    """

    def __init__(
        self,
        base_url: str,
        policy: EgressPolicy,
        max_connections: int,
        *,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        parts = urlsplit(base_url)
        self._host = parts.hostname or ""
        https = parts.scheme == "https"
        self._port = parts.port or (443 if https else 80)
        host = f"[{self._host}]" if ":" in self._host else self._host
        self._authority = host if parts.port is None else f"{host}:{parts.port}"
        self._ssl = (ssl_context or ssl.create_default_context()) if https else None
        self._policy = policy
        self._slots = asyncio.Semaphore(max_connections)
        self._idle: deque[_Connection] = deque()
        self._closed = False

    async def request(
        self,
        method: str,
        path: str,
        content: bytes,
        headers: Mapping[str, str],
        timeout_s: float,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> WireResponse:
        """Send `content` with `method`; the whole exchange, queueing included, within
        `timeout_s`. An empty body still says `Content-Length: 0`, which every method allows."""
        request = self._request(method, path, content, headers)
        try:
            async with asyncio.timeout(timeout_s), self._slots:
                return await self._exchange(request, timeout_s, max_bytes)
        except TimeoutError:
            raise WireError("timed out", timeout=True) from None

    async def download(
        self,
        path: str,
        headers: Mapping[str, str],
        timeout_s: float,
        sink: BinaryIO,
        max_bytes: int,
    ) -> WireResponse:
        """GET `path` into `sink` (see Wire.download); the whole exchange within `timeout_s`."""
        request = self._request("GET", path, b"", {**headers, "Accept-Encoding": "identity"})
        try:
            async with asyncio.timeout(timeout_s), self._slots:
                return await self._exchange(request, timeout_s, max_bytes, sink)
        except TimeoutError:
            raise WireError("timed out", timeout=True) from None

    def _request(self, method: str, path: str, content: bytes, headers: Mapping[str, str]) -> bytes:
        lines = [
            f"{method} {quote(path, safe=_PATH_SAFE)} HTTP/1.1",
            f"Host: {self._authority}",
            *(f"{name}: {value}" for name, value in {**BASE_HEADERS, **headers}.items()),
            f"Content-Length: {len(content)}",
        ]
        if not method.isalpha():
            raise WireError(f"invalid method: {method!r}")
        if any("\r" in line or "\n" in line for line in lines):
            raise WireError("invalid header: line breaks in a name or value")
        try:
            head = "\r\n".join(lines).encode("latin-1")
        except UnicodeEncodeError as exc:
            raise WireError(f"invalid header: {exc}") from None
        return head + b"\r\n\r\n" + content

    async def _exchange(
        self, request: bytes, timeout_s: float, max_bytes: int, sink: BinaryIO | None = None
    ) -> WireResponse:
        connection = self._take_idle() or await self._connect(min(CONNECT_TIMEOUT_S, timeout_s))
        try:
            response = await connection.exchange(request, max_bytes, sink)
        except BaseException:  # cancelled or failed mid-exchange: the stream's state is unknown
            connection.close()
            raise
        if connection.reusable and not self._closed:
            connection.idle_since = time.monotonic()
            self._idle.append(connection)
        else:
            connection.close()
        return response

    def _take_idle(self) -> _Connection | None:
        expired_before = time.monotonic() - IDLE_EXPIRY_S
        while self._idle:
            connection = self._idle.pop()
            if connection.open and connection.idle_since > expired_before:
                return connection
            connection.close()
        return None

    async def _connect(self, timeout_s: float) -> _Connection:
        """A new connection to the first checked address of the host that accepts one, through
        the operator's proxy when there is one."""
        policy = self._policy
        try:
            addresses: list[Address | None] = [*await policy.addresses(self._host, self._port)]
        except EgressRefused as refused:
            raise WireError(f"refused by the judge URL policy: {refused}", refused=True) from None
        except OSError as exc:
            # Behind a proxy, names may resolve there only: a trusted judge's tunnel names its
            # host; an API-posted judge's must name an address checked here.
            if policy.proxy is None or not policy.trusted:
                raise WireError(f"cannot resolve {self._host}: {exc}") from exc
            addresses = [None]
        failure = WireError(f"{self._host} has no address")
        for address in addresses:  # the checked address itself: nothing is resolved again
            try:
                async with asyncio.timeout(timeout_s):
                    return await self._open(address)
            except TimeoutError:
                failure = WireError(
                    f"connecting to {address or self._host} timed out", timeout=True
                )
            except OSError as exc:  # refused, unreachable, TLS handshake failed, proxy refused
                failure = WireError(f"cannot connect to {address or self._host}: {exc}")
        raise failure

    async def _open(self, address: Address | None) -> _Connection:
        """A connection to `address` (None: the host, by name, through the proxy)."""
        loop = asyncio.get_running_loop()
        hostname = self._host if self._ssl is not None else None
        proxy = self._policy.proxy
        if proxy is None:
            _, connection = await loop.create_connection(
                _Connection, str(address), self._port, ssl=self._ssl, server_hostname=hostname
            )
            return connection
        target = self._policy.tunnel_target(self._host, address)
        sock = await open_tunnel(proxy, target, self._port)
        try:
            _, connection = await loop.create_connection(
                _Connection, sock=sock, ssl=self._ssl, server_hostname=hostname
            )
        except BaseException:
            sock.close()
            raise
        return connection

    async def aclose(self) -> None:
        """Close the idle connections; busy ones close when their exchange ends."""
        self._closed = True
        while self._idle:
            self._idle.pop().close()
