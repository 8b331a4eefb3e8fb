"""The bias report's `length_bias` reads the judge card (issue 42): on traffic where the better
answers are longer, every judge `prefers_longer` (descriptive); only the judge whose card's
padding probe fails is flagged `length_bias`, and no judge is flagged before it has a card."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.config import Settings
from tests.canaries.support import Served, close, serve
from tests.cards.test_card_api import card_of, sim_judge

JUDGES = ("len-biased", "len-fair")
COMPARISONS = 150
TAG = "suite:length"


@pytest.fixture
async def served(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> AsyncIterator[Served]:
    app = await serve(settings_factory, admin, judges_toml="", draw_seed=13)
    yield app
    await close(app)


def bodies(seed: int) -> list[dict[str, Any]]:
    """Comparisons whose better answer is the longer one (by 200–400 characters)."""
    rng = random.Random(seed)
    out = []
    for index in range(COMPARISONS):
        gap = rng.uniform(0.3, 1.5)
        short = f"Answer {index:04d}.\n[sim q={-gap:+.3f}]"
        long = f"Answer {index:04d}, {'in more detail ' * rng.randint(14, 26)}.\n[sim q={gap:+.3f}]"
        a, b = (short, long) if rng.random() < 0.5 else (long, short)
        out.append(
            {
                "prompt": f"Question {index:04d}?",
                "response_a": a,
                "response_b": b,
                "judges": list(JUDGES),
                "tags": {"suite": "length"},
            }
        )
    return out


async def report(served: Served) -> dict[str, Any]:
    answer = await served.get("/v1/bias-report", tag=TAG)
    return {j["judge"]: j for j in answer["judges"]}


async def test_the_length_flag_needs_the_cards_padding_probe_beside_the_traffic(
    served: Served,
) -> None:
    await served.post("/v1/judges", sim_judge("len-biased", length_bias=4.0), status=201)
    await served.post("/v1/judges", sim_judge("len-fair"), status=201)
    limit = asyncio.Semaphore(16)

    async def one(body: dict[str, Any]) -> None:
        async with limit:
            await served.post("/v1/compare", body)

    await asyncio.gather(*(one(b) for b in bodies(3)))
    before = await report(served)
    for name in JUDGES:
        assert before[name]["length"]["prefers_longer"] is True, before[name]["length"]
        assert not {"length_bias", "length_bias_watch"} & set(before[name]["flags"])

    for name in JUDGES:
        await served.post(f"/v1/judges/{name}/card", None, status=202)
    cards = {name: await card_of(served, name) for name in JUDGES}
    padding = {
        name: next(f for f in card["card"]["figures"] if f["family"] == "padding")["mark"]
        for name, card in cards.items()
    }
    assert padding == {"len-biased": "fail", "len-fair": "pass"}
    after = await report(served)
    assert "length_bias" in after["len-biased"]["flags"]
    assert not {"length_bias", "length_bias_watch"} & set(after["len-fair"]["flags"])
    assert after["len-fair"]["length"]["prefers_longer"] is True  # still shown, as what it is
