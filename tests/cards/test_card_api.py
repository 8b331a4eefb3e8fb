"""The judge card through the API: simulated judges with known biases run the battery as
tagged batch comparisons, and the card reads them back with marks and a paired test."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.config import Settings
from tests.canaries.support import Served, close, serve

PER_FAMILY = 50


@pytest.fixture
async def served(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> AsyncIterator[Served]:
    # Seeded draws (labels, display orders): a card of a fair judge is then the same every run.
    app = await serve(settings_factory, admin, card_probes_per_family=PER_FAMILY, draw_seed=11)
    yield app
    await close(app)


def sim_judge(name: str, **knobs: float) -> dict[str, Any]:
    return {
        "name": name,
        "provider": "sim",
        "model": name,
        "max_concurrency": 64,
        "price_in_per_mtok": 2.5,
        "price_out_per_mtok": 10.0,
        "sim": {"beta": 2.0, "seed": 7, **knobs},
    }


async def card_of(served: Served, name: str, timeout_s: float = 120, **params: Any) -> Any:
    """The card once its run finished."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        answer = await served.get(f"/v1/judges/{name}/card", **params)
        if answer["card"] is not None and answer["card"]["complete"]:
            return answer
        await asyncio.sleep(0.2)
    raise AssertionError(f"the card of {name} did not finish")


async def run_card(served: Served, name: str) -> Any:
    started = await served.post(f"/v1/judges/{name}/card", None, status=202)
    assert started["items"] == 4 * PER_FAMILY
    assert started["calls"] == 8 * PER_FAMILY
    return started


def marks(answer: Any) -> dict[str, str]:
    return {f["family"]: f["mark"] for f in answer["card"]["figures"]}


async def test_an_unbiased_sim_passes_every_probe(served: Served, clean_pg: str) -> None:
    await served.post("/v1/judges", sim_judge("card-fair"), status=201)
    never = await served.get("/v1/judges/card-fair/card")
    assert never["card"] is None
    assert "POST" in never["reason"]
    started = await run_card(served, "card-fair")
    # 200 probes, both orders: 400 calls at GPT-4o's prices stays well under a dollar.
    assert 0 < started["stated_cost_usd"] < 1.0
    answer = await card_of(served, "card-fair")
    assert marks(answer) == dict.fromkeys(("padding", "injection", "junk", "placebo"), "pass")
    assert answer["card"]["run_id"] == started["run_id"]
    assert answer["card"]["provider_models"]
    assert answer["card"]["run_at"] is not None


async def test_a_length_biased_sim_fails_padding_and_a_following_one_fails_injection(
    served: Served, clean_pg: str
) -> None:
    await served.post("/v1/judges", sim_judge("card-long", length_bias=4.0), status=201)
    await served.post("/v1/judges", sim_judge("card-obey", injection_following=0.8), status=201)
    await asyncio.gather(run_card(served, "card-long"), run_card(served, "card-obey"))
    long_card, obey_card = await asyncio.gather(
        card_of(served, "card-long"), card_of(served, "card-obey")
    )
    padding = next(f for f in long_card["card"]["figures"] if f["family"] == "padding")
    assert padding["ci"][0] > 0.5
    assert padding["mark"] == "fail"
    assert marks(long_card)["injection"] != "fail"
    assert marks(obey_card)["injection"] == "fail"
    assert marks(obey_card)["padding"] != "fail"


async def test_a_new_version_gets_a_card_whose_paired_test_flags_the_change(
    served: Served, clean_pg: str
) -> None:
    await served.post("/v1/judges", sim_judge("card-drift"), status=201)
    await run_card(served, "card-drift")
    await card_of(served, "card-drift")
    patch = await served.http.patch(
        "/v1/judges/card-drift",
        json={"sim": {"beta": 2.0, "seed": 7, "length_bias": 4.0}},
        headers=served.admin,
    )
    assert patch.status_code == 200, patch.text
    await run_card(served, "card-drift")
    answer = await card_of(served, "card-drift")
    assert answer["version"] == 2
    card = answer["card"]
    assert card["previous_version"] == 1
    changes = {c["family"]: c for c in card["changes"]}
    assert changes["padding"]["changed"]
    assert changes["padding"]["c"] > changes["padding"]["b"]
    assert changes["padding"]["pairs"] > PER_FAMILY
    assert not changes["placebo"]["changed"]
    first = await served.get("/v1/judges/card-drift/card", version=1)
    assert first["card"]["previous_version"] is None
    assert marks(first)["padding"] != "fail"


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/v1/judges/no-such-judge/card", 404),
        ("POST", "/v1/judges/no-such-judge/card", 404),
        ("GET", "/v1/judges/card-edge/card?version=0", 422),
        ("GET", "/v1/judges/card-edge/card?version=abc", 422),
        ("GET", "/v1/judges/card-edge/card?version=7", 422),
    ],
)
async def test_bad_input_is_a_problem_not_a_500(
    served: Served, clean_pg: str, method: str, path: str, status: int
) -> None:
    await served.post("/v1/judges", sim_judge("card-edge"), status=201)
    response = await served.http.request(method, path, headers=served.admin)
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_privacy_mode_refuses_the_card_with_a_reason(
    settings_factory: Callable[..., Settings], admin: dict[str, str], clean_pg: str
) -> None:
    app = await serve(settings_factory, admin, privacy="hash")
    try:
        await app.post("/v1/judges", sim_judge("card-private"), status=201)
        for method in ("GET", "POST"):
            response = await app.http.request(
                method, "/v1/judges/card-private/card", headers=app.admin
            )
            assert response.status_code == 422, response.text
            assert "privacy mode" in response.json()["detail"]
    finally:
        await close(app)
