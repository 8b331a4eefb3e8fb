"""The openai provider's lean path is the `openai` SDK's wire: same requests, same failures.

JUDGING.md allows a transport wire-compatible with the SDK, tested against the SDK's behaviour.
The reference here is the judge as it called api.openai.com before issue 20: the SDK over an
httpx2 client, its errors mapped as the SDK path mapped them. Each scenario runs through the
reference and through the lean path (against the same scripted answers: MockTransport for whole
judge calls, a real server on loopback for one request's failures); the requests sent and the
recorded results and errors must be equal, timing aside.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import httpx2
import openai
import pytest
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from app.judging.judge import TOP_LOGPROBS, ChatRequest, Completion
from app.judging.providers import build_judge
from app.judging.providers.errors import client_timeout, http_client, status_error, transport_error
from app.judging.providers.openai import OpenAIJudge
from app.judging.retries import ProviderCallError
from app.judging.types import JudgeConfig, TokenLogprob
from tests.judging.fakes import (
    Reply,
    ScriptedProvider,
    chat_completion,
    error_response,
    shown_blocks,
    token,
)
from tests.judging.servers import Answer, RawRequest, answer, scripted_server
from tests.support.processes import free_port

Deadline = Callable[[float], float]
TIMING = ("latency_ms", "started_at", "finished_at")
HOSTS = {"api.openai.com": None, "vllm": "http://vllm.internal:8000/v1"}
# The request headers that matter to a server; the SDK's telemetry headers are not sent.
HEADERS = ("authorization", "content-type", "accept", "openai-organization", "openai-project")


def sdk_error(err: openai.APIError) -> ProviderCallError:
    """How the SDK path mapped the SDK's errors."""
    if isinstance(err, openai.APIStatusError):
        return status_error(err.response.status_code, err.message, err.response.headers)
    if isinstance(err, openai.APIConnectionError):
        return transport_error(isinstance(err, openai.APITimeoutError), err.message)
    return ProviderCallError("server_error", f"invalid response: {err.message}")


def _token_logprobs(response: ChatCompletion) -> tuple[TokenLogprob, ...] | None:
    logprobs = response.choices[0].logprobs if response.choices else None
    if logprobs is None or not logprobs.content:
        return None
    return tuple(
        TokenLogprob(
            token=item.token,
            logprob=item.logprob,
            top=tuple((alt.token, alt.logprob) for alt in item.top_logprobs or ()),
        )
        for item in logprobs.content
    )


def _or_omit(value: Any) -> Any:
    return openai.omit if value is None else value


class SdkOpenAIJudge(OpenAIJudge):
    """The reference: the same judge calling through the `openai` SDK and its models."""

    def __init__(self, config: JudgeConfig, transport: httpx2.AsyncBaseTransport | None) -> None:
        super().__init__(config, transport=transport)
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key or "no-key",
            http_client=http_client(transport, config.timeout_s, config.max_concurrency),
            max_retries=0,
        )

    async def aclose(self) -> None:
        await self._client.close()
        await super().aclose()

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ]
        reasoning = self.config.is_reasoning
        try:
            response = await self._client.chat.completions.create(
                model=self.config.model,
                messages=messages,
                temperature=openai.omit if reasoning else self.config.temperature,
                response_format=(
                    {"type": "json_object"} if self.config.use_json_mode else openai.omit
                ),
                logprobs=True if request.want_logprobs else openai.omit,
                top_logprobs=TOP_LOGPROBS if request.want_logprobs else openai.omit,
                max_completion_tokens=_or_omit(self.config.max_completion_tokens),
                reasoning_effort=_or_omit(self.config.reasoning_effort),
                timeout=client_timeout(timeout_s),
            )
        except openai.APIError as err:
            raise sdk_error(err) from err
        text = response.choices[0].message.content if response.choices else None
        usage = response.usage
        return Completion(
            text=text or "",
            provider_model=response.model,
            tokens_in=usage.prompt_tokens if usage else None,
            tokens_out=usage.completion_tokens if usage else None,
            logprobs=_token_logprobs(response),
            reasoning_tokens=_reasoning_tokens(usage),
        )


def _reasoning_tokens(usage: Any) -> int | None:
    """The SDK's `usage.completion_tokens_details.reasoning_tokens`, when it is there."""
    details = usage.completion_tokens_details if usage else None
    return details.reasoning_tokens if details else None


def _judge(path: str, config: JudgeConfig, transport: httpx2.AsyncBaseTransport | None) -> Any:
    return (
        SdkOpenAIJudge(config, transport)
        if path == "sdk"
        else build_judge(config, transport=transport)
    )


def _config(base_url: str | None, **overrides: Any) -> JudgeConfig:
    fields: dict[str, Any] = {
        "name": "judge-1",
        "provider": "openai",
        "model": "gpt-judge",
        "base_url": base_url,
        "api_key": "sk-test-secret-0123456789",
        "backoff_base_s": 0.01,
        "price_in_per_mtok": 2.0,
        "price_out_per_mtok": 8.0,
        "json_mode": False,
        "logprobs": False,
    }
    return JudgeConfig(**{**fields, **overrides})


def _second_stated(request: httpx2.Request) -> httpx2.Response:
    second = shown_blocks(request)[1].label
    return chat_completion(json.dumps({"winner": second, "confidence": 0.65, "reason": "r"}))


def _first_with_logprobs(request: httpx2.Request) -> httpx2.Response:
    first, second = (b.label for b in shown_blocks(request))
    alternatives = [(first, -0.3), (second, -1.4), ("tie", -3.0)]
    tokens = [token('{"winner": "'), token(first, -0.3, alternatives), token('"}')]
    return chat_completion("".join(t["token"] for t in tokens), logprobs=tokens)


def _second_after_reasoning(request: httpx2.Request) -> httpx2.Response:
    """A reasoning model's answer: usage says how many of its output tokens were reasoning."""
    response = _second_stated(request)
    body = response.json()
    body["usage"]["completion_tokens"] = 420
    body["usage"]["completion_tokens_details"] = {"reasoning_tokens": 400}
    return httpx2.Response(200, json=body)


SCENARIOS: dict[str, tuple[list[Reply], dict[str, Any]]] = {
    "stated answer": ([_second_stated], {}),
    "reasoning tokens": ([_second_after_reasoning], {"reasoning_effort": "low"}),
    "logprobs and json mode": ([_first_with_logprobs], {"json_mode": True, "logprobs": True}),
    "429 then answer": (
        [error_response(429, "slow down", {"retry-after-ms": "10"}), _second_stated],
        {},
    ),
    "transient failures then answer": (
        [
            error_response(500, "boom"),
            httpx2.ConnectError("refused"),
            error_response(502, "bad gateway"),
            _second_stated,
        ],
        {},
    ),
    "timeouts until the attempts run out": (
        [httpx2.ReadTimeout("read timed out")],
        {"max_attempts": 3},
    ),
    "refused until the attempts run out": (
        [httpx2.ConnectError("refused")],
        {"max_attempts": 2},
    ),
    "unsupported parameter": ([error_response(400, "response_format is not supported")], {}),
    "bad key": ([error_response(401, "invalid key sk-live-0123456789abcdef")], {}),
    "error body without a message": ([httpx2.Response(503, text="busy")], {"max_attempts": 1}),
    "unparseable then repaired": (
        [chat_completion("I like the second one."), _second_stated],
        {},
    ),
    "no choices": ([httpx2.Response(200, json={"model": "m", "choices": []})], {}),
    # Issue 39: OpenAI's reasoning models, asked with neither temperature nor logprobs.
    "reasoning judge with effort and budget": (
        [_second_stated],
        {"reasoning_effort": "low", "max_completion_tokens": 4000, "json_mode": True},
    ),
    "reasoning judge, its model's own effort": ([_second_stated], {"reasoning": True}),
}


async def _run(
    path: str, base_url: str | None, script: list[Reply], overrides: dict[str, Any], deadline: float
) -> Any:
    provider = ScriptedProvider(list(script))
    judge = _judge(path, _config(base_url, **overrides), provider.transport())
    try:
        result = await judge.judge_pair(
            "Which is better?", "one", "two", deadline=deadline, rng=random.Random(3)
        )
    finally:
        await judge.aclose()
    recorded = {k: v for k, v in asdict(result).items() if k not in TIMING}
    sent = [
        (
            r.method,
            r.url.path,
            {name: r.headers[name] for name in HEADERS if name in r.headers},
            json.loads(r.content),
        )
        for r in provider.requests
    ]
    return recorded, sent


@pytest.mark.parametrize("host", list(HOSTS))
@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_sdk_and_lean_paths_send_and_record_the_same(
    scenario: str, host: str, deadline_in: Deadline
) -> None:
    script, overrides = SCENARIOS[scenario]
    sdk = await _run("sdk", HOSTS[host], script, overrides, deadline_in(10))
    lean = await _run("lean", HOSTS[host], script, overrides, deadline_in(10))
    assert lean == sdk


async def test_organization_and_project_from_the_environment_go_to_api_openai_com(
    monkeypatch: pytest.MonkeyPatch, deadline_in: Deadline
) -> None:
    monkeypatch.setenv("OPENAI_ORG_ID", "org-123")
    monkeypatch.setenv("OPENAI_PROJECT_ID", "proj-456")
    script: list[Reply] = [_second_stated]
    sdk = await _run("sdk", None, script, {}, deadline_in(10))
    lean = await _run("lean", None, script, {}, deadline_in(10))
    assert lean == sdk
    assert lean[1][0][2]["openai-organization"] == "org-123"
    assert lean[1][0][2]["openai-project"] == "proj-456"


REQUEST = ChatRequest("You judge.", "Which is better?", "pair", want_logprobs=False)


def _error_body(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error", "code": None}}


FAILURES: dict[str, Answer] = {
    "400": answer(400, _error_body("messages: too long")),
    "400 unsupported parameter": answer(
        400, _error_body("Unrecognized request argument supplied: logprobs")
    ),
    "401": answer(401, _error_body("Incorrect API key provided: sk-test***")),
    "404": answer(404, _error_body("The model `gpt-judge` does not exist")),
    "429 Retry-After": answer(429, _error_body("Rate limit reached"), {"Retry-After": "7"}),
    "429 retry-after-ms": answer(429, _error_body("slow down"), {"retry-after-ms": "150"}),
    "500": answer(500, _error_body("The server had an error")),
    "503 Retry-After": answer(503, {"error": {"message": ""}}, {"Retry-After": "3"}),
    "529": answer(
        529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    ),
    "non-JSON error body": answer(502, "<html>Bad Gateway</html>", {"Content-Type": "text/html"}),
    "empty error body": answer(500, b""),
    "JSON without a message": answer(422, {"detail": [{"loc": ["body"], "msg": "bad"}]}),
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


async def _sent(server_requests: list[RawRequest]) -> list[tuple[Any, ...]]:
    return [
        (r.method, r.path, {h: r.headers[h] for h in HEADERS if h in r.headers}, r.json())
        for r in server_requests
    ]


@pytest.mark.parametrize("failure", list(FAILURES))
async def test_failures_over_real_sockets_are_the_sdks(failure: str) -> None:
    async with scripted_server([FAILURES[failure]]) as server:
        sdk = await _failure("sdk", server.base_url)
        lean = await _failure("lean", server.base_url)
        sent = await _sent(server.requests)
    assert lean == sdk
    assert sent[1] == sent[0]


async def test_a_refused_connection_fails_as_through_the_sdk() -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    assert await _failure("lean", url) == await _failure("sdk", url)
    assert await _failure("lean", url) == ("connection", "Connection error.", None)


async def test_lean_path_takes_a_non_json_answer_as_a_retried_server_error(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([httpx2.Response(200, text="<html>gateway</html>"), _second_stated])
    config = JudgeConfig(
        name="judge-1",
        provider="openai",
        model="m",
        base_url=HOSTS["vllm"],
        backoff_base_s=0.01,
    )
    judge = build_judge(config, transport=provider.transport())
    try:
        result = await judge.judge_pair("q", "one", "two", deadline=deadline_in(10))
    finally:
        await judge.aclose()
    assert (result.pick, result.retries) == ("second", 1)
    assert provider.requests[0].headers["authorization"] == "Bearer no-key"
