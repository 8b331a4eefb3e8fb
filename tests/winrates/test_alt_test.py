"""The alternative-annotator test: Benjamini-Yekutieli against statsmodels, the t-test against
scipy, the whole test against the published procedure written out with those oracles, its false
win rate by seeded simulation within its binomial band, and `GET /v1/alt-test` on PostgreSQL."""

from __future__ import annotations

import math
import random
import warnings
from collections.abc import Callable
from typing import Any

import httpx2
import numpy as np
import pytest
from scipy.stats import binom, ttest_1samp
from statsmodels.stats.multitest import multipletests

from app import stats
from app.config import Settings
from app.winrates.alttest import alt_test
from bench.alt_test_sim import annotate, scenario
from tests.labels.builders import Swap
from tests.winrates.builders import PICKS, Seeded

# The oracles


def test_benjamini_yekutieli_equals_statsmodels_fdr_by() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        m = int(rng.integers(1, 25))
        p = rng.random(m) ** float(rng.choice([1.0, 3.0, 8.0]))
        if rng.random() < 0.3:  # ties and exact ones
            p[: m // 2] = p[0]
            p[-1] = 1.0
        q = float(rng.choice([0.05, 0.1, 0.2]))
        rejected, adjusted = stats.benjamini_yekutieli(p.tolist(), q)
        oracle_rejected, oracle_adjusted, _, _ = multipletests(p, q, "fdr_by")
        assert rejected == oracle_rejected.tolist()
        assert adjusted == pytest.approx(oracle_adjusted.tolist(), abs=1e-12)
    assert stats.benjamini_yekutieli([]) == ([], [])


def test_t_test_below_equals_scipy_one_sided() -> None:
    rng = np.random.default_rng(1)
    for _ in range(300):
        n = int(rng.integers(2, 80))
        d = rng.integers(-1, 2, n).astype(float)
        bound = float(rng.choice([0.0, 0.1, 0.15, 0.2]))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)  # scipy on constant samples
            oracle = float(ttest_1samp(d, bound, alternative="less").pvalue)
        found = stats.t_test_below_p(d.tolist(), bound)
        if math.isnan(oracle):  # no spread, the mean at the bound: never a rejection
            assert found == 1.0
        else:
            assert found == pytest.approx(oracle, abs=1e-12)
    with pytest.raises(ValueError, match="two values"):
        stats.t_test_below_p([0.0], 0.1)


def published_alt_test(
    judge: dict[str, str], labels: dict[str, dict[str, str]], epsilon: float, q: float
) -> tuple[float, float, list[float]]:
    """The procedure as the authors publish it, written out with scipy and statsmodels: items
    with two labelers or more, labelers with 30 items or more, accuracy against the others,
    ttest_1samp(W_h − W_f, ε, 'less'), fdr_by across labelers. (winning rate, ρ, p-values)."""
    who: dict[str, list[str]] = {}
    for h, mine in labels.items():
        for item in mine:
            who.setdefault(item, []).append(h)
    keep = {i for i, hs in who.items() if len(hs) >= 2 and i in judge}
    p_values, advantages = [], []
    for h in sorted(labels):
        items = [i for i in sorted(labels[h]) if i in keep]
        if len(items) < 30:
            continue
        w_f, w_h = [], []
        for i in items:
            others = [labels[g][i] for g in who[i] if g != h]
            f = np.mean([judge[i] == o for o in others])
            s = np.mean([labels[h][i] == o for o in others])
            w_f.append(int(f >= s))
            w_h.append(int(s >= f))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore", RuntimeWarning)
            p = float(ttest_1samp(np.subtract(w_h, w_f), epsilon, alternative="less").pvalue)
        p_values.append(1.0 if math.isnan(p) else p)
        advantages.append(float(np.mean(w_f)))
    rejected = multipletests(p_values, q, "fdr_by")[0]
    return float(rejected.mean()), float(np.mean(advantages)), p_values


def simulated_slice(
    seed: int, labelers: int, items: int, judge_accuracy: float, coverage: float = 1.0
) -> tuple[dict[str, str], dict[str, dict[str, str]]]:
    """A judge and labelers (accuracy 0.7) on `items`; each labeler labels each item with
    probability `coverage`, and the judge misses a few."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, items)
    names = [f"i{k}" for k in range(items)]
    labels = {}
    for h in range(labelers):
        labelled = annotate(rng, truth, 0.7)
        pairs = zip(names, labelled, strict=True)
        labels[f"h{h}"] = {n: v for n, v in pairs if rng.random() < coverage}
    judged = annotate(rng, truth, judge_accuracy)
    judge = {n: v for n, v in zip(names, judged, strict=True) if rng.random() < 0.97}
    return judge, labels


@pytest.mark.parametrize(
    ("seed", "labelers", "items", "accuracy", "coverage", "epsilon"),
    [
        (0, 4, 80, 0.9, 1.0, 0.1),
        (1, 5, 120, 0.7, 0.7, 0.2),
        (2, 3, 60, 0.6, 1.0, 0.15),
        (3, 6, 70, 0.8, 0.6, 0.0),  # some labelers fall below 30 items
    ],
)
def test_the_test_equals_the_published_procedure(
    seed: int, labelers: int, items: int, accuracy: float, coverage: float, epsilon: float
) -> None:
    judge, labels = simulated_slice(seed, labelers, items, accuracy, coverage)
    result = alt_test(judge, labels, epsilon, 0.05)
    winning_rate, advantage, p_values = published_alt_test(judge, labels, epsilon, 0.05)
    assert result.reason is None
    assert result.winning_rate == pytest.approx(winning_rate, abs=1e-12)
    assert result.advantage_probability == pytest.approx(advantage, abs=1e-12)
    assert [row.p_value for row in result.labelers] == pytest.approx(p_values, abs=1e-12)
    assert result.passed == (winning_rate >= 0.5)


def test_below_the_papers_minimums_there_is_a_reason_not_a_figure() -> None:
    judge, labels = simulated_slice(4, 2, 80, 0.9)
    assert alt_test(judge, labels, 0.1).reason == "too_few_labelers"
    judge, labels = simulated_slice(5, 4, 25, 0.9)  # 25 items each: under 30
    assert alt_test(judge, labels, 0.1).reason == "too_few_labelers"
    assert alt_test({}, labels, 0.1).reason == "no_labels"
    lone = {"h0": {"i0": "A"}, "h1": {"i1": "B"}}
    assert alt_test({"i0": "A", "i1": "B"}, lone, 0.1).reason == "no_labels"


# Shown by simulation (a smaller run of bench/alt_test_sim.py)

RUNS = 400


@pytest.mark.slow
def test_a_judge_no_better_than_a_labeler_rarely_wins_and_a_better_one_passes() -> None:
    # Judge exchangeable with the labelers at ε = 0: every H0 holds at its boundary, so any win
    # is a false discovery and Benjamini-Yekutieli keeps the chance of one at or below q.
    any_win, passed = scenario(RUNS, seed=10)
    limit = binom.ppf(0.999, RUNS, 0.05)
    assert any_win <= limit
    assert passed <= any_win
    # A judge at accuracy 0.9 against labelers at 0.7, ε = 0.1: passes nearly always.
    _, passed_better = scenario(RUNS, seed=11, judge_accuracy=0.9, epsilon=0.1)
    assert passed_better >= binom.ppf(0.001, RUNS, 0.95)


# Through the API

JUDGES = ("judge-a", "judge-b")


async def seed_labelled(url: str, seed: int, labelers: int = 4, items: int = 60) -> Seeded:
    """Comparisons judged by two judges (judge-a close to the truth, judge-b a coin), each
    labelled from the queue by every labeler, plus labels outside the queue that must not count."""
    rng = random.Random(seed)
    data = Seeded()
    for _ in range(items):
        truth = rng.choice(["A", "B", "tie"])
        good = truth if rng.random() < 0.9 else rng.choice(["A", "B", "tie"])
        coin = rng.choice(["A", "B", "tie"])
        comparison_id = data.rows.comparison(
            Swap("judge-a", *PICKS[good]), Swap("judge-b", *PICKS[coin])
        )
        for h in range(labelers):
            label = truth if rng.random() < 0.7 else rng.choice(["A", "B", "tie"])
            data.rows.label(comparison_id, f"labeler-{h}", label, from_queue=True)
        data.rows.label(comparison_id, "chooser", "B", from_queue=False)
    await data.rows.insert(url)
    return data


def expected_from_rows(data: Seeded, judge: str, epsilon: float) -> tuple[float, float]:
    """The published procedure over the seeded rows (queue labels only)."""
    labels: dict[str, dict[str, str]] = {}
    for row in data.rows.labels:
        if row["from_queue"]:
            labels.setdefault(row["labeler"], {})[row["comparison_id"]] = row["winner"]
    verdicts = {
        row["id"]: row["judge_results"][judge]["winner"]
        for row in data.rows.comparisons
        if row["judge_results"].get(judge)
    }
    winning_rate, advantage, _ = published_alt_test(verdicts, labels, epsilon, 0.05)
    return winning_rate, advantage


@pytest.fixture
async def client(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    started: httpx2.AsyncClient = await live_factory(settings_factory())
    return started


async def alt(client: httpx2.AsyncClient, headers: dict[str, str], **params: Any) -> Any:
    response = await client.get("/v1/alt-test", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


async def test_the_answer_equals_the_published_procedure_per_judge(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    data = await seed_labelled(clean_pg, seed=1)
    body = await alt(client, reader, epsilon=0.15, since="2000-01-01T00:00:00Z")
    assert (body["epsilon"], body["q"], body["n_items"]) == (0.15, 0.05, 60)
    assert (body["min_labelers"], body["min_items_per_labeler"]) == (3, 30)
    assert [j["judge"] for j in body["judges"]] == list(JUDGES)
    for judge in body["judges"]:
        winning_rate, advantage = expected_from_rows(data, judge["judge"], 0.15)
        assert judge["reason"] is None
        assert [row["labeler"] for row in judge["labelers"]] == [f"labeler-{h}" for h in range(4)]
        assert judge["winning_rate"] == pytest.approx(winning_rate, abs=1e-12)
        assert judge["advantage_probability"] == pytest.approx(advantage, abs=1e-12)
        assert judge["passed"] == (winning_rate >= 0.5)
    good, coin = body["judges"]
    assert good["advantage_probability"] > coin["advantage_probability"]
    assert coin["passed"] is False

    only = await alt(client, reader, judge="judge-b", since="2000-01-01T00:00:00Z")
    assert [j["judge"] for j in only["judges"]] == ["judge-b"]


async def test_too_few_labelers_is_a_reason_and_bad_parameters_are_422(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    await seed_labelled(clean_pg, seed=2, labelers=2)
    body = await alt(client, reader, since="2000-01-01T00:00:00Z")
    assert {j["reason"] for j in body["judges"]} == {"too_few_labelers"}
    assert all(j["winning_rate"] is None and j["passed"] is None for j in body["judges"])
    for params in ({"epsilon": "1.5"}, {"q": "0"}, {"epsilon": "x"}, {"judge": "nobody"}):
        response = await client.get("/v1/alt-test", headers=reader, params=params)
        assert response.status_code == 422, (params, response.text)
    response = await client.get("/v1/alt-test")
    assert response.status_code == 401
