"""Issue 40: `GET /v1/win-rates` on PostgreSQL and SQLite, against hand-kept outcomes and
ppi-python; null sections; hostile filters."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from app.config import Settings
from app.schema import upgrade
from app.stats import Z95
from tests.conftest import make_key
from tests.labels.builders import BASE_TIME
from tests.winrates.builders import BASELINE, MODEL, Seeded, seeded

URL = "/v1/win-rates"


async def win_rates(
    client: httpx2.AsyncClient, headers: dict[str, str], **params: Any
) -> dict[str, Any]:
    """The answer for MODEL against BASELINE (200 expected)."""
    query = {"model": MODEL, "baseline": BASELINE} | params
    response = await client.get(URL, headers=headers, params=query)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def clt(values: list[float]) -> tuple[float, tuple[float, float]]:
    """Mean ± Z95·sd/√n, sd with ddof 0."""
    y = np.asarray(values)
    half = Z95 * y.std() / np.sqrt(y.size)
    return float(y.mean()), (float(y.mean() - half), float(y.mean() + half))


async def test_the_three_win_rates_equal_their_hand_and_ppi_python_values(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = seeded()
    await data.rows.insert(clean_pg)
    body = await win_rates(client, reader)
    every = data.judged + data.unlabelled
    assert (body["n_comparisons"], body["n_labelled"]) == (len(every), len(data.human))
    assert (body["n_labelled_not_from_queue"], body["disputed"]) == (10, 2)
    assert (body["sampling"], body["unit"], body["verdict"]) == (
        "uniform_queue",
        "comparison",
        "final",
    )
    assert body["reasons"] == {}

    judge_rate, judge_ci = clt(every)
    assert body["judge"]["win_rate"] == pytest.approx(judge_rate, abs=1e-12)
    assert body["judge"]["ci95"] == pytest.approx(list(judge_ci), abs=1e-12)
    assert body["judge"]["n"] == len(every)
    human_rate, human_ci = clt(data.human)
    assert body["human"]["win_rate"] == pytest.approx(human_rate, abs=1e-12)
    assert body["human"]["ci95"] == pytest.approx(list(human_ci), abs=1e-12)

    y, yhat, rest = (np.asarray(v) for v in (data.human, data.judged, data.unlabelled))
    anchored = body["anchored"]
    point = float(np.asarray(ppi_mean_pointestimate(y, yhat, rest)).item())
    low, high = (float(np.asarray(v).item()) for v in ppi_mean_ci(y, yhat, rest, alpha=0.05))
    assert anchored["win_rate"] == pytest.approx(point, abs=1e-9)
    assert anchored["ci95"] == pytest.approx([low, high], abs=1e-9)
    assert (anchored["method"], anchored["n"], anchored["n_labelled"]) == ("ppi++", 242, 80)
    assert 0 < anchored["lambda"] <= 1
    assert high - low < human_ci[1] - human_ci[0]  # the judge agrees often: it helps

    targets = body["labels_needed"]["targets"]
    assert [t["half_width"] for t in targets] == [0.05, 0.02]
    assert 0 < targets[0]["more_labels"] < targets[1]["more_labels"]
    assert body["labels_needed"]["planning_figure"] is True


async def test_the_model_in_either_slot_counts_from_its_own_side(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = Seeded()
    for _ in range(20):
        data.pair("A", True)  # MODEL in slot A, won
        data.pair("tie", False)  # MODEL in slot B, tie
        data.pair("B", False)  # MODEL in slot B, lost
    await data.rows.insert(clean_pg)
    body = await win_rates(client, reader)
    assert body["judge"]["win_rate"] == pytest.approx(0.5)
    assert body["judge"]["n"] == 60
    swapped = await win_rates(client, reader, model=BASELINE, baseline=MODEL)
    assert swapped["judge"]["win_rate"] == pytest.approx(0.5)


async def test_filters_are_the_reports(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    data = seeded()
    await data.rows.insert(clean_pg)
    team_y = await win_rates(client, reader, tag="team:y")
    assert team_y["n_comparisons"] == 80  # i % 3 == 0 of 240
    assert team_y["filters"]["tags"] == ["team:y"]
    canary = await win_rates(client, reader, origin="canary")
    assert canary["n_comparisons"] == 1
    assert canary["reasons"] == {
        "judge": "insufficient_data",
        "human": "no_labels",
        "anchored": "no_labels",
        "labels_needed": "no_labels",
    }
    every = await win_rates(client, reader, since="400d")
    assert every["n_comparisons"] == 243  # last year's comparison too
    # judge-b always answers tie: its outcomes are constant, so λ = 0 and anchored = human.
    judge_b = await win_rates(client, reader, judge="judge-b")
    assert judge_b["verdict"] == "judge"
    assert judge_b["judge"]["win_rate"] == 0.5
    assert judge_b["anchored"]["lambda"] == 0.0
    assert judge_b["anchored"]["ci95"] == pytest.approx(judge_b["human"]["ci95"])


async def test_unknown_models_give_an_empty_answer_with_reasons(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    await seeded(n=40, labelled=10).rows.insert(clean_pg)
    body = await win_rates(client, reader, model="nobody", baseline="nothing")
    assert (body["n_comparisons"], body["n_labelled"]) == (0, 0)
    assert (body["judge"], body["human"], body["anchored"], body["labels_needed"]) == (None,) * 4
    assert set(body["reasons"].values()) == {"no_comparisons"}


async def test_few_labels_withhold_the_labelled_sections(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    await seeded(n=60, labelled=10).rows.insert(clean_pg)
    body = await win_rates(client, reader)
    assert body["judge"]["tier"] == "preliminary"
    assert body["human"] is None
    assert body["reasons"]["anchored"] == "insufficient_data"
    assert body["n_labelled"] == 10


@pytest.mark.parametrize(
    ("params", "pointer"),
    [
        ({"tag": "nocolon"}, "/tag/0"),
        ({"since": "yesterday-ish"}, "/since"),
        ({"since": "2026-01-02", "until": "2026-01-01"}, "/until"),
        ({"judge": "no-such-judge"}, "/judge"),
        ({"origin": "everyone"}, "origin"),
        ({"baseline": MODEL}, "/baseline"),
        ({"model": "a\x00b"}, "model"),
        ({"model": "x" * 201}, "model"),
        ({"model": ""}, "model"),
        ({"since": "9999999999999999"}, "/since"),
        ({"tag": ["k:v"] * 17}, "tag"),
    ],
)
async def test_hostile_filters_are_422_naming_the_parameter(
    client: httpx2.AsyncClient, reader: dict[str, str], params: dict[str, Any], pointer: str
) -> None:
    query = {"model": MODEL, "baseline": BASELINE} | params
    response = await client.get(URL, headers=reader, params=query)
    assert response.status_code == 422, response.text
    assert response.headers["content-type"].startswith("application/problem+json")
    assert pointer in response.text


async def test_missing_models_are_422_and_keys_are_checked(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    assert (await client.get(URL, headers=reader)).status_code == 422
    params = {"model": MODEL, "baseline": BASELINE}
    assert (await client.get(URL, params=params)).status_code == 401
    labeller = await make_key(clean_pg, "labeller", ["label"])
    assert (await client.get(URL, headers=labeller, params=params)).status_code == 403


async def test_sqlite_gives_the_same_answer(
    client: httpx2.AsyncClient,
    clean_pg: str,
    reader: dict[str, str],
    live_factory: Callable[..., Any],
    tmp_path: Path,
) -> None:
    data = seeded(n=120, labelled=40, seed=3)
    url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    await asyncio.to_thread(upgrade, url)
    for database in (clean_pg, url):
        await data.rows.insert(database)
    lite = await live_factory(Settings(database_url=url, auth="off"))
    answers = []
    for each, headers in ((client, reader), (lite, {})):
        since = (BASE_TIME - timedelta(days=1)).isoformat()
        for params in ({"since": since}, {"since": since, "judge": "judge-a", "tag": "team:x"}):
            body = await win_rates(each, headers, **params)
            answers.append({k: v for k, v in body.items() if k != "generated_at"})
    assert answers[:2] == answers[2:]
    assert answers[0]["anchored"] is not None
