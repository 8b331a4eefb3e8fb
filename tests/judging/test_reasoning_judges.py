"""Issue 39: OpenAI reasoning models as judges. Their requests carry no `temperature`, no
logprobs and no `max_tokens`, but `max_completion_tokens` and `reasoning_effort`; the bodies are
caught at the transport and sent over real HTTP to `fairpair sim-judge --reasoning`, which
refuses what OpenAI's reasoning models refuse."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from app.judging.types import JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash
from app.simjudge.server import SIM_REASONING_TOKENS, reasoning_refusal
from tests.judging.fakes import (
    RecordingTransport,
    ScriptedProvider,
    chat_completion,
    pair_over_http,
    running_sim_judge,
    shown_blocks,
)

Deadline = Callable[[float], float]
REFUSED = {"temperature", "logprobs", "top_logprobs", "max_tokens"}


@pytest.fixture(scope="module")
def reasoning_sim_url() -> Iterator[str]:
    with running_sim_judge(SimKnobs(), reasoning=True) as url:
        yield url


def _config(**fields: Any) -> JudgeConfig:
    values: dict[str, Any] = {"name": "o4-mini", "provider": "openai", "model": "o4-mini"}
    return JudgeConfig(**{**values, "backoff_base_s": 0.01, **fields})


async def test_a_reasoning_judge_on_api_openai_com_sends_effort_and_budget_and_no_logprobs(
    deadline_in: Deadline,
) -> None:
    # api.openai.com turns logprobs on by default; a reasoning judge must not ask for them.
    answer = '{"winner": "%s", "confidence": 0.8, "reason": "right"}'
    provider = ScriptedProvider([lambda r: chat_completion(answer % _first_label(r))])
    config = _config(reasoning_effort="low", max_completion_tokens=4000)
    result = await pair_over_http(config, provider.transport(), deadline_in(10))
    [body] = provider.bodies()
    assert set(body) == {
        "messages", "model", "response_format", "max_completion_tokens", "reasoning_effort"
    }  # fmt: skip
    assert (body["model"], body["max_completion_tokens"], body["reasoning_effort"]) == (
        "o4-mini", 4000, "low"
    )  # fmt: skip
    assert body["response_format"] == {"type": "json_object"}
    assert (result.pick, result.confidence, result.confidence_source) == ("first", 0.8, "stated")


def _first_label(request: httpx2.Request) -> str:
    return shown_blocks(request)[0].label


async def test_reasoning_true_without_an_effort_sends_neither_effort_nor_budget(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([chat_completion('{"winner": "tie", "confidence": 0.5}')])
    await pair_over_http(_config(reasoning=True), provider.transport(), deadline_in(10))
    assert set(provider.bodies()[0]) == {"messages", "model", "response_format"}


async def test_a_judge_that_is_not_reasoning_sends_what_it_always_sent(
    deadline_in: Deadline,
) -> None:
    provider = ScriptedProvider([chat_completion('{"winner": "tie", "confidence": 0.5}')])
    await pair_over_http(_config(model="gpt-4o"), provider.transport(), deadline_in(10))
    [body] = provider.bodies()
    assert list(body) == [
        "messages", "model", "temperature", "response_format", "logprobs", "top_logprobs"
    ]  # fmt: skip
    assert (body["temperature"], body["logprobs"], body["top_logprobs"]) == (0.0, True, 20)


async def test_the_reasoning_sim_accepts_a_reasoning_judge_over_http(
    reasoning_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = _config(
        base_url=reasoning_sim_url,
        json_mode=True,
        reasoning_effort="medium",
        max_completion_tokens=2000,
    )
    result = await pair_over_http(config, transport, deadline_in(20))
    assert transport.statuses == [200]
    [body] = transport.bodies
    assert not REFUSED & set(body)
    assert (body["max_completion_tokens"], body["reasoning_effort"]) == (2000, "medium")
    assert result.ok
    assert result.error_kind is None
    assert result.confidence_source == "stated"
    # Its reasoning is stored, and priced: the sim counts it in completion_tokens, as OpenAI does.
    assert result.reasoning_tokens == SIM_REASONING_TOKENS
    assert result.tokens_out is not None
    assert result.tokens_out > SIM_REASONING_TOKENS


@pytest.mark.parametrize(
    ("fields", "refused"),
    [
        ({}, "Unsupported value: 'temperature' does not support 0.0 with this model."),
        ({"temperature": 1.0, "logprobs": True}, "Unsupported parameter: 'logprobs'"),
    ],
    ids=["temperature 0", "logprobs"],
)
async def test_a_judge_that_is_not_reasoning_is_refused_by_the_reasoning_sim(
    fields: dict[str, Any], refused: str, reasoning_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = _config(base_url=reasoning_sim_url, **fields)
    result = await pair_over_http(config, transport, deadline_in(20))
    assert transport.statuses == [400]  # not retried: the same request would be refused again
    assert not result.ok
    assert result.error_kind == "unsupported_parameter"
    assert result.error is not None
    assert refused in result.error


@pytest.mark.parametrize(
    ("extra", "param", "code", "message"),
    [
        (
            {"max_tokens": 100},
            "max_tokens",
            "unsupported_parameter",
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
        ),
        (
            {"temperature": 0},
            "temperature",
            "unsupported_value",
            "Unsupported value: 'temperature' does not support 0 with this model. "
            "Only the default (1) value is supported.",
        ),
        (
            {"top_logprobs": 5},
            "top_logprobs",
            "unsupported_parameter",
            "Unsupported parameter: 'top_logprobs' is not supported with this model.",
        ),
    ],
    ids=["max_tokens", "temperature", "top_logprobs"],
)
def test_the_reasoning_sim_answers_openais_400_body(
    extra: dict[str, Any], param: str, code: str, message: str, reasoning_sim_url: str
) -> None:
    body = {"model": "o3", "messages": [{"role": "user", "content": "hi"}], **extra}
    response = httpx2.post(f"{reasoning_sim_url}/chat/completions", json=body, timeout=10)
    assert response.status_code == 400
    assert response.json() == {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": param,
            "code": code,
        }
    }


def test_the_default_temperature_is_no_refusal() -> None:
    messages = [{"role": "user", "content": "hi"}]
    assert reasoning_refusal({"model": "o3", "messages": messages, "temperature": 1}) is None
    assert reasoning_refusal({"model": "o3", "messages": messages}) is None


def test_the_effort_and_the_budget_make_a_new_judge_version() -> None:
    plain = _config()
    # Pinned from before issue 39: a judge without the new settings keeps its version.
    assert judge_config_hash(plain) == (
        "04a1198419f9928239d24300bc15c1fc791a422cb7d03d54955b2792e668f551"
    )
    variants = [
        dataclasses.replace(plain, reasoning=True),
        dataclasses.replace(plain, reasoning_effort="low"),
        dataclasses.replace(plain, reasoning_effort="high"),
        dataclasses.replace(plain, reasoning_effort="high", max_completion_tokens=8000),
        dataclasses.replace(plain, max_completion_tokens=8000),
    ]
    hashes = {judge_config_hash(config) for config in [plain, *variants]}
    assert len(hashes) == 1 + len(variants)
