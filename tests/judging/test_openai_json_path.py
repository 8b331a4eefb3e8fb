"""The openai provider's two paths (SDK for api.openai.com, plain JSON elsewhere) are one judge.

Each scenario runs once through the SDK and once through the JSON path against the same scripted
answers; the requests sent and the recorded results must be equal, timing aside.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

import httpx2
import pytest

from app.judging.providers import build_judge
from app.judging.types import JudgeConfig
from tests.judging.fakes import (
    Reply,
    ScriptedProvider,
    chat_completion,
    error_response,
    shown_blocks,
    token,
)

Deadline = Callable[[float], float]
TIMING = ("latency_ms", "started_at", "finished_at")
PATHS = {"sdk": None, "json": "http://vllm.internal:8000/v1"}


def _second_stated(request: httpx2.Request) -> httpx2.Response:
    second = shown_blocks(request)[1].label
    return chat_completion(json.dumps({"winner": second, "confidence": 0.65, "reason": "r"}))


def _first_with_logprobs(request: httpx2.Request) -> httpx2.Response:
    first, second = (b.label for b in shown_blocks(request))
    alternatives = [(first, -0.3), (second, -1.4), ("tie", -3.0)]
    tokens = [token('{"winner": "'), token(first, -0.3, alternatives), token('"}')]
    return chat_completion("".join(t["token"] for t in tokens), logprobs=tokens)


SCENARIOS: dict[str, tuple[list[Reply], dict[str, Any]]] = {
    "stated answer": ([_second_stated], {}),
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
}


async def _run(path: str, script: list[Reply], overrides: dict[str, Any], deadline: float) -> Any:
    provider = ScriptedProvider(list(script))
    config = JudgeConfig(
        name="judge-1",
        provider="openai",
        model="gpt-judge",
        base_url=PATHS[path],
        api_key="sk-test-secret-0123456789",
        backoff_base_s=0.01,
        price_in_per_mtok=2.0,
        price_out_per_mtok=8.0,
        **{"json_mode": False, "logprobs": False, **overrides},
    )
    judge = build_judge(config, transport=provider.transport())
    try:
        result = await judge.judge_pair(
            "Which is better?", "one", "two", deadline=deadline, rng=random.Random(3)
        )
    finally:
        await judge.aclose()
    recorded = {k: v for k, v in asdict(result).items() if k not in TIMING}
    sent = [
        (r.method, r.url.path, r.headers["authorization"], json.loads(r.content))
        for r in provider.requests
    ]
    return recorded, sent


@pytest.mark.parametrize("scenario", list(SCENARIOS))
async def test_sdk_and_json_paths_send_and_record_the_same(
    scenario: str, deadline_in: Deadline
) -> None:
    script, overrides = SCENARIOS[scenario]
    sdk = await _run("sdk", script, overrides, deadline_in(10))
    plain = await _run("json", script, overrides, deadline_in(10))
    assert plain == sdk


async def test_json_path_takes_a_non_json_answer_as_a_retried_server_error(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([httpx2.Response(200, text="<html>gateway</html>"), _second_stated])
    config = JudgeConfig(
        name="judge-1",
        provider="openai",
        model="m",
        base_url=PATHS["json"],
        backoff_base_s=0.01,
    )
    judge = build_judge(config, transport=provider.transport())
    try:
        result = await judge.judge_pair("q", "one", "two", deadline=deadline_in(10))
    finally:
        await judge.aclose()
    assert (result.pick, result.retries) == ("second", 1)
    assert provider.requests[0].headers["authorization"] == "Bearer no-key"
