"""A TCP proxy the test can close and reopen: a database outage without touching the database."""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import urlsplit

from tests.support.databases import SERVER_URL
from tests.support.processes import free_port


class TcpProxy:
    """Forwards a loopback port; `close()` cuts every connection and refuses new ones;
    `stall()` keeps them open but forwards nothing (a server that stopped answering) until
    `resume()`."""

    def __init__(self, target_host: str, target_port: int) -> None:
        self.target = (target_host, target_port)
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self._flowing = asyncio.Event()
        self._flowing.set()

    async def open(self) -> None:
        """Start (or restart) accepting on the same port."""
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)

    async def close(self) -> None:
        """Stop accepting and drop every open connection."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in list(self._writers):
            writer.close()
        self._writers.clear()

    def stall(self) -> None:
        """Hold every byte, both ways, on open and new connections alike."""
        self._flowing.clear()

    def resume(self) -> None:
        """Forward again, what was held first."""
        self._flowing.set()

    async def _serve(
        self, client_reader: asyncio.StreamReader, client_writer: asyncio.StreamWriter
    ) -> None:
        try:
            server_reader, server_writer = await asyncio.open_connection(*self.target)
        except OSError:
            client_writer.close()
            return
        self._writers.update({client_writer, server_writer})
        await asyncio.gather(
            self._pipe(client_reader, server_writer), self._pipe(server_reader, client_writer)
        )

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await reader.read(65536):
                await self._flowing.wait()
                writer.write(data)
                await writer.drain()
        writer.close()
        self._writers.discard(writer)


async def proxied_database(database_url: str) -> tuple[TcpProxy, str]:
    """An open proxy in front of the tests' PostgreSQL server, and `database_url` through it."""
    server = urlsplit(SERVER_URL)
    proxy = TcpProxy(server.hostname or "127.0.0.1", server.port or 5432)
    await proxy.open()
    address = server.netloc.rpartition("@")[2]
    return proxy, database_url.replace(f"@{address}/", f"@127.0.0.1:{proxy.port}/", 1)
