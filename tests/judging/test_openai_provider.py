"""The openai provider against MockTransport: confidence sources, retries, repair, errors."""

from __future__ import annotations

import asyncio
import json
import math
import random
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import httpx2

from app.judging.providers import build_judge
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, PairCallResult
from tests.judging.fakes import (
    ScriptedProvider,
    chat_completion,
    error_response,
    shown_blocks,
    token,
)

Deadline = Callable[[float], float]


def _config(**overrides: Any) -> JudgeConfig:
    fields: dict[str, Any] = {
        "name": "judge-1",
        "provider": "openai",
        "model": "gpt-judge",
        "api_key": "sk-test-secret-0123456789",
        "backoff_base_s": 0.01,
        "price_in_per_mtok": 2.0,
        "price_out_per_mtok": 8.0,
    }
    fields.update(overrides)
    return JudgeConfig(**fields)


async def _judge_pair(
    config: JudgeConfig, provider: ScriptedProvider, deadline: float, seed: int = 1
) -> PairCallResult:
    judge = build_judge(config, transport=provider.transport())
    try:
        return await judge.judge_pair(
            "Which is better?",
            "answer one",
            "answer two",
            deadline=deadline,
            rng=random.Random(seed),
        )
    finally:
        await judge.aclose()


def _answer_first_shown_with_split_logprobs(request: httpx2.Request) -> httpx2.Response:
    first, second = (b.label for b in shown_blocks(request))
    alternatives = [(first[0], -0.2), (second[0], -1.6), ("t", -3.0)]
    tokens = [token('{"'), token("winner"), token('":'), token(' "')]
    tokens += [token(first[0], -0.2, alternatives), token(first[1:]), token('",')]
    tokens += [token(' "confidence": 0.99}')]
    content = "".join(t["token"] for t in tokens)
    return chat_completion(content, logprobs=tokens)


async def test_logprob_answer_gives_the_rule_probability_for_a_label_split_across_tokens(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([_answer_first_shown_with_split_logprobs])
    config = _config(label_pool=(("KM", "RS"),))
    result = await _judge_pair(config, provider, deadline_in(10))
    p_first, p_second, p_tie = math.exp(-0.2), math.exp(-1.6), math.exp(-3.0)
    assert result.pick == "first"
    assert result.confidence_source == "logprobs"
    assert result.confidence == p_first / (p_first + p_second + p_tie)
    assert result.label_pair == "KM/RS"
    body = provider.bodies()[0]
    assert body["logprobs"] is True
    assert body["top_logprobs"] == 20
    assert body["response_format"] == {"type": "json_object"}
    assert body["temperature"] == 0.0


def _answer_second_shown_without_tie_logprob(request: httpx2.Request) -> httpx2.Response:
    first, second = (b.label for b in shown_blocks(request))
    alternatives = [(second, -0.4), (first, -1.2)]
    tokens = [token('{"winner": "'), token(second, -0.4, alternatives), token('"}')]
    return chat_completion("".join(t["token"] for t in tokens), logprobs=tokens)


async def test_logprob_answer_with_a_candidate_missing_from_top_logprobs(
    deadline_in: Deadline,
) -> None:
    result = await _judge_pair(
        _config(), ScriptedProvider([_answer_second_shown_without_tie_logprob]), deadline_in(10)
    )
    assert result.pick == "second"
    assert result.confidence_source == "logprobs"
    assert result.confidence == math.exp(-0.4) / (math.exp(-0.4) + math.exp(-1.2))


def _answer_second_shown_stated(request: httpx2.Request) -> httpx2.Response:
    second = shown_blocks(request)[1].label
    return chat_completion(json.dumps({"winner": second, "confidence": 0.65, "reason": "r"}))


async def test_stated_confidence_when_logprobs_are_off_for_other_hosts(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([_answer_second_shown_stated])
    result = await _judge_pair(
        _config(base_url="http://vllm.internal:8000/v1"), provider, deadline_in(10)
    )
    assert (result.pick, result.confidence, result.confidence_source) == ("second", 0.65, "stated")
    body = provider.bodies()[0]
    assert "logprobs" not in body
    assert "response_format" not in body
    assert str(provider.requests[0].url) == "http://vllm.internal:8000/v1/chat/completions"


async def test_usage_cost_model_and_record_fields_are_filled(deadline_in: Deadline) -> None:
    result = await _judge_pair(
        _config(), ScriptedProvider([_answer_second_shown_stated]), deadline_in(10)
    )
    assert result.ok
    assert result.provider_model == "gpt-judge-2026-01-01"
    assert (result.tokens_in, result.tokens_out) == (100, 20)
    assert result.cost_usd == (100 * 2.0 + 20 * 8.0) / 1e6
    assert result.retries == 0
    assert result.error_kind is None
    assert result.started_at <= result.finished_at
    assert result.started_at.tzinfo is UTC
    assert len(result.nonces) == 2
    assert len(result.template_hash) == 64


async def test_429_with_retry_after_is_retried_then_succeeds(deadline_in: Deadline) -> None:
    provider = ScriptedProvider(
        [error_response(429, "slow down", {"Retry-After": "1"}), _answer_second_shown_stated]
    )
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert result.pick == "second"
    assert result.retries == 1
    assert provider.request_times[1] - provider.request_times[0] >= 0.95


async def test_retry_after_ms_and_http_date_are_honoured(deadline_in: Deadline) -> None:
    soon = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    provider = ScriptedProvider(
        [
            error_response(429, "slow down", {"retry-after-ms": "40", "Retry-After": "30"}),
            error_response(503, "busy", {"Retry-After": soon}),
            _answer_second_shown_stated,
        ]
    )
    started = time.monotonic()
    result = await _judge_pair(_config(), provider, deadline_in(5))
    assert provider.request_times[1] - provider.request_times[0] >= 0.035
    assert result.error_kind == "rate_limited"
    assert result.retries == 1
    assert time.monotonic() - started < 3  # far below the 30 s Retry-After date


async def test_retry_after_beyond_the_deadline_fails_at_once(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([error_response(429, "slow down", {"Retry-After": "30"})])
    started = time.monotonic()
    result = await _judge_pair(_config(), provider, deadline_in(5))
    assert (result.pick, result.error_kind, result.retries) == (None, "rate_limited", 0)
    assert len(provider.requests) == 1
    assert time.monotonic() - started < 3  # far below the 30 s Retry-After


async def test_timeout_becomes_a_failed_call_after_the_configured_attempts(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([httpx2.ReadTimeout("read timed out")])
    result = await _judge_pair(_config(max_attempts=3), provider, deadline_in(10))
    assert (result.ok, result.error_kind, result.retries) == (False, "timeout", 2)
    assert len(provider.requests) == 3


async def test_server_errors_and_connection_errors_are_retried(deadline_in: Deadline) -> None:
    provider = ScriptedProvider(
        [
            error_response(500, "boom"),
            httpx2.ConnectError("refused"),
            error_response(502, "bad gateway"),
            _answer_second_shown_stated,
        ]
    )
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.pick, result.retries) == ("second", 3)


async def test_call_still_running_at_the_deadline_fails_with_deadline(
    deadline_in: Deadline,
) -> None:
    async def slow(request: httpx2.Request) -> httpx2.Response:
        await asyncio.sleep(5)
        return _answer_second_shown_stated(request)

    judge = build_judge(_config(), transport=httpx2.MockTransport(slow))
    started = time.monotonic()
    result = await judge.judge_pair("q", "a", "b", deadline=deadline_in(0.3))
    await judge.aclose()
    assert (result.ok, result.error_kind) == (False, "deadline")
    assert time.monotonic() - started < 2  # the handler would take 5 s


def _unparseable(request: httpx2.Request) -> httpx2.Response:
    return chat_completion("I find both answers equally charming.")


async def test_unparseable_answer_gets_exactly_one_repair_then_fails_unparseable(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([_unparseable])
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.pick, result.error_kind, result.retries) == (None, "unparseable", 1)
    assert result.raw_output == "I find both answers equally charming."
    assert len(provider.requests) == 2
    first_user, repair_user = (m["messages"][1]["content"] for m in provider.bodies())
    assert repair_user.startswith(first_user)
    assert "Reminder: answer with exactly one JSON object" in repair_user[len(first_user) :]
    assert (result.tokens_in, result.tokens_out) == (200, 40)


async def test_repair_request_that_parses_gives_a_normal_pick(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([_unparseable, _answer_second_shown_stated])
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.pick, result.error_kind, result.retries) == ("second", None, 1)


async def test_400_naming_an_unsupported_parameter_is_not_retried(deadline_in: Deadline) -> None:
    provider = ScriptedProvider(
        [error_response(400, "'logprobs' is not supported with this model.")]
    )
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.error_kind, result.retries, len(provider.requests)) == (
        "unsupported_parameter",
        0,
        1,
    )


async def test_auth_failure_is_not_retried_and_the_error_holds_no_secret(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider(
        [error_response(401, "Incorrect API key provided: sk-test-secret-0123456789")]
    )
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.error_kind, len(provider.requests)) == ("auth", 1)
    assert result.error is not None
    assert "sk-test-secret" not in result.error
    assert provider.requests[0].headers["authorization"] == "Bearer sk-test-secret-0123456789"


async def test_other_4xx_is_a_bad_request_without_retry(deadline_in: Deadline) -> None:
    provider = ScriptedProvider([error_response(404, "model not found")])
    result = await _judge_pair(_config(), provider, deadline_in(10))
    assert (result.error_kind, len(provider.requests)) == ("bad_request", 1)


async def test_concurrency_per_judge_is_capped(deadline_in: Deadline) -> None:
    in_flight, peak = 0, 0

    async def counting(request: httpx2.Request) -> httpx2.Response:
        nonlocal in_flight, peak
        in_flight += 1
        peak = max(peak, in_flight)
        await asyncio.sleep(0.02)
        in_flight -= 1
        return _answer_second_shown_stated(request)

    judge = build_judge(_config(max_concurrency=2), transport=httpx2.MockTransport(counting))
    results = await asyncio.gather(
        *(judge.judge_pair("q", "a", "b", deadline=deadline_in(10)) for _ in range(8))
    )
    await judge.aclose()
    assert all(r.ok for r in results)
    assert peak == 2


async def test_scoring_call_returns_scores_in_shown_order(deadline_in: Deadline) -> None:
    def score_by_text(request: httpx2.Request) -> httpx2.Response:
        scores = {b.label: len(b.text) for b in shown_blocks(request)}
        return chat_completion(json.dumps({"scores": scores, "reason": "r"}))

    judge = build_judge(_config(), transport=httpx2.MockTransport(score_by_text))
    result = await judge.judge_scores(
        "q", ["xx", "xxxx", "x"], DEFAULT_RUBRIC, deadline=deadline_in(10)
    )
    await judge.aclose()
    assert result.scores == (2.0, 4.0, 1.0)
    assert len(result.labels) == 3
    assert len(result.nonces) == 3
