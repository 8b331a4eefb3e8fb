"""Drift that stays visible (issue 37): each run is compared with its judge's baseline as well as
with the previous run, a flag stays set until an admin acknowledges it or pins a baseline, the
gauge is absent before anything was compared, and a small canary withholds its estimates."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.config import Settings
from app.metrics import CANARY_DRIFT
from tests.canaries.support import JUDGE, TAG, Served, close, judge_body, serve, store_labelled

ITEMS = 100


@pytest.fixture
async def served(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> AsyncIterator[Served]:
    app = await serve(settings_factory, admin)
    await app.post("/v1/judges", judge_body({}), status=201)
    yield app
    await close(app)


def result_of(run: dict[str, Any]) -> dict[str, Any]:
    return dict(next(r for r in run["results"] if r["judge"] == JUDGE))


def gauge(canary: str) -> list[float]:
    """The values of `fairpair_canary_drift` for the canary (none: the series is absent)."""
    return [
        sample.value
        for metric in CANARY_DRIFT.collect()
        for sample in metric.samples
        if sample.labels.get("canary") == canary
    ]


async def state_of(served: Served, canary: str) -> dict[str, Any]:
    (state,) = (await served.get(f"/v1/canaries/{canary}"))["judge_states"]
    return dict(state)


async def test_drift_stays_flagged_after_a_steady_run_until_acknowledged(
    served: Served, reader: dict[str, str]
) -> None:
    await store_labelled(served, ITEMS, seed=20)
    body = {"name": "sticky", "judges": [JUDGE], "tag": TAG, "limit": 500}
    await served.post("/v1/canaries", body, 201)
    await served.post("/v1/canaries/sticky/runs", None, 202)
    first = result_of(await served.settled("sticky", 1))
    assert (first["drift"], first["baseline_run"], first["version"]) == (None, 1, 1)
    await served.tick()
    assert gauge("sticky") == []  # nothing was compared: absent, not 0

    # A new version with a position bias: its first run flags the change and is its baseline.
    patch = await served.http.patch(
        f"/v1/judges/{JUDGE}",
        json={"sim": {"beta": 2.0, "seed": 7, "position_bias": 2.0}},
        headers=served.admin,
    )
    assert patch.status_code == 200, patch.text
    await served.tick()
    second = result_of(await served.settled("sticky", 2))
    assert (second["drift"], second["previous_run"], second["baseline_run"]) == (True, 1, 2)

    # The next run of the same judge does not differ from run 2: the flag stays all the same.
    await served.post("/v1/canaries/sticky/runs", None, 202)
    third = result_of(await served.settled("sticky", 3))
    assert (third["drift"], third["previous_run"], third["baseline_run"]) == (False, 2, 2)
    assert third["baseline_tests"] == []  # the baseline is the previous run: tested once
    state = await state_of(served, "sticky")
    assert (state["drift"], state["drift_since_run"], state["baseline_run"]) == (True, 2, 2)
    await served.tick()
    assert gauge("sticky") == [1.0]
    report = await served.get("/v1/bias-report", judge=JUDGE)
    (entry,) = next(j for j in report["judges"] if j["judge"] == JUDGE)["canaries"]
    assert (entry["run"], entry["drift"], entry["run_drift"], entry["drift_since_run"]) == (
        3,
        True,
        False,
        2,
    )

    # Acknowledged (admin only): cleared, and the gauge says 0.
    refused = await served.http.post("/v1/canaries/sticky/acknowledge", headers=reader)
    assert refused.status_code == 403
    acknowledged = await served.post("/v1/canaries/sticky/acknowledge", None)
    assert acknowledged["judge_states"][0]["drift"] is False
    await served.tick()
    assert gauge("sticky") == [0.0]

    # A pinned baseline: a run of the judge's current version, compared with from then on.
    await served.post("/v1/canaries/sticky/baseline", {"run": 1}, 422)  # version 1
    await served.post("/v1/canaries/sticky/baseline", {"run": 9}, 404)
    other = {"run": 3, "judges": ["sim-a"]}
    await served.post("/v1/canaries/sticky/baseline", other, 422)
    pinned = await served.post("/v1/canaries/sticky/baseline", {"run": 3})
    (state,) = pinned["judge_states"]
    assert (state["baseline_run"], state["baseline_pinned"], state["drift"]) == (3, True, False)
    for number in (4, 5):
        await served.post("/v1/canaries/sticky/runs", None, 202)
        await served.settled("sticky", number)
    fifth = result_of(await served.settled("sticky", 5))
    assert (fifth["previous_run"], fifth["baseline_run"]) == (4, 3)
    assert fifth["baseline_items_compared"] == ITEMS
    assert len(fifth["baseline_tests"]) == 4


async def test_a_one_item_canary_withholds_its_estimates(served: Served) -> None:
    """One item cannot estimate a rate: the counts stay, the value and CI are withheld (it
    showed a call accuracy of 1.0 with a CI of [1.0, 1.0])."""
    (comparison_id,) = await store_labelled(served, 1, seed=21)
    body = {"name": "tiny", "judges": [JUDGE], "comparison_ids": [comparison_id]}
    await served.post("/v1/canaries", body, 201)
    await served.post("/v1/canaries/tiny/runs", None, 202)
    figures = result_of(await served.settled("tiny", 1))["figures"]
    for name in ("call_accuracy", "verdict_accuracy", "position_consistency", "first_pick_rate"):
        rate = figures[name]
        assert (rate["value"], rate["ci95"]) == (None, None), (name, rate)
        assert (rate["tier"], rate["reason"]) == ("insufficient", "insufficient_data")
    assert figures["call_accuracy"]["n"] == 2  # the counts stay
