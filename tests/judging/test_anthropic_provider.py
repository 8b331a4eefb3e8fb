"""The anthropic provider against MockTransport: request shape, stated confidence, retries."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

import httpx2

from app.judging.providers import build_judge
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, PairCallResult
from tests.judging.fakes import ScriptedProvider, anthropic_message, error_response, shown_blocks

Deadline = Callable[[float], float]


def _config(**overrides: Any) -> JudgeConfig:
    fields: dict[str, Any] = {
        "name": "claude-judge",
        "provider": "anthropic",
        "model": "claude-judge",
        "api_key": "sk-ant-secret-0123456789",
        "backoff_base_s": 0.01,
    }
    fields.update(overrides)
    return JudgeConfig(**fields)


async def _judge_pair(
    config: JudgeConfig, provider: ScriptedProvider, deadline: float
) -> PairCallResult:
    judge = build_judge(config, transport=provider.transport())
    try:
        return await judge.judge_pair(
            "Which?", "one", "two", deadline=deadline, rng=random.Random(4)
        )
    finally:
        await judge.aclose()


def _first_shown_wins(request: httpx2.Request) -> httpx2.Response:
    first = shown_blocks(request)[0].label
    return anthropic_message(json.dumps({"winner": first, "confidence": 0.9, "reason": "r"}))


async def test_messages_api_answer_gives_stated_confidence(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([_first_shown_wins])
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.pick, result.confidence, result.confidence_source) == ("first", 0.9, "stated")
    assert result.provider_model == "claude-judge-2026-01-01"
    assert (result.tokens_in, result.tokens_out) == (120, 30)
    body = provider.bodies()[0]
    assert body["system"].startswith("You are an impartial judge")
    assert [m["role"] for m in body["messages"]] == ["user"]
    assert "temperature" not in body
    assert "output_config" not in body
    assert str(provider.requests[0].url).endswith("/v1/messages")


async def test_json_mode_asks_for_the_answer_schema(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([_first_shown_wins])
    await _judge_pair(_config(json_mode=True), provider, deadline_in(10))
    output_format = provider.bodies()[0]["output_config"]["format"]
    assert output_format["type"] == "json_schema"
    assert output_format["schema"]["required"] == ["winner", "confidence", "reason"]


async def test_429_with_retry_after_is_retried_then_succeeds(deadline_in: Deadline) -> None:
    provider = ScriptedProvider(
        [error_response(429, "rate limited", {"retry-after-ms": "30"}), _first_shown_wins]
    )
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.pick, result.retries) == ("first", 1)
    assert provider.request_times[1] - provider.request_times[0] >= 0.025


async def test_overloaded_529_is_retried(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([error_response(529, "Overloaded"), _first_shown_wins])
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.pick, result.retries) == ("first", 1)


async def test_retry_after_beyond_the_deadline_fails_at_once(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([error_response(429, "rate limited", {"Retry-After": "60"})])
    started = time.monotonic()
    result = await _judge_pair(_config(), provider, deadline_in(5))
    assert (result.error_kind, result.retries, len(provider.requests)) == ("rate_limited", 0, 1)
    assert time.monotonic() - started < 3  # far below the 60 s Retry-After


async def test_timeout_becomes_a_failed_call_after_the_configured_attempts(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([httpx2.ReadTimeout("read timed out")])
    result = await _judge_pair(_config(max_attempts=2), provider, deadline_in(10))
    assert (result.ok, result.error_kind, result.retries, len(provider.requests)) == (
        False,
        "timeout",
        1,
        2,
    )


async def test_unparseable_answer_gets_exactly_one_repair_then_fails_unparseable(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([anthropic_message("Response one is lovely.")])
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.error_kind, result.retries, len(provider.requests)) == ("unparseable", 1, 2)
    assert result.raw_output == "Response one is lovely."
    assert "Reminder:" in provider.bodies()[1]["messages"][0]["content"]


async def test_scores_through_the_messages_api(deadline_in: Deadline) -> None:
    def scores(request: httpx2.Request) -> httpx2.Response:
        labels = [b.label for b in shown_blocks(request)]
        return anthropic_message(json.dumps({"scores": dict.fromkeys(labels, 4), "reason": "ok"}))

    judge = build_judge(_config(), transport=httpx2.MockTransport(scores))
    result = await judge.judge_scores("q", ["a", "b"], DEFAULT_RUBRIC, deadline=deadline_in(10))
    await judge.aclose()
    assert result.scores == (4.0, 4.0)
