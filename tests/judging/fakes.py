"""Fake provider answers for MockTransport, and a real sim-judge server in a thread."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import httpx2
import uvicorn

from app.judging.blocks import ResponseBlock, parse_response_blocks
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, SimKnobs
from app.simjudge.server import create_sim_app

Reply = httpx2.Response | Exception | Callable[[httpx2.Request], httpx2.Response]


def chat_completion(
    content: str,
    *,
    model: str = "gpt-judge-2026-01-01",
    logprobs: list[dict[str, Any]] | None = None,
    tokens: tuple[int, int] = (100, 20),
) -> httpx2.Response:
    """An OpenAI Chat Completions answer."""
    choice: dict[str, Any] = {
        "index": 0,
        "finish_reason": "stop",
        "message": {"role": "assistant", "content": content},
        "logprobs": {"content": logprobs} if logprobs is not None else None,
    }
    body = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [choice],
        "usage": {
            "prompt_tokens": tokens[0],
            "completion_tokens": tokens[1],
            "total_tokens": sum(tokens),
        },
    }
    return httpx2.Response(200, json=body)


def anthropic_message(text: str, *, model: str = "claude-judge-2026-01-01") -> httpx2.Response:
    """An Anthropic Messages answer."""
    body = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 120, "output_tokens": 30},
    }
    return httpx2.Response(200, json=body)


def error_response(
    status: int, message: str, headers: dict[str, str] | None = None
) -> httpx2.Response:
    """An OpenAI/Anthropic-style error answer."""
    body = {"type": "error", "error": {"type": "error", "message": message}}
    return httpx2.Response(status, json=body, headers=headers)


def token(
    text: str, logprob: float = 0.0, top: list[tuple[str, float]] | None = None
) -> dict[str, Any]:
    """One entry of an OpenAI `logprobs.content` list."""
    alternatives = top if top is not None else [(text, logprob)]
    return {
        "token": text,
        "logprob": logprob,
        "bytes": None,
        "top_logprobs": [{"token": t, "logprob": lp, "bytes": None} for t, lp in alternatives],
    }


def request_user_message(request: httpx2.Request) -> str:
    """The user message of an OpenAI or Anthropic request."""
    body = json.loads(request.content)
    return str([m for m in body["messages"] if m["role"] == "user"][-1]["content"])


def shown_blocks(request: httpx2.Request) -> list[ResponseBlock]:
    """The response blocks the request showed the judge."""
    return parse_response_blocks(request_user_message(request))


@dataclass
class ScriptedProvider:
    """Answers requests from a script, in order; the last entry repeats. Records requests."""

    script: list[Reply]
    requests: list[httpx2.Request] = field(default_factory=list)
    request_times: list[float] = field(default_factory=list)

    def handle(self, request: httpx2.Request) -> httpx2.Response:
        self.requests.append(request)
        self.request_times.append(time.monotonic())
        reply = self.script[min(len(self.requests), len(self.script)) - 1]
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, httpx2.Response):
            return reply
        return reply(request)

    def transport(self) -> httpx2.MockTransport:
        return httpx2.MockTransport(self.handle)

    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]


@contextmanager
def running_sim_judge(
    knobs: SimKnobs,
    *,
    reasoning: bool = False,
    answer_ids: bool = False,
    azure: bool = False,
    wrap: Callable[[Any], Any] | None = None,
) -> Iterator[str]:
    """A real sim-judge on a free 127.0.0.1 port (`--reasoning` when `reasoning`,
    `--answer-ids` when `answer_ids`, `--azure` when `azure`; its ASGI app passed through
    `wrap` when given); yields its OpenAI base URL (with `azure`, its Azure resource URL: no
    path)."""
    app = create_sim_app(knobs, reasoning=reasoning, answer_ids=answer_ids, azure=azure)
    if wrap is not None:
        app = wrap(app)
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    give_up_at = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > give_up_at or not thread.is_alive():
            raise RuntimeError("sim-judge did not start")
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}" + ("" if azure else "/v1")
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@dataclass
class Sent:
    """One request as it left fairpair."""

    method: str
    path: str
    query: str
    headers: dict[str, str]
    body: dict[str, Any]


class RecordingTransport(httpx2.AsyncBaseTransport):
    """Real HTTP to the server, keeping every request as it was sent."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.sent: list[Sent] = []
        self.statuses: list[int] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread())
        headers = {name.lower(): value for name, value in request.headers.items()}
        path, query = request.url.raw_path.decode().partition("?")[::2]
        self.sent.append(Sent(request.method, path, query, headers, body))
        response = await self.inner.handle_async_request(request)
        self.statuses.append(response.status_code)
        return response

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON bodies sent, in order."""
        return [sent.body for sent in self.sent]

    async def aclose(self) -> None:
        await self.inner.aclose()


PAIR_A, PAIR_B = "Paris.\n[sim q=2]", "Lyon.\n[sim q=-2]"


async def pair_over_http(
    config: JudgeConfig, transport: httpx2.AsyncBaseTransport, deadline: float
) -> PairCallResult:
    """One pair call of a judge built from `config` over `transport` (seeded draws)."""
    judge = build_judge(config, transport=transport)
    try:
        return await judge.judge_pair(
            "Capital of France?", PAIR_A, PAIR_B, deadline=deadline, rng=random.Random(3)
        )
    finally:
        await judge.aclose()
