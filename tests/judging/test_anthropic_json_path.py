"""The anthropic provider's lean path is the `anthropic` SDK's wire: same requests, same failures.

The reference is the judge as it called the Messages API before issue 20: the SDK over an httpx2
client, its errors mapped as that path mapped them. Each scenario runs through the reference and
through the lean path against the same scripted answers (MockTransport for whole judge calls, a
real server on loopback for one request's failures); requests, results and errors must be equal.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import anthropic
import httpx2
import pytest
from anthropic import Omit
from anthropic.types import OutputConfigParam

from app.judging.judge import ChatRequest, Completion
from app.judging.providers import build_judge
from app.judging.providers.anthropic import API_VERSION, AnthropicJudge, answer_schema
from app.judging.providers.errors import client_timeout, http_client, status_error, transport_error
from app.judging.retries import ProviderCallError
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig
from tests.judging.fakes import (
    Reply,
    ScriptedProvider,
    anthropic_message,
    error_response,
    shown_blocks,
)
from tests.judging.servers import Answer, RawRequest, answer, scripted_server
from tests.support.processes import free_port

Deadline = Callable[[float], float]
TIMING = ("latency_ms", "started_at", "finished_at")
HEADERS = ("authorization", "x-api-key", "anthropic-version", "content-type", "accept")


def sdk_error(err: anthropic.APIError) -> ProviderCallError:
    """How the SDK path mapped the SDK's errors."""
    if isinstance(err, anthropic.APIStatusError):
        return status_error(err.response.status_code, err.message, err.response.headers)
    if isinstance(err, anthropic.APIConnectionError):
        return transport_error(isinstance(err, anthropic.APITimeoutError), err.message)
    return ProviderCallError("server_error", f"invalid response: {err.message}")


class SdkAnthropicJudge(AnthropicJudge):
    """The reference: the same judge calling through the `anthropic` SDK and its models."""

    def __init__(self, config: JudgeConfig, transport: httpx2.AsyncBaseTransport | None) -> None:
        super().__init__(config, transport=transport)
        self._client = anthropic.AsyncAnthropic(
            base_url=config.base_url,
            api_key=config.api_key or "no-key",
            http_client=http_client(transport, config.timeout_s, config.max_concurrency),
            max_retries=0,
        )

    async def aclose(self) -> None:
        await self._client.close()
        await super().aclose()

    def _output_config(self, request: ChatRequest) -> OutputConfigParam | Omit:
        if not self.config.use_json_mode:
            return anthropic.omit
        schema = answer_schema(request.answer_kind)
        return {"format": {"type": "json_schema", "schema": schema}}

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        budget = self.config.thinking_budget_tokens
        thinking: Any = (
            {"type": "enabled", "budget_tokens": budget} if budget else anthropic.NOT_GIVEN
        )
        try:
            message = await self._client.messages.create(
                model=self.config.model,
                max_tokens=self.config.max_tokens + (budget or 0),
                system=request.system,
                messages=[{"role": "user", "content": request.user}],
                output_config=self._output_config(request),
                thinking=thinking,
                timeout=client_timeout(timeout_s),
            )
        except anthropic.APIError as err:
            raise sdk_error(err) from err
        thoughts = [block.thinking for block in message.content if block.type == "thinking"]
        return Completion(
            text="".join(block.text for block in message.content if block.type == "text"),
            provider_model=message.model,
            tokens_in=message.usage.input_tokens,
            tokens_out=message.usage.output_tokens,
            thinking="\n".join(thoughts) if thoughts else None,
        )


def _judge(path: str, config: JudgeConfig, transport: httpx2.AsyncBaseTransport | None) -> Any:
    if path == "sdk":
        return SdkAnthropicJudge(config, transport)
    return build_judge(config, transport=transport)


def _config(base_url: str | None = None, **overrides: Any) -> JudgeConfig:
    fields: dict[str, Any] = {
        "name": "claude-judge",
        "provider": "anthropic",
        "model": "claude-judge",
        "base_url": base_url,
        "api_key": "sk-ant-secret-0123456789",
        "backoff_base_s": 0.01,
        "max_tokens": 700,
    }
    return JudgeConfig(**{**fields, **overrides})


def _first_shown_wins(request: httpx2.Request) -> httpx2.Response:
    first = shown_blocks(request)[0].label
    return anthropic_message(json.dumps({"winner": first, "confidence": 0.9, "reason": "r"}))


def _two_blocks(request: httpx2.Request) -> httpx2.Response:
    response = _first_shown_wins(request)
    body = response.json()
    body["content"] = [
        {"type": "thinking", "thinking": "hmm", "signature": "s"},
        *body["content"],
        {"type": "text", "text": " "},
    ]
    return httpx2.Response(200, json=body)


SCENARIOS: dict[str, tuple[list[Reply], dict[str, Any]]] = {
    "stated answer": ([_first_shown_wins], {}),
    "json mode": ([_first_shown_wins], {"json_mode": True}),
    "text blocks joined, others skipped": ([_two_blocks], {}),
    "thinking on: its blocks kept apart": ([_two_blocks], {"thinking_budget_tokens": 2048}),
    "429 then answer": (
        [error_response(429, "rate limited", {"retry-after-ms": "10"}), _first_shown_wins],
        {},
    ),
    "overloaded then answer": ([error_response(529, "Overloaded"), _first_shown_wins], {}),
    "timeouts until the attempts run out": ([httpx2.ReadTimeout("slow")], {"max_attempts": 2}),
    "refused until the attempts run out": ([httpx2.ConnectError("no")], {"max_attempts": 2}),
    "unparseable then repaired": ([anthropic_message("One."), _first_shown_wins], {}),
    "bad key": ([error_response(401, "invalid x-api-key")], {}),
}


def _headers(headers: Any) -> dict[str, str]:
    return {name: headers[name] for name in HEADERS if name in headers}


async def _run(path: str, script: list[Reply], overrides: dict[str, Any], deadline: float) -> Any:
    provider = ScriptedProvider(list(script))
    judge = _judge(path, _config(**overrides), provider.transport())
    try:
        result = await judge.judge_pair(
            "Which?", "one", "two", deadline=deadline, rng=random.Random(4)
        )
    finally:
        await judge.aclose()
    recorded = {k: v for k, v in asdict(result).items() if k not in TIMING}
    sent = [
        (r.method, str(r.url), _headers(r.headers), json.loads(r.content))
        for r in provider.requests
    ]
    return recorded, sent


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_sdk_and_lean_paths_send_and_record_the_same(
    scenario: str, deadline_in: Deadline
) -> None:
    script, overrides = SCENARIOS[scenario]
    sdk = await _run("sdk", script, overrides, deadline_in(10))
    lean = await _run("lean", script, overrides, deadline_in(10))
    assert lean == sdk
    assert lean[1][0][2]["anthropic-version"] == API_VERSION


async def test_scores_are_asked_and_read_as_through_the_sdk(deadline_in: Deadline) -> None:
    def scores(request: httpx2.Request) -> httpx2.Response:
        labels = [b.label for b in shown_blocks(request)]
        return anthropic_message(json.dumps({"scores": dict.fromkeys(labels, 4), "reason": "ok"}))

    results = []
    for path in ("sdk", "lean"):
        provider = ScriptedProvider([scores])
        judge = _judge(path, _config(json_mode=True), provider.transport())
        result = await judge.judge_scores(
            "q", ["a", "b"], DEFAULT_RUBRIC, deadline=deadline_in(9), rng=random.Random(5)
        )
        await judge.aclose()
        recorded = {k: v for k, v in asdict(result).items() if k not in TIMING}
        results.append((recorded, provider.bodies()))
    assert results[1] == results[0]


REQUEST = ChatRequest("You judge.", "Which is better?", "pair", want_logprobs=False)


def _error(kind: str, message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}


FAILURES: dict[str, Answer] = {
    "400": answer(400, _error("invalid_request_error", "max_tokens: too large")),
    "400 unsupported parameter": answer(
        400, _error("invalid_request_error", "temperature: Extra inputs are not permitted")
    ),
    "401": answer(401, _error("authentication_error", "invalid x-api-key")),
    "404": answer(404, _error("not_found_error", "model: claude-judge")),
    "429 Retry-After": answer(429, _error("rate_limit_error", "slow"), {"Retry-After": "7"}),
    "429 retry-after-ms": answer(429, _error("rate_limit_error", "slow"), {"retry-after-ms": "80"}),
    "500": answer(500, _error("api_error", "Internal server error")),
    "503": answer(503, _error("api_error", "unavailable"), {"Retry-After": "2"}),
    "529 overloaded": answer(529, _error("overloaded_error", "Overloaded")),
    "non-JSON error body": answer(
        502, "  <html>Bad Gateway</html>\n", {"Content-Type": "text/html"}
    ),
    "empty error body": answer(500, b""),
    "timeout": answer(200, {}, delay_s=2),
}


async def _failure(path: str, base_url: str, timeout_s: float = 0.5) -> tuple[Any, ...]:
    judge = _judge(path, _config(base_url), None)
    try:
        with pytest.raises(ProviderCallError) as failed:
            await judge._complete(REQUEST, timeout_s)
    finally:
        await judge.aclose()
    return failed.value.kind, failed.value.message, failed.value.retry_after_s


def _sent(requests: list[RawRequest]) -> list[tuple[Any, ...]]:
    return [(r.method, r.path, _headers(r.headers), r.json()) for r in requests]


@pytest.mark.parametrize("failure", list(FAILURES))
async def test_failures_over_real_sockets_are_the_sdks(failure: str) -> None:
    async with scripted_server([FAILURES[failure]]) as server:
        base_url = f"http://127.0.0.1:{server.port}"
        sdk = await _failure("sdk", base_url)
        lean = await _failure("lean", base_url)
    assert lean == sdk
    first, second = _sent(server.requests)
    assert second == first
    assert first[1] == "/v1/messages"


async def test_a_refused_connection_fails_as_through_the_sdk() -> None:
    url = f"http://127.0.0.1:{free_port()}"
    assert await _failure("lean", url) == await _failure("sdk", url)
    assert await _failure("lean", url) == ("connection", "Connection error.", None)
