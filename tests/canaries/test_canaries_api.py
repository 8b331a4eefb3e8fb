"""Drift canaries through the API: a frozen set of 200 gold-labelled comparisons, run as batches of
`canary` comparisons, re-run automatically when the judge changes, with paired drift tests."""

from __future__ import annotations

import asyncio
import math
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select, update

from app.batches.models import BatchItem
from app.canaries.models import Canary, CanaryItem, CanaryRun
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.ledger.models import Comparison, JudgeCall
from app.metrics import CANARY_DRIFT
from app.retention import purge
from tests.canaries.support import (
    JUDGE,
    TAG,
    Served,
    close,
    items,
    judge_body,
    serve,
    store_labelled,
)
from tests.support.rows import call_row, comparison_row

ITEMS = 200
BETA = 2.0  # judge_body's β, unchanged by the patch below
POSITION_BIAS = 1.5


@pytest.fixture
async def served(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> AsyncIterator[Served]:
    app = await serve(settings_factory, admin)
    await app.post("/v1/judges", judge_body({}), status=201)
    yield app
    await close(app)


def result_of(run: dict[str, Any], judge: str = JUDGE) -> dict[str, Any]:
    return dict(next(r for r in run["results"] if r["judge"] == judge))


def sim_quality(text: str) -> float:
    """The q of a response's trailing `[sim q=…]` line (what the sim reads)."""
    return float(text.rsplit("[sim q=", 1)[1].rstrip("]"))


def expected_first_pick_rate(bodies: list[dict[str, Any]], position_bias: float) -> float:
    """The sim's model of the first-pick rate over both shown orders of every item.

    The sim picks the first-shown response with probability σ(β(q_first − q_second) + bias)
    (app/judging/simulation.py `_decide_pair`; no ties, and no label, length or family term for
    these items), and a swap shows each item once as AB and once as BA.
    """

    def p_first(gap: float) -> float:
        return 1 / (1 + math.exp(-(BETA * gap + position_bias)))

    gaps = [sim_quality(b["response_a"]) - sim_quality(b["response_b"]) for b in bodies]
    return sum(p_first(gap) + p_first(-gap) for gap in gaps) / (2 * len(gaps))


async def test_a_canary_of_200_gold_comparisons_flags_a_position_bias_change(
    served: Served, clean_pg: str
) -> None:
    ids = await store_labelled(served, ITEMS, seed=0)
    canary = await served.post(
        "/v1/canaries", {"name": "gold200", "judges": [JUDGE], "tag": TAG, "limit": 500}, 201
    )
    assert canary["item_count"] == ITEMS
    assert canary["gold_count"] == ITEMS
    assert canary["last_run"] is None

    first = await served.post("/v1/canaries/gold200/runs", None, 202)
    assert first["number"] == 1
    assert first["trigger"] == "manual"
    run1 = result_of(await served.settled("gold200", 1))
    assert run1["figures"]["n_items"] == ITEMS
    assert run1["figures"]["call_accuracy"]["n"] == 2 * ITEMS
    assert run1["figures"]["call_accuracy"]["value"] > 0.75
    assert run1["previous_run"] is None
    assert run1["drift"] is None

    # The run's comparisons are stored as `canary`, apart from the traffic they copy.
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        origin_of_source = await session.scalar(
            select(Comparison.origin).where(Comparison.id == ids[0])
        )
        run_origins = await session.scalars(
            select(Comparison.origin)
            .join(BatchItem, BatchItem.target_id == Comparison.id)
            .where(BatchItem.batch_id == first["batch_id"])
        )
        assert origin_of_source == "traffic"
        assert list(run_origins) == ["canary"] * ITEMS

    # The judge changes: a position bias that a fair judge does not have. The next tick sees the
    # new version and claims one run of that judge, however many processes tick at once.
    patch = await served.http.patch(
        f"/v1/judges/{JUDGE}",
        json={"sim": {"beta": BETA, "seed": 7, "position_bias": POSITION_BIAS}},
        headers=served.admin,
    )
    assert patch.status_code == 200, patch.text
    await asyncio.gather(served.tick(), served.tick(), served.tick())
    runs = (await served.get("/v1/canaries/gold200/runs"))["items"]
    assert [(r["number"], r["trigger"]) for r in runs] == [(2, "version"), (1, "manual")]

    run2 = result_of(await served.settled("gold200", 2))
    assert run2["previous_run"] == 1
    assert run2["items_compared"] == ITEMS
    tests = {t["name"]: t for t in run2["tests"]}
    assert tests["first_pick_rate"]["significant"], tests
    assert tests["first_pick_rate"]["difference"] > 0.05
    assert run2["drift"] is True
    # The shift is the one the sim's model implies for these items (≈ 0.14 for a bias of 1.5),
    # inside the run's paired 95% CI (≈ ±0.05 here: it rules out a bias of 1.2 or less); each
    # run's rate is inside its own 95% CI as well. The sim's draws are seeded per request, so
    # the counts are the same every time (only the bootstrap's ends move, by ~0.003, with the
    # order the traffic was stored in), not a 5% chance per run.
    bodies = [body for body, _ in items(ITEMS, seed=0)]
    before = expected_first_pick_rate(bodies, 0.0)
    after = expected_first_pick_rate(bodies, POSITION_BIAS)
    low, high = tests["first_pick_rate"]["ci95"]
    assert low <= after - before <= high, (after - before, tests["first_pick_rate"])
    for run, expected in ((run1, before), (run2, after)):
        low, high = run["figures"]["first_pick_rate"]["ci95"]
        assert low <= expected <= high, (expected, run["figures"]["first_pick_rate"])

    await served.tick()  # publishes the gauge from the database
    assert CANARY_DRIFT.labels(judge=JUDGE, canary="gold200")._value.get() == 1
    report = await served.get("/v1/bias-report", judge=JUDGE)
    (entry,) = next(j for j in report["judges"] if j["judge"] == JUDGE)["canaries"]
    assert (entry["canary"], entry["run"], entry["previous_run"]) == ("gold200", 2, 1)
    assert entry["drift"] is True
    assert "first_pick_rate" in entry["drifted"]
    page = await served.http.get(f"/dashboard/judge?judge={JUDGE}", headers=served.admin)
    assert page.status_code == 200
    row = page.text.split('data-canary="gold200"', 1)[1].split("</tr>", 1)[0]
    assert "<strong>drift</strong>: " in row
    assert "first_pick_rate" in row
    assert "vs run 1" in row
    # The labels of the traffic are the human baseline's: its table is on the page too.
    assert 'id="human-baseline"' in page.text
    assert 'id="confusion"' in page.text
    await engine.dispose()


async def test_an_unchanged_judge_rarely_drifts_over_20_runs(served: Served) -> None:
    """20 runs of the same judge (its seed changes, its knobs do not): 19 paired comparisons at a
    5% family-wise level each. Bound: at most 3 drift flags (P(≥4 of 19 at 5%) ≈ 1.3%, and the
    runs are seeded, so the outcome is fixed, not flaky)."""
    await store_labelled(served, ITEMS, seed=3)
    await served.post("/v1/canaries", {"name": "steady", "judges": [JUDGE], "tag": TAG}, 201)
    flags = []
    for number in range(1, 21):
        # A new seed per run: the judge answers anew, as a real judge's sampling does.
        body = {"sim": {"beta": 2.0, "seed": 100 + number}}
        response = await served.http.patch(f"/v1/judges/{JUDGE}", json=body, headers=served.admin)
        assert response.status_code == 200
        await served.post("/v1/canaries/steady/runs", None, 202)
        run = result_of(await served.settled("steady", number))
        if number > 1:
            flags.append(run["drift"])
    assert len(flags) == 19
    assert sum(flags) <= 3, flags


async def test_a_new_provider_model_on_the_judges_calls_claims_one_run(
    served: Served, clean_pg: str
) -> None:
    await store_labelled(served, 30, seed=5)
    await served.post("/v1/canaries", {"name": "models", "judges": [JUDGE], "tag": TAG}, 201)
    engine = create_engine(clean_pg)
    sessionmaker = create_sessionmaker(engine)

    async def call_with_model(model: str, at: datetime, version: int = 1) -> None:
        async with sessionmaker() as session:
            cid = f"model-{model}-{at.timestamp()}"
            await session.execute(insert(Comparison), [comparison_row(cid, at)])
            row = {
                **call_row(cid, 0),
                **{"judge_name": JUDGE, "judge_version": version},
                **{"started_at": at, "finished_at": at},
            }
            await session.execute(insert(JudgeCall), [{**row, "provider_model": model}])
            await session.commit()

    # The sim's calls report its model; a call with another one is a new model, seen once.
    # Stamped an hour ahead: newer than any call the runs make meanwhile, however slow the
    # machine (a run's calls finishing after `now + 1 s` became the newest model instead).
    now = datetime.now(UTC) + timedelta(hours=1)
    await served.tick()
    await call_with_model("sim-2026-06", now + timedelta(seconds=1))
    await asyncio.gather(served.tick(), served.tick())
    await served.tick()
    async with sessionmaker() as session:
        triggers = list(await session.execute(select(CanaryRun.trigger, CanaryRun.judges)))
    assert [tuple(t) for t in triggers] == [("model", [JUDGE])]
    await served.settled("models", 1)  # nothing more starts while a run is open

    # A new version that names another model: its version run covers the new model too.
    response = await served.http.patch(
        f"/v1/judges/{JUDGE}", json={"model": "canary-sim-2"}, headers=served.admin
    )
    assert response.status_code == 200
    await served.tick()
    await call_with_model("canary-sim-2", now + timedelta(seconds=2), version=2)
    await served.tick()
    async with sessionmaker() as session:
        triggers = list(await session.scalars(select(CanaryRun.trigger).order_by(CanaryRun.number)))
    assert triggers == ["model", "version"]
    await served.settled("models", 2)  # finished before the app stops
    await engine.dispose()


async def test_a_scheduled_run_is_claimed_once_per_interval(served: Served, clean_pg: str) -> None:
    await store_labelled(served, 20, seed=6)
    await served.post(
        "/v1/canaries", {"name": "weekly", "judges": [JUDGE], "tag": TAG, "interval": "7d"}, 201
    )
    await served.tick()
    assert (await served.get("/v1/canaries/weekly/runs"))["items"] == []
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        # Created 15 days ago: two slots have passed; only the latest is owed.
        back = datetime.now(UTC) - timedelta(days=15)
        await session.execute(update(Canary).values(created_at=back))
        await session.commit()
    await asyncio.gather(served.tick(), served.tick())
    await served.tick()
    runs = (await served.get("/v1/canaries/weekly/runs"))["items"]
    assert [r["trigger"] for r in runs] == ["schedule"]
    await served.settled("weekly", 1)
    await engine.dispose()


async def test_canary_requests_are_checked(served: Served, reader: dict[str, str]) -> None:
    ids = await store_labelled(served, 3, seed=7)
    base = {"name": "c1", "judges": [JUDGE], "tag": TAG}
    cases = [
        ({**base, "comparison_ids": ["x"]}, 422),  # two selectors
        ({"name": "c1", "judges": [JUDGE]}, 422),  # none
        ({**base, "judges": ["nobody"]}, 422),
        ({**base, "tag": "suite:none"}, 422),
        ({**base, "tag": "nocolon"}, 422),
        ({**base, "interval": "5s"}, 422),
        ({**base, "interval": "30s"}, 422),
        ({"name": "c1", "judges": [JUDGE], "comparison_ids": ["missing"]}, 422),
    ]
    for body, status in cases:
        response = await served.http.post("/v1/canaries", json=body, headers=served.admin)
        assert response.status_code == status, (body, response.text)
    forbidden = await served.http.post("/v1/canaries", json=base, headers=reader)
    assert forbidden.status_code == 403
    await served.post("/v1/canaries", base, 201)
    await served.post("/v1/canaries", base, 409)
    other = await served.http.post(
        "/v1/canaries/c1/runs", json={"judges": ["sim-a"]}, headers=served.admin
    )
    assert other.status_code == 422
    assert (await served.http.get("/v1/canaries/none", headers=reader)).status_code == 404
    by_ids = {"name": "c2", "judges": [JUDGE], "comparison_ids": [ids[0], ids[1], ids[0]]}
    created = await served.post("/v1/canaries", by_ids, 201)
    assert created["selector"] == {"comparison_ids": 2}  # a count: entries stay small
    assert created["item_count"] == 2
    listed = await served.get("/v1/canaries", limit=1)
    assert [c["name"] for c in listed["items"]] == ["c1"], listed
    following = await served.get("/v1/canaries", limit=1, cursor=listed["next_cursor"])
    assert [c["name"] for c in following["items"]] == ["c2"]
    assert following["next_cursor"] is None
    bad_cursor = await served.http.get("/v1/canaries?cursor=%00", headers=reader)
    assert bad_cursor.status_code == 422


async def test_canaries_are_refused_in_privacy_mode(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    app = await serve(settings_factory, admin, privacy="hash")
    try:
        response = await app.http.post(
            "/v1/canaries", json={"name": "p", "judges": ["sim-a"], "tag": "a:b"}, headers=admin
        )
        assert response.status_code == 422
        assert "privacy mode" in response.json()["detail"]
    finally:
        await close(app)


async def test_running_an_unknown_canary_in_privacy_mode_is_404_not_the_privacy_refusal(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    app = await serve(settings_factory, admin, privacy="hash")
    try:
        response = await app.http.post("/v1/canaries/nosuch/runs", headers=admin)
        assert response.status_code == 404
        assert "no canary named 'nosuch'" in response.json()["detail"]
    finally:
        await close(app)


async def test_purge_leaves_canaries_unless_asked(served: Served, clean_pg: str) -> None:
    await store_labelled(served, 10, seed=8)
    await served.post("/v1/canaries", {"name": "kept", "judges": [JUDGE], "tag": TAG}, 201)
    await served.post("/v1/canaries/kept/runs", None, 202)
    await served.settled("kept", 1)
    engine = create_engine(clean_pg)
    sessionmaker = create_sessionmaker(engine)
    later = datetime.now(UTC) + timedelta(minutes=1)

    async def origins() -> list[str]:
        async with sessionmaker() as session:
            return sorted(set(await session.scalars(select(Comparison.origin))))

    async with sessionmaker() as session:
        purged = await purge(session, later, texts_only=False)
    assert (purged.comparisons, purged.canaries) == (10, 0)
    assert purged.canary_copies_kept == 10  # said, not silent: their texts stay (issue 36)
    assert await origins() == ["canary"]
    assert (await served.get("/v1/canaries/kept"))["item_count"] == 10
    async with sessionmaker() as session:
        purged = await purge(session, later, texts_only=False, include_canaries=True)
    assert (purged.comparisons, purged.canaries, purged.canary_copies_kept) == (10, 1, 0)
    assert await origins() == []
    await served.tick()  # the deleted canary's drift series goes
    samples = [
        sample.labels
        for metric in CANARY_DRIFT.collect()
        for sample in metric.samples
        if sample.labels.get("canary") == "kept"
    ]
    assert samples == []
    missing = await served.http.get("/v1/canaries/kept", headers=served.admin)
    assert missing.status_code == 404
    await engine.dispose()


async def test_canaries_run_and_trigger_on_the_embedded_sqlite_default(
    settings_factory: Callable[..., Settings], admin: dict[str, str], tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    app = await serve(settings_factory, {}, database_url=url, auth="off")
    try:
        await app.post("/v1/judges", judge_body({}), status=201)
        await store_labelled(app, 20, seed=9)
        await app.post("/v1/canaries", {"name": "lite", "judges": [JUDGE], "tag": TAG}, 201)
        await app.post("/v1/canaries/lite/runs", None, 202)
        assert result_of(await app.settled("lite", 1))["figures"]["n_items"] == 20
        response = await app.http.patch(
            f"/v1/judges/{JUDGE}", json={"sim": {"beta": 2.0, "seed": 8}}
        )
        assert response.status_code == 200
        await app.tick()
        second = result_of(await app.settled("lite", 2))
        assert second["previous_run"] == 1
        assert second["items_compared"] == 20
        report = await app.get("/v1/bias-report", judge=JUDGE)
        calls = next(j for j in report["judges"] if j["judge"] == JUDGE)["calls"]["total"]
        assert calls == 40  # the traffic's 20 comparisons; the runs' 40 are canary
    finally:
        await close(app)


async def test_runs_settle_in_order_and_leave_out_retired_judges(served: Served) -> None:
    """Runs 2 and 3 finish together: each is paired with the run before it, whichever is read
    first. A retired judge is left out of later runs instead of failing every item."""
    await served.post("/v1/judges", judge_body({}, name="canary-sim-2"), status=201)
    await store_labelled(served, 12, seed=10)
    body = {"name": "order", "judges": [JUDGE, "canary-sim-2"], "tag": TAG}
    await served.post("/v1/canaries", body, 201)
    await served.post("/v1/canaries/order/runs", None, 202)
    await served.settled("order", 1)
    await served.post("/v1/canaries/order/runs", None, 202)
    await served.post("/v1/canaries/order/runs", None, 202)
    third = await served.settled("order", 3)
    second = await served.settled("order", 2)
    assert [r["previous_run"] for r in third["results"]] == [2, 2]
    assert [r["previous_run"] for r in second["results"]] == [1, 1]

    retire = await served.http.patch(
        "/v1/judges/canary-sim-2", json={"enabled": False}, headers=served.admin
    )
    assert retire.status_code == 200
    fourth = await served.post("/v1/canaries/order/runs", None, 202)
    assert fourth["judges"] == [JUDGE]
    assert result_of(await served.settled("order", 4))["figures"]["n_items"] == 12
    only_retired = await served.http.post(
        "/v1/canaries/order/runs", json={"judges": ["canary-sim-2"]}, headers=served.admin
    )
    assert only_retired.status_code == 422


async def test_a_rotation_after_a_version_that_kept_the_model_claims_a_model_run(
    served: Served, clean_pg: str
) -> None:
    """The canary compares a new model with the version of the newest call it saw, refreshed
    every tick: a version change that kept the model does not hide a later rotation."""
    await store_labelled(served, 10, seed=11)
    await served.post("/v1/canaries", {"name": "rotate", "judges": [JUDGE], "tag": TAG}, 201)
    patch = await served.http.patch(
        f"/v1/judges/{JUDGE}", json={"sim": {"beta": 2.0, "seed": 70}}, headers=served.admin
    )
    assert patch.status_code == 200
    await served.tick()  # the version run (its calls report the same model at version 2)
    await served.settled("rotate", 1)
    await served.tick()
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        at = datetime.now(UTC) + timedelta(seconds=1)
        await session.execute(insert(Comparison), [comparison_row("rotated", at)])
        row = {**call_row("rotated", 0), "judge_name": JUDGE, "judge_version": 2}
        await session.execute(
            insert(JudgeCall), [{**row, "started_at": at, "provider_model": "sim-next"}]
        )
        await session.commit()
    await engine.dispose()
    await served.tick()
    runs = (await served.get("/v1/canaries/rotate/runs"))["items"]
    assert [(r["number"], r["trigger"]) for r in runs] == [(2, "model"), (1, "version")]
    await served.settled("rotate", 2)


async def test_an_item_that_no_longer_validates_is_a_422_not_a_500(
    served: Served, clean_pg: str
) -> None:
    await store_labelled(served, 3, seed=12)
    await served.post("/v1/canaries", {"name": "stale", "judges": [JUDGE], "tag": TAG}, 201)
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        await session.execute(update(CanaryItem).where(CanaryItem.position == 1).values(prompt=" "))
        await session.commit()
    await engine.dispose()
    response = await served.http.post("/v1/canaries/stale/runs", headers=served.admin)
    assert response.status_code == 422, response.text
    assert "canary item 1 no longer validates" in response.json()["detail"]
    assert (await served.get("/v1/canaries/stale/runs"))["items"] == []
