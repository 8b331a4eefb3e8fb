"""A request cancelled before its answer started (uvicorn's graceful-shutdown timeout) is answered
503 problem+json, and the cancellation still propagates."""

from __future__ import annotations

import asyncio
import json

import pytest
from starlette.types import Message, Receive, Scope, Send

from app.middleware import AnswerCancelledRequests


async def slow_app(scope: Scope, receive: Receive, send: Send) -> None:
    await asyncio.sleep(60)


async def quick_start_then_slow(scope: Scope, receive: Receive, send: Send) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await asyncio.sleep(60)


async def run_and_cancel(app: AnswerCancelledRequests) -> list[Message]:
    sent: list[Message] = []

    async def send(message: Message) -> None:
        sent.append(message)

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    scope: Scope = {"type": "http", "path": "/v1/compare"}
    task = asyncio.create_task(app(scope, receive, send))
    await asyncio.sleep(0.01)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    return sent


async def test_cancelled_request_gets_503_problem_and_stays_cancelled() -> None:
    sent = await run_and_cancel(AnswerCancelledRequests(slow_app))
    start, body = sent
    assert start["status"] == 503
    assert (b"content-type", b"application/problem+json") in start["headers"]
    problem = json.loads(body["body"])
    assert (problem["type"], problem["instance"]) == ("service-unavailable", "/v1/compare")


async def test_an_answer_already_started_is_left_alone() -> None:
    sent = await run_and_cancel(AnswerCancelledRequests(quick_start_then_slow))
    assert [m["status"] for m in sent] == [200]
