"""A real HTTP/1.1 server on loopback for the wire tests: scripted raw answers, recorded requests.

Written on asyncio streams rather than uvicorn so that a test can send exactly the bytes it needs:
a truncated body, a garbage status line, HTTP/1.0, a close after idling.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class RawRequest:
    """One request as the server read it; header names lower-case."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass(frozen=True)
class Answer:
    """The bytes to send back, after `delay_s`; `close` closes the connection afterwards."""

    raw: bytes
    close: bool = False
    delay_s: float = 0.0


def answer(
    status: int,
    body: bytes | dict[str, Any] | str = b"",
    headers: dict[str, str] | None = None,
    *,
    version: str = "1.1",
    close: bool = False,
    delay_s: float = 0.0,
) -> Answer:
    """A well-formed answer with a Content-Length (JSON when `body` is a dict)."""
    content = json.dumps(body).encode() if isinstance(body, dict) else body
    content = content.encode() if isinstance(content, str) else content
    fields = {"Content-Type": "application/json", **(headers or {})}
    fields["Content-Length"] = str(len(content))
    head = f"HTTP/{version} {status} Whatever\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in fields.items())
    return Answer(head.encode() + b"\r\n" + content, close=close, delay_s=delay_s)


@dataclass
class ScriptedServer:
    """Answers requests from a script, in order (the last entry repeats), and counts what it saw.

    `idle_close_s` closes a keep-alive connection that idles that long after an answer.
    """

    script: list[Answer]
    idle_close_s: float | None = None
    port: int = 0
    accepts: int = 0
    active: int = 0
    max_active: int = 0
    requests: list[RawRequest] = field(default_factory=list)
    _writers: set[asyncio.StreamWriter] = field(default_factory=set)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.accepts += 1
        self._writers.add(writer)
        try:
            first = True
            while await self._answer_one(reader, writer, first):
                first = False
        except (OSError, asyncio.IncompleteReadError, TimeoutError):
            pass
        finally:
            self._writers.discard(writer)
            writer.close()

    async def _answer_one(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, first: bool
    ) -> bool:
        idle = None if first else self.idle_close_s
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), idle)
        request_line, *lines = head.decode("latin-1").split("\r\n")[:-2]
        headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines)}
        body = await reader.readexactly(int(headers.get("content-length", "0")))
        method, path, _ = request_line.split(" ")
        self.requests.append(RawRequest(method, path, headers, body))
        reply = self.script[min(len(self.requests), len(self.script)) - 1]
        self.active += 1
        self.max_active = max(self.max_active, self.active)
        try:
            await asyncio.sleep(reply.delay_s)
        finally:
            self.active -= 1
        writer.write(reply.raw)
        await writer.drain()
        return not reply.close

    def close_connections(self) -> None:
        for writer in list(self._writers):
            writer.close()


@asynccontextmanager
async def scripted_server(
    script: list[Answer],
    *,
    idle_close_s: float | None = None,
    ssl_context: ssl.SSLContext | None = None,
) -> AsyncIterator[ScriptedServer]:
    """A ScriptedServer listening on 127.0.0.1 for the duration of the block."""
    scripted = ScriptedServer(script, idle_close_s)
    server = await asyncio.start_server(scripted.serve, "127.0.0.1", 0, ssl=ssl_context)
    scripted.port = server.sockets[0].getsockname()[1]
    try:
        yield scripted
    finally:
        server.close()
        scripted.close_connections()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(server.wait_closed(), 2)


@dataclass
class ConnectProxy:
    """An HTTP proxy that only tunnels (CONNECT), as an operator's egress proxy does: it records
    each CONNECT's target and Proxy-Authorization, and connects `host:port` (a name through
    `names`, which stands in for the proxy's own resolver) unless `refuse` gives its status."""

    names: dict[str, str] = field(default_factory=dict)
    refuse: str | None = None
    port: int = 0
    targets: list[str] = field(default_factory=list)
    authorizations: list[str | None] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            request_line, *lines = head.split("\r\n")[:-2]
            headers = {k.strip().lower(): v.strip() for k, v in (ln.split(":", 1) for ln in lines)}
            method, target, _ = request_line.split(" ")
            self.targets.append(target)
            self.authorizations.append(headers.get("proxy-authorization"))
            if method != "CONNECT" or self.refuse is not None:
                writer.write(f"HTTP/1.1 {self.refuse or '405 Method Not Allowed'}\r\n\r\n".encode())
                return
            host, _, port = target.rpartition(":")
            host = self.names.get(host, host.strip("[]"))
            upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
            writer.write(b"HTTP/1.1 200 Connection established\r\n\r\n")
            await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))
        except (OSError, asyncio.IncompleteReadError, ValueError):
            pass
        finally:
            writer.close()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(65536):
            writer.write(chunk)
            await writer.drain()
    except OSError:
        pass
    finally:
        writer.close()


@asynccontextmanager
async def connect_proxy(**options: Any) -> AsyncIterator[ConnectProxy]:
    """A ConnectProxy listening on 127.0.0.1 for the duration of the block."""
    proxy = ConnectProxy(**options)
    server = await asyncio.start_server(proxy.serve, "127.0.0.1", 0)
    proxy.port = server.sockets[0].getsockname()[1]
    try:
        yield proxy
    finally:
        server.close()
