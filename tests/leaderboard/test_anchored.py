"""Issue 40: the leaderboard's anchored win rate against the baseline (PPI++ over the queue's gold
labels) on PostgreSQL, against ppi-python; null with a reason; labels move the cache."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx2
import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from tests.labels.builders import BASE_TIME, Rows
from tests.winrates.builders import BASELINE, MODEL, Seeded, seeded

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
