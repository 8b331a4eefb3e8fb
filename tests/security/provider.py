"""A fake judge provider over real HTTP: an OpenAI-compatible server that records what it is sent.

It answers every chat completion with a tie, so comparisons complete, and keeps each request's
`Authorization` header and path: the security tests look there for keys that must never arrive.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from tests.support.processes import free_port

VERDICT = {"winner": "tie", "confidence": 0.5, "reason": "both are fine"}


@dataclass
class RecordingProvider:
    """What one fake provider received."""

    port: int
    authorizations: list[str] = field(default_factory=list)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    async def chat(self, request: Request) -> JSONResponse:
        self.authorizations.append(request.headers.get("authorization", ""))
        body = json.loads(await request.body())
        return JSONResponse(
            {
                "id": "fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": json.dumps(VERDICT)},
                    }
                ],
                "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
            }
        )


@asynccontextmanager
async def recording_provider() -> AsyncIterator[RecordingProvider]:
    """A RecordingProvider listening on 127.0.0.1 for the duration of the block."""
    provider = RecordingProvider(port=free_port())
    app = Starlette(routes=[Route("/v1/chat/completions", provider.chat, methods=["POST"])])
    config = uvicorn.Config(app, host="127.0.0.1", port=provider.port, log_level="warning")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    while not server.started:
        if task.done():
            task.result()
        await asyncio.sleep(0.01)
    try:
        yield provider
    finally:
        server.should_exit = True
        await task
