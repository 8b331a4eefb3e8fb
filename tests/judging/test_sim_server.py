"""The sim-judge over real HTTP: same picks as in process, and the openai provider end to end."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from app.judging.providers import build_judge
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, SimKnobs
from app.simjudge.server import parse_offsets
from tests.judging.fakes import running_sim_judge

Deadline = Callable[[float], float]
KNOBS = SimKnobs(
    position_bias=0.7, label_bias=0.4, tie_rate=0.15, offsets={"reviewer-b": 1.0}, seed=42
)
TEXTS = [f"Answer number {i}.\n[sim q={(i % 7 - 3) / 3:.3f}]" for i in range(24)]


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    with running_sim_judge(KNOBS) as url:
        yield url


def _http_judge_config(url: str, model: str = "reviewer-a", **overrides: Any) -> JudgeConfig:
    return JudgeConfig(
        name=model, provider="openai", model=model, base_url=url, backoff_base_s=0.01, **overrides
    )


async def _picks(
    config: JudgeConfig, deadline: float
) -> list[tuple[str | None, str, float | None]]:
    judge, rng = build_judge(config), random.Random(2024)
    pairs = list(zip(TEXTS, reversed(TEXTS), strict=True))
    calls = [
        judge.judge_pair("Which is right?", a, b, deadline=deadline, rng=rng) for a, b in pairs
    ]
    results = await asyncio.gather(*calls)
    await judge.aclose()
    return [(r.pick, r.label_pair, r.confidence) for r in results]


async def test_sim_in_process_and_over_http_give_the_same_picks(
    sim_url: str, deadline_in: Deadline
) -> None:
    in_process = JudgeConfig(name="reviewer-a", provider="sim", model="reviewer-a", sim=KNOBS)
    local = await _picks(in_process, deadline_in(20))
    remote = await _picks(_http_judge_config(sim_url), deadline_in(20))
    assert [p[:2] for p in remote] == [p[:2] for p in local]
    assert {p[0] for p in local} == {"first", "second", "tie"}


async def test_openai_provider_end_to_end_against_the_sim_judge_with_logprobs(
    sim_url: str, deadline_in: Deadline
) -> None:
    in_process = JudgeConfig(
        name="reviewer-a", provider="sim", model="reviewer-a", sim=KNOBS, logprobs=True
    )
    local = await _picks(in_process, deadline_in(20))
    judge = build_judge(_http_judge_config(sim_url, logprobs=True, json_mode=True))
    result = await judge.judge_pair(
        "Which is right?", TEXTS[0], TEXTS[-1], deadline=deadline_in(10), rng=random.Random(2024)
    )
    await judge.aclose()
    assert result.ok
    assert result.confidence_source == "logprobs"
    assert (result.pick, result.label_pair) == local[0][:2]
    assert result.confidence == pytest.approx(local[0][2])
    assert result.provider_model == "reviewer-a"
    assert result.tokens_in
    assert result.tokens_out


async def test_scores_over_http_match_in_process_and_use_the_reviewer_offset(
    sim_url: str, deadline_in: Deadline
) -> None:
    async def scores(config: JudgeConfig) -> tuple[float, ...] | None:
        judge = build_judge(config)
        result = await judge.judge_scores(
            "q", TEXTS[:5], DEFAULT_RUBRIC, deadline=deadline_in(10), rng=random.Random(8)
        )
        await judge.aclose()
        return result.scores

    remote_b = await scores(_http_judge_config(sim_url, model="reviewer-b"))
    local_b = await scores(JudgeConfig(name="b", provider="sim", model="reviewer-b", sim=KNOBS))
    remote_a = await scores(_http_judge_config(sim_url, model="reviewer-a"))
    assert remote_b == local_b
    assert remote_a is not None
    assert remote_b is not None
    assert sum(remote_b) > sum(remote_a)


async def test_sim_judge_error_rate_answers_500_and_the_call_fails_after_retries(
    deadline_in: Deadline,
) -> None:
    with running_sim_judge(SimKnobs(error_rate=1.0)) as url:
        judge = build_judge(_http_judge_config(url, max_attempts=3))
        result = await judge.judge_pair("q", "a", "b", deadline=deadline_in(10))
        await judge.aclose()
    assert (result.error_kind, result.retries) == ("server_error", 2)


async def test_sim_judge_rate_limit_knob_answers_429_with_retry_after(
    deadline_in: Deadline,
) -> None:
    with running_sim_judge(SimKnobs(rate_limit_rate=1.0)) as url:
        async with httpx2.AsyncClient() as client:
            response = await client.post(
                f"{url}/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
            )
    assert response.status_code == 429
    assert response.headers["retry-after-ms"] == "50"
    assert response.headers["fairpair-simulated"] == "true"


async def test_sim_judge_lists_models_and_rejects_bad_bodies(sim_url: str) -> None:
    async with httpx2.AsyncClient() as client:
        models = await client.get(f"{sim_url}/models")
        bad = await client.post(f"{sim_url}/chat/completions", content=b"not json")
        no_blocks = await client.post(
            f"{sim_url}/chat/completions",
            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
        )
    assert models.status_code == 200
    assert models.json()["data"][0]["id"] == "sim"
    assert bad.status_code == 400
    assert no_blocks.status_code == 400


def test_offsets_parse_from_the_cli_syntax() -> None:
    assert parse_offsets("gpt-4o=1, claude=-0.5,") == {"gpt-4o": 1.0, "claude": -0.5}
    assert parse_offsets("") == {}
    with pytest.raises(ValueError, match="name=number"):
        parse_offsets("gpt-4o")
    with pytest.raises(ValueError, match="name=number"):
        parse_offsets("a=high")
