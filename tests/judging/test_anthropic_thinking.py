"""Issue 39: Anthropic extended thinking. A judge with `thinking_budget_tokens` sends
`thinking: {type: enabled, budget_tokens}` with `max_tokens` raised by the budget and no
temperature; its thinking is kept in the raw output and never read as the verdict. The requests
go over real HTTP to `fairpair sim-judge`, which refuses what the Messages API refuses with
thinking on (a budget under 1,024, `max_tokens` not above it, a temperature other than 1)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from app.judging.base import ANSWER_MARK, THINKING_MARK
from app.judging.types import JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash
from app.simjudge.batches import SIM_THOUGHT
from tests.judging.fakes import RecordingTransport, pair_over_http, running_sim_judge

Deadline = Callable[[float], float]
DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    # A judge that always sees the first response as far better: its verdict is never a tie.
    with running_sim_judge(SimKnobs(position_bias=8.0)) as url:
        yield url


def _config(base_url: str, **fields: Any) -> JudgeConfig:
    values: dict[str, Any] = {
        "name": "claude-thinking",
        "provider": "anthropic",
        "model": "claude-sonnet-4-5",
        "base_url": base_url.removesuffix("/v1"),
        "api_key": "sk-ant-local",
        "backoff_base_s": 0.01,
    }
    return JudgeConfig(**{**values, **fields})


async def test_a_thinking_judge_sends_the_budget_and_keeps_its_thinking_out_of_the_verdict(
    sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = _config(sim_url, thinking_budget_tokens=2048)
    result = await pair_over_http(config, transport, deadline_in(20))
    assert transport.statuses == [200]
    [sent] = transport.sent
    assert sent.path == "/v1/messages"
    assert sent.body["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    assert sent.body["max_tokens"] == 2048 + config.max_tokens
    assert "temperature" not in sent.body
    assert result.ok
    # The thinking's draft says tie; the answer (the text block) picks the first slot.
    assert result.pick == "first"
    assert result.raw_output is not None
    assert result.raw_output.startswith(f"{THINKING_MARK}\n{SIM_THOUGHT}\n{ANSWER_MARK}\n")


async def test_a_judge_without_thinking_sends_none(sim_url: str, deadline_in: Deadline) -> None:
    transport = RecordingTransport()
    result = await pair_over_http(_config(sim_url), transport, deadline_in(20))
    [sent] = transport.sent
    assert "thinking" not in sent.body
    assert sent.body["max_tokens"] == 1024
    assert result.raw_output is not None
    assert THINKING_MARK not in result.raw_output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            {"thinking": {"type": "enabled", "budget_tokens": 512}, "max_tokens": 4000},
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            {"thinking": {"type": "enabled", "budget_tokens": 2048}, "max_tokens": 2048},
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            f"documentation at {DOCS}#max-tokens-and-context-window-size",
        ),
        (
            {
                "thinking": {"type": "enabled", "budget_tokens": 2048},
                "max_tokens": 4000,
                "temperature": 0,
            },
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our "
            f"documentation at {DOCS}#feature-compatibility",
        ),
    ],
    ids=["budget under 1024", "max_tokens not above the budget", "temperature 0"],
)
def test_the_sim_refuses_what_the_messages_api_refuses_with_thinking(
    extra: dict[str, Any], message: str, sim_url: str
) -> None:
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": "hi"}],
        **extra,
    }
    response = httpx2.post(f"{sim_url}/messages", json=body, timeout=10)
    assert response.status_code == 400
    assert response.json() == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": message},
    }


def test_the_budget_is_checked_where_the_judge_is_made() -> None:
    with pytest.raises(ValueError, match="at least 1024"):
        _config("http://127.0.0.1:1", thinking_budget_tokens=1000)
    with pytest.raises(ValueError, match="only an anthropic judge"):
        JudgeConfig(name="o", provider="openai", model="gpt-4o", thinking_budget_tokens=2048)


def test_the_budget_makes_a_new_judge_version() -> None:
    plain = _config("http://127.0.0.1:1")
    budgets = [dataclasses.replace(plain, thinking_budget_tokens=n) for n in (1024, 4096)]
    hashes = {judge_config_hash(config) for config in [plain, *budgets]}
    assert len(hashes) == 3
