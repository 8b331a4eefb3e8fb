"""Run an ASGI app's lifespan in process, so tests reach it through `httpx2.ASGITransport`."""

from __future__ import annotations

import asyncio
from types import TracebackType
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send


class LiveApp:
    """Starts the lifespan on enter, stops it on exit, and shares its state with every request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.state: dict[str, Any] = {}
        self._inbox: asyncio.Queue[Message] = asyncio.Queue()
        self._outbox: asyncio.Queue[Message] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        scope["state"] = self.state.copy()
        await self.app(scope, receive, send)

    async def _expect(self, wanted: str) -> None:
        message = await self._outbox.get()
        if message["type"] != wanted:
            raise RuntimeError(f"lifespan: {message.get('message', message['type'])}")

    async def __aenter__(self) -> LiveApp:
        scope = {"type": "lifespan", "asgi": {"version": "3.0"}, "state": self.state}

        async def run_lifespan() -> None:
            await self.app(scope, self._inbox.get, self._outbox.put)

        self._task = asyncio.create_task(run_lifespan())
        await self._inbox.put({"type": "lifespan.startup"})
        await self._expect("lifespan.startup.complete")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self._inbox.put({"type": "lifespan.shutdown"})
        await self._expect("lifespan.shutdown.complete")
        assert self._task is not None
        await self._task
