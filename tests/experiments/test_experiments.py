"""`/v1/experiments` (issue 41) in process on PostgreSQL with the embedded queue and sim judges:
an item experiment stops judging once decided, a streaming one takes comparisons by
`POST /v1/compare` with `experiment`, and every way in refuses what does not belong."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import httpx2
from sqlalchemy import select

from app.batches.models import BatchItem, ItemStatus
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.ledger.models import Comparison, ComparisonTag
from tests.batches.support import wait_for_batch

SLOTS = 4


def item(i: int, candidate_q: float, baseline_q: float) -> dict[str, Any]:
    return {
        "prompt": f"question {i}",
        "baseline": f"baseline answer {i}\n[sim q={baseline_q}]",
        "candidate": f"candidate answer {i}\n[sim q={candidate_q}]",
    }


def experiment(
    name: str, items: list[dict[str, Any]] | None = None, **extra: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name, "baseline": "base-1", "candidate": "cand-2", **extra}
    if items is not None:
        body["items"] = items
    return body


async def wait_for(
    client: httpx2.AsyncClient, name: str, headers: dict[str, str], timeout_s: float = 90
) -> dict[str, Any]:
    """Poll the experiment until it is no longer running and its batch has nothing left."""
    deadline = time.monotonic() + timeout_s
    while True:
        found: dict[str, Any] = (
            await client.get(f"/v1/experiments/{name}", headers=headers)
        ).json()
        if found["status"] != "running" and found["batch_id"] is not None:
            await wait_for_batch(client, found["batch_id"], headers)
            final: dict[str, Any] = (
                await client.get(f"/v1/experiments/{name}", headers=headers)
            ).json()
            return final
        if time.monotonic() > deadline:
            raise TimeoutError(f"experiment {name} still {found['status']}")
        await asyncio.sleep(0.1)


async def item_outcomes(url: str, batch_id: str) -> list[tuple[str, str | None]]:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        rows = await session.execute(
            select(BatchItem.status, BatchItem.error_kind).where(BatchItem.batch_id == batch_id)
        )
        found = [(status, kind) for status, kind in rows]
    await engine.dispose()
    return found


async def slots_and_winners(url: str, name: str) -> list[tuple[str | None, str | None]]:
    """(model in slot A, winner) of each comparison of the experiment."""
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        rows = await session.execute(
            select(Comparison.model_a, Comparison.winner)
            .join(ComparisonTag, ComparisonTag.comparison_id == Comparison.id)
            .where(ComparisonTag.key == "fairpair:experiment", ComparisonTag.value == name)
        )
        found = [(model, winner) for model, winner in rows]
    await engine.dispose()
    return found


async def test_an_item_experiment_stops_judging_once_decided(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(worker_concurrency=SLOTS))
    items = [item(i, candidate_q=3, baseline_q=-3) for i in range(300)]
    created = await client.post("/v1/experiments", headers=comparer, json=experiment("e1", items))
    assert created.status_code == 201, created.text
    assert created.json()["items"] == 300

    done = await wait_for(client, "e1", comparer)
    assert (done["status"], done["decision"]) == ("decided", "candidate_better")
    # Only the items already running when it decided finish after the deciding comparison.
    assert done["decided_after"] <= done["comparisons"] <= done["decided_after"] + SLOTS
    assert done["items_judged"] == done["comparisons"]
    assert done["items_left"] == 300 - done["items_judged"] > 200
    assert done["calls"] == 2 * done["comparisons"]
    assert done["calls_saved"] == 2 * done["items_left"]
    rate = done["win_rate"]
    low, high = rate["cs95"]
    assert 0.5 < low <= rate["value"] <= high
    assert rate["ci95"][0] >= low  # the fixed-sample interval is the narrower one
    statuses = await item_outcomes(clean_pg, done["batch_id"])
    skipped = [kind for status, kind in statuses if status == ItemStatus.CANCELLED]
    assert len(skipped) == done["items_left"]
    assert set(skipped) == {"experiment-stopped"}
    scraped = (await client.get("/metrics")).text
    assert 'fairpair_experiment_decision{experiment="e1"} 1.0' in scraped
    assert "fairpair_experiment_decision_calls_count" in scraped


async def test_an_experiment_out_of_items_before_a_decision_is_exhausted(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    items = [item(i, candidate_q=3, baseline_q=-3) for i in range(3)]
    created = await client.post("/v1/experiments", headers=comparer, json=experiment("few", items))
    assert created.status_code == 201, created.text
    done = await wait_for(client, "few", comparer)
    assert (done["status"], done["decision"], done["items_left"]) == ("exhausted", None, 0)
    assert done["comparisons"] == 3


async def test_the_candidate_takes_either_slot_and_is_scored_as_the_candidate(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    items = [item(i, candidate_q=-3, baseline_q=3) for i in range(120)]
    created = await client.post(
        "/v1/experiments", headers=comparer, json=experiment("worse", items, seed=7)
    )
    assert created.status_code == 201, created.text
    done = await wait_for(client, "worse", comparer)
    assert (done["status"], done["decision"]) == ("decided", "baseline_better")
    assert done["win_rate"]["cs95"][1] < 0.5
    winners = await slots_and_winners(clean_pg, "worse")
    assert {slot for slot, _ in winners} == {"cand-2", "base-1"}  # the candidate took both slots
    assert all((winner == "A") == (slot == "base-1") for slot, winner in winners)


async def test_streaming_comparisons_join_by_the_experiment_field(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    created = await client.post("/v1/experiments", headers=comparer, json=experiment("live"))
    assert created.status_code == 201, created.text
    assert (created.json()["items"], created.json()["comparisons"]) == (None, 0)

    def compare(**extra: Any) -> dict[str, Any]:
        return {
            "prompt": "q",
            "response_a": {"text": "a\n[sim q=3]", "model": "cand-2"},
            "response_b": {"text": "b\n[sim q=-3]", "model": "base-1"},
            "experiment": "live",
            **extra,
        }

    joined = await client.post("/v1/compare", headers=comparer, json=compare())
    assert joined.status_code == 200, joined.text
    assert joined.json()["tags"]["fairpair:experiment"] == "live"
    found = (await client.get("/v1/experiments/live", headers=comparer)).json()
    assert (found["comparisons"], found["status"]) == (1, "running")
    assert found["win_rate"] == {
        "value": 1.0,
        "cs95": [0.0, 1.0],
        "ci95": [0.0, 1.0],
        "source": "judge",
    }

    wrong = compare(response_b={"text": "b", "model": "other"})
    refused = await client.post("/v1/compare", headers=comparer, json=wrong)
    assert refused.status_code == 422
    assert "/experiment" in refused.json()["detail"]
    unknown = await client.post("/v1/compare", headers=comparer, json=compare(experiment="nope"))
    assert unknown.status_code == 422
    forged = {**compare(), "experiment": None, "tags": {"fairpair:experiment": "live"}}
    assert (await client.post("/v1/compare", headers=comparer, json=forged)).status_code == 422

    cancelled = await client.delete("/v1/experiments/live", headers=comparer)
    assert cancelled.json()["status"] == "cancelled"
    late = await client.post("/v1/compare", headers=comparer, json=compare())
    assert late.status_code == 422
    listed = (await client.get("/v1/experiments", headers=comparer)).json()["experiments"]
    assert [e["name"] for e in listed] == ["live"]


async def test_cancelling_an_item_experiment_cancels_its_items_not_started(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    slow = settings_factory(worker_concurrency=1)
    client = await live_factory(slow)
    items = [item(i, candidate_q=0, baseline_q=0) for i in range(200)]
    created = await client.post("/v1/experiments", headers=comparer, json=experiment("stop", items))
    assert created.status_code == 201, created.text
    cancelled = (await client.delete("/v1/experiments/stop", headers=comparer)).json()
    assert cancelled["status"] == "cancelled"
    done = await wait_for_batch(client, cancelled["batch_id"], comparer)
    assert done["counts"]["cancelled"] > 150


async def test_bad_experiments_are_refused_and_leave_nothing(
    client: httpx2.AsyncClient, comparer: dict[str, str], reader: dict[str, str]
) -> None:
    assert (await client.post("/v1/experiments", headers=comparer, json=experiment("x"))).is_success
    taken = await client.post("/v1/experiments", headers=comparer, json=experiment("x"))
    assert taken.status_code == 409
    same = experiment("y", candidate="base-1")
    assert (await client.post("/v1/experiments", headers=comparer, json=same)).status_code == 422
    other_model = [{**item(0, 1, 0), "candidate": {"text": "c", "model": "someone-else"}}]
    bad = await client.post("/v1/experiments", headers=comparer, json=experiment("z", other_model))
    assert bad.status_code == 422
    assert "/items/0/candidate/model" in bad.json()["detail"]
    unknown_judge = experiment("w", [item(0, 1, 0)], judges=["nobody"])
    refused = await client.post("/v1/experiments", headers=comparer, json=unknown_judge)
    assert refused.status_code == 422
    for body in (experiment("a", alpha=0), experiment("b", margin=0.5), {"name": "c"}):
        assert (
            await client.post("/v1/experiments", headers=comparer, json=body)
        ).status_code == 422
    names = [
        e["name"]
        for e in (await client.get("/v1/experiments", headers=reader)).json()["experiments"]
    ]
    assert names == ["x"]
    assert (
        await client.post("/v1/experiments", headers=reader, json=experiment("r"))
    ).status_code == 403
    assert (await client.get("/v1/experiments/none", headers=reader)).status_code == 404


async def test_an_experiment_decides_in_privacy_mode_where_its_tag_is_stored_as_a_token(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(worker_concurrency=SLOTS, privacy="hash"))
    items = [item(i, candidate_q=3, baseline_q=-3) for i in range(120)]
    created = await client.post("/v1/experiments", headers=comparer, json=experiment("p", items))
    assert created.status_code == 201, created.text
    done = await wait_for(client, "p", comparer)
    assert (done["status"], done["decision"]) == ("decided", "candidate_better")
    assert done["items_left"] > 0
