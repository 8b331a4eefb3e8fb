"""Issue 40: the leaderboard's anchored win rate against the baseline (PPI++ over the queue's gold
labels) on PostgreSQL, against ppi-python; null with a reason; labels move the cache."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

import httpx2
import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from app import ppi
from app.leaderboard.ratings import rating
from tests.labels.builders import BASE_TIME, Rows
from tests.winrates.builders import BASELINE, MODEL, OUTCOME, Seeded, flipped, others, seeded

URL = "/v1/leaderboard"
# The win rates' default window holds every seeded outcome but the year-old one.
SINCE = (BASE_TIME - timedelta(days=1)).isoformat()


async def standings(
    client: httpx2.AsyncClient, headers: dict[str, str], **params: Any
) -> dict[str, dict[str, Any]]:
    """The leaderboard's rows by model (200 expected)."""
    response = await client.get(URL, headers=headers, params=params)
    assert response.status_code == 200, response.text
    return {row["model"]: row for row in response.json()["models"]}


def ppi_python(data: Seeded) -> tuple[float, list[float]]:
    """The reference PPI++ mean and interval of MODEL's outcomes, in percent."""
    y, yhat, rest = (np.asarray(v) for v in (data.human, data.judged, data.unlabelled))
    point = float(np.asarray(ppi_mean_pointestimate(y, yhat, rest)).item())
    low, high = (float(np.asarray(v).item()) for v in ppi_mean_ci(y, yhat, rest, alpha=0.05))
    return 100 * point, [100 * low, 100 * high]


async def test_anchored_win_rate_equals_ppi_python_and_nulls_say_why(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = seeded()
    await data.rows.insert(clean_pg)
    rows = await standings(client, reader, baseline=BASELINE, since=SINCE)
    anchored = rows[MODEL]["anchored_win_rate"]
    point, ci = ppi_python(data)
    assert anchored["win_rate"] == pytest.approx(point, abs=1e-7)
    assert anchored["ci95"] == pytest.approx(ci, abs=1e-7)
    assert (anchored["n"], anchored["n_labelled"]) == (242, 80)
    assert (anchored["method"], anchored["sampling"]) == ("ppi++", "uniform_queue")
    assert 0 < anchored["lambda"] <= 1
    assert rows[MODEL]["anchored_reason"] is None
    # The judge-only rate stands beside it, over the same comparisons.
    assert rows[MODEL]["vs_baseline"]["n"] == 242
    # The baseline has no rate against itself; m-other met it once, unlabelled.
    assert (rows[BASELINE]["anchored_win_rate"], rows[BASELINE]["anchored_reason"]) == (None, None)
    assert rows["m-other"]["anchored_win_rate"] is None
    assert rows["m-other"]["anchored_reason"] == "no_labels"

    without = await standings(client, reader, since=SINCE)
    assert all(r["anchored_win_rate"] is None for r in without.values())
    assert all(r["anchored_reason"] is None for r in without.values())


async def test_labels_posted_after_an_answer_are_read_not_served_from_cache(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = seeded(n=60, labelled=40)
    labels, data.rows.labels = data.rows.labels, []
    await data.rows.insert(clean_pg)
    before = await standings(client, reader, baseline=BASELINE, since=SINCE)
    assert before[MODEL]["anchored_reason"] == "no_labels"

    await Rows(labels=labels).insert(clean_pg)
    after = await standings(client, reader, baseline=BASELINE, since=SINCE)
    assert after[MODEL]["anchored_win_rate"]["n_labelled"] == 40
    assert after[MODEL]["anchored_win_rate"]["win_rate"] == pytest.approx(ppi_python(data)[0])


def two_model_games(labelled: int, unlabelled: int) -> Seeded:
    """Comparisons of MODEL with BASELINE tagged `set:bt`, a judge agreeing with the humans 80%
    of the time, the first `labelled` labelled from the queue; untagged others beside them."""
    rng = random.Random(5)
    data = Seeded()
    for i in range(labelled + unlabelled):
        human = rng.choices(("A", "tie", "B"), weights=(5, 2, 3))[0]
        judge = human if rng.random() < 0.8 else rng.choice(("A", "tie", "B"))
        model_is_a = i % 2 == 0
        comparison_id = data.pair(judge, model_is_a, tags={"set": "bt"})
        if i < labelled:
            data.rows.label(
                comparison_id, "ann", human if model_is_a else flipped(human), from_queue=True
            )
            data.human.append(OUTCOME[human])
            data.judged.append(OUTCOME[judge])
        else:
            data.unlabelled.append(OUTCOME[judge])
    others(data)
    return data


async def test_anchored_ratings_are_the_ppi_bradley_terry_fit_beside_the_judge_only_ones(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = two_model_games(60, 140)
    await data.rows.insert(clean_pg)
    response = await client.get(URL, headers=reader, params={"tag": "set:bt"})
    assert response.status_code == 200, response.text
    body = response.json()
    # Models sorted: BASELINE (m-base) is 0, MODEL (m-new) 1; games from MODEL's side.
    fit = ppi.ppi_bradley_terry(
        2,
        [(1, 0, y, yhat, 1) for y, yhat in zip(data.human, data.judged, strict=True)],
        [(1, 0, yhat, 1) for yhat in data.unlabelled],
    )
    summary = body["anchored_ratings"]
    assert (summary["n"], summary["n_labelled"], summary["reason"]) == (200, 60, None)
    assert summary["lambda"] == pytest.approx(fit.lam, abs=1e-12)
    assert (summary["method"], summary["sampling"]) == ("ppi++", "uniform_queue")
    rows = {row["model"]: row for row in body["models"]}
    for k, model in enumerate((BASELINE, MODEL)):
        assert rows[model]["anchored_rating"] == pytest.approx(rating(fit.theta[k]), abs=1e-9)
        low, high = fit.ci95[k]
        assert rows[model]["anchored_ci95"] == pytest.approx([rating(low), rating(high)], abs=1e-9)
        assert rows[model]["rating"] is not None  # the judge-only rating stays beside it


async def test_anchored_ratings_are_null_with_a_reason_without_labels(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = two_model_games(0, 60)
    await data.rows.insert(clean_pg)
    response = await client.get(URL, headers=reader, params={"tag": "set:bt"})
    body = response.json()
    assert body["anchored_ratings"]["reason"] == "no_labels"
    assert body["anchored_ratings"]["lambda"] is None
    assert all(row["anchored_rating"] is None for row in body["models"])
