"""The provider edge: an answer whose values are not what the API documents is a failed call of
kind `invalid_response`, kept and not retried; a large answer is decoded off the event loop."""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, Provider
from tests.judging.fakes import ScriptedProvider, chat_completion

Deadline = Callable[[float], float]
TIE = '{"winner": "tie", "confidence": 0.5, "reason": "same"}'


def _message(**changes: Any) -> httpx2.Response:
    body: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-judge",
        "content": [{"type": "text", "text": TIE}],
        "usage": {"input_tokens": 12, "output_tokens": 3},
    }
    return httpx2.Response(200, json={**body, **changes})


async def _judge_pair(
    provider: Provider, script: ScriptedProvider, deadline: float
) -> PairCallResult:
    config = JudgeConfig(
        name="j",
        provider=provider,
        model="m",
        api_key="sk-x",
        backoff_base_s=0.01,
    )
    judge = build_judge(config, transport=script.transport())
    try:
        return await judge.judge_pair(
            "Which?", "one", "two", deadline=deadline, rng=random.Random(1)
        )
    finally:
        await judge.aclose()


ANTHROPIC_ANSWERS = {
    "text a list": _message(content=[{"type": "text", "text": ["a"]}]),
    "text holding NUL": _message(content=[{"type": "text", "text": "tie\x00"}]),
    "model of 300 characters": _message(model="m" * 300),
    "tokens negative": _message(usage={"input_tokens": -5, "output_tokens": 3}),
    "tokens as strings": _message(usage={"input_tokens": "12", "output_tokens": 3}),
    "no usage": _message(usage=None),
}


@pytest.mark.parametrize("reply", ANTHROPIC_ANSWERS.values(), ids=ANTHROPIC_ANSWERS.keys())
async def test_an_anthropic_answer_of_unexpected_shape_is_invalid_and_kept(
    reply: httpx2.Response, deadline_in: Deadline
) -> None:
    script = ScriptedProvider([reply])
    result = await _judge_pair("anthropic", script, deadline_in(10))
    assert (result.error_kind, result.retries, result.pick) == ("invalid_response", 0, None)
    assert len(script.requests) == 1
    assert result.raw_output is not None
    assert '"type":"message"' in result.raw_output
    assert "\x00" not in result.raw_output
    assert (result.tokens_in, result.cost_usd, result.provider_model) == (None, None, None)


async def test_a_non_json_answer_stays_a_retried_server_error(deadline_in: Deadline) -> None:
    script = ScriptedProvider([httpx2.Response(200, text="<html>gateway</html>"), _message()])
    result = await _judge_pair("anthropic", script, deadline_in(10))
    assert (result.pick, result.retries, result.error_kind) == ("tie", 1, None)


async def test_integral_float_token_counts_are_counts(deadline_in: Deadline) -> None:
    script = ScriptedProvider([_message(usage={"input_tokens": 12.0, "output_tokens": 3})])
    result = await _judge_pair("anthropic", script, deadline_in(10))
    assert (result.error_kind, result.tokens_in, result.tokens_out) == (None, 12, 3)


async def test_a_provider_error_text_with_nul_is_stored_without_it(deadline_in: Deadline) -> None:
    body = {"error": {"message": "bad\x00request"}}
    script = ScriptedProvider([httpx2.Response(400, json=body)])
    result = await _judge_pair("openai", script, deadline_in(10))
    assert result.error_kind == "bad_request"
    assert result.error is not None
    assert "\x00" not in result.error


async def test_an_answer_over_a_megabyte_is_decoded_off_the_event_loop(
    deadline_in: Deadline, monkeypatch: pytest.MonkeyPatch
) -> None:
    threads: list[str] = []
    original = asyncio.to_thread

    async def to_thread(work: Callable[..., Any], *args: Any) -> Any:
        threads.append(getattr(work, "__name__", ""))
        return await original(work, *args)

    monkeypatch.setattr(asyncio, "to_thread", to_thread)
    padded = json.dumps({"winner": "tie", "confidence": 0.5, "reason": "x" * 1_200_000})
    small = ScriptedProvider([chat_completion(TIE)])
    large = ScriptedProvider([chat_completion(padded)])
    assert (await _judge_pair("openai", small, deadline_in(10))).pick == "tie"
    assert "_read_answer" not in threads
    assert (await _judge_pair("openai", large, deadline_in(10))).pick == "tie"
    assert threads.count("_read_answer") == 1
