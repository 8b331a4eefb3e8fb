"""ASGI middleware: request ids in logs and headers, and the request body size limit."""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping
from typing import Any

import structlog
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.errors import PayloadTooLarge, problem

log = structlog.get_logger()


class RequestContextMiddleware:
    """Binds a request id, limits the body, and logs one line per request."""

    def __init__(
        self, app: ASGIApp, max_body_bytes: int, path_limits: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        # Paths with a body limit of their own (`POST /v1/batches` takes FAIRPAIR_MAX_BATCH_BYTES).
        self.path_limits = dict(path_limits or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        request_id = headers.get(b"x-request-id", b"").decode("latin-1")[:64] or uuid.uuid4().hex
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status: dict[str, Any] = {"code": None, "sent": False}  # None: the client went away

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"], status["sent"] = message["status"], True
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode("latin-1")),
                ]
            await send(message)

        try:
            limit = self.path_limits.get(scope["path"], self.max_body_bytes)
            body = await self._read_body(headers, receive, limit)
            if body is None:
                await self._reject(scope, receive, send_with_id, limit)
            else:
                await self.app(scope, self._replay(body, receive), send_with_id)
        finally:
            log.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status["code"],
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )

    async def _read_body(
        self, headers: dict[bytes, bytes], receive: Receive, limit: int
    ) -> bytes | None:
        """The whole body, or None past the limit (declared or streamed)."""
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            return None
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)

    @staticmethod
    def _replay(body: bytes, receive: Receive) -> Receive:
        """Hand the buffered body to the app once, then pass through (disconnects)."""
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay

    async def _reject(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = problem(
            413,
            PayloadTooLarge.slug,
            PayloadTooLarge.title,
            f"the body is larger than {limit} bytes",
            instance=scope["path"],
        )
        await response(scope, receive, send)
