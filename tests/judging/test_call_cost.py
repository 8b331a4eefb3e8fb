"""A call's cost comes from its token counts and is never negative: a provider (or a server an
admin pointed a judge at) that reports a negative count gives a call of unknown cost."""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable

import httpx2
import pytest

from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, prices_known
from tests.judging.fakes import ScriptedProvider, chat_completion, shown_blocks

CONFIG = JudgeConfig(
    name="judge-1",
    provider="openai",
    model="gpt-judge",
    api_key="sk-test-secret-0123456789",
    backoff_base_s=0.01,
    price_in_per_mtok=2.0,
    price_out_per_mtok=8.0,
)


def answering(tokens: tuple[int, int]) -> Callable[[httpx2.Request], httpx2.Response]:
    def answer(request: httpx2.Request) -> httpx2.Response:
        second = shown_blocks(request)[1].label
        content = json.dumps({"winner": second, "confidence": 0.65})
        return chat_completion(content, tokens=tokens)

    return answer


async def judged(
    tokens: tuple[int, int], deadline: float, config: JudgeConfig = CONFIG
) -> PairCallResult:
    provider = ScriptedProvider([answering(tokens)])
    judge = build_judge(config, transport=provider.transport())
    try:
        return await judge.judge_pair("Q?", "one", "two", deadline=deadline, rng=random.Random(1))
    finally:
        await judge.aclose()


@pytest.mark.parametrize("tokens", [(-1_000_000, 20), (100, -5), (-1, -1)])
async def test_negative_token_counts_give_no_cost_never_a_negative_one(
    deadline_in: Callable[[float], float], tokens: tuple[int, int]
) -> None:
    result = await judged(tokens, deadline_in(10))
    assert result.cost_usd is None


async def test_valid_counts_are_priced(deadline_in: Callable[[float], float]) -> None:
    result = await judged((100, 0), deadline_in(10))
    assert result.cost_usd == 100 * 2.0 / 1e6


async def test_a_judge_without_prices_gives_calls_of_unknown_cost_never_free(
    deadline_in: Callable[[float], float],
) -> None:
    # Both prices 0 is the default, i.e. unset (issue 43): the call is answered, its cost unknown.
    unpriced = dataclasses.replace(CONFIG, price_in_per_mtok=0.0, price_out_per_mtok=0.0)
    result = await judged((100, 20), deadline_in(10), unpriced)
    assert (result.ok, result.tokens_in, result.cost_usd) == (True, 100, None)
    # One price set is a price: the other one is then a stated zero.
    output_only = dataclasses.replace(unpriced, price_out_per_mtok=8.0)
    assert (await judged((100, 20), deadline_in(10), output_only)).cost_usd == 20 * 8.0 / 1e6


def test_the_simulated_judge_is_priced_at_zero_and_only_it() -> None:
    assert prices_known("sim", 0.0, 0.0)
    assert not prices_known("openai", 0.0, 0.0)
    assert not prices_known("azure_openai", 0.0, 0.0)
    assert prices_known("anthropic", 3.0, 0.0)
