"""Issue 22: the judge's length and position preferences against the humans' on the same
gold-labelled comparisons (`human_baseline`), its confusion matrix per gold class, and the
series' judge-human accuracy per bucket, against hand computations on a small fixture."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import numpy as np
import pytest

from app import stats
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.ledger.callscope import ReportFilters
from app.reports.bias import build_report
from app.reports.schemas import BiasReport, JudgeReport
from app.schema import upgrade
from tests.conftest import make_key
from tests.labels.builders import BASE_TIME, Rows, Swap

JUDGE = "judge-a"
FILTERS = ReportFilters(since=BASE_TIME - timedelta(days=3))
DAY = BASE_TIME.replace(hour=0, minute=0, second=0)


@dataclass(frozen=True)
class Item:
    """One hand-made comparison: lengths, the judge's swap picks, labels (winner, shown first)."""

    len_a: int
    len_b: int
    swap: Swap
    labels: tuple[tuple[str, str | None], ...]


# The block of eight comparisons (AB call: first = A; BA call: first = B). Per comparison:
# h/j of the length figure (h = gold is the longer; j = share of decisive calls for the longer),
# h/j of the position figure (shares of first-slot picks: decisive labels with a known order;
# the judge's decisive calls), and the (gold, verdict) cell.
BLOCK = (
    # A longer, gold A; calls A, A. Length h 1 j 1. Position: ann first, bob not: h 1/2; j 1/2.
    Item(100, 50, Swap(JUDGE, "first", "second"), (("A", "A"), ("A", "B"))),
    # B longer, gold A; calls B, B. Length h 0 j 1. Position h 1/1; j 1/2. Cell (A, B).
    Item(40, 200, Swap(JUDGE, "second", "first"), (("A", "A"),)),
    # A longer, gold B; calls A, B (verdict tie). Length h 0 j 1/2. No known order. Cell (B, tie).
    Item(300, 100, Swap(JUDGE, "first", "first"), (("B", None),)),
    # Equal lengths (no length figure), gold A; calls A, B (tie). Position h 0/1; j 2/2.
    Item(80, 80, Swap(JUDGE, "first", "first"), (("A", "B"),)),
    # Gold tie: no length figure; the ordered label is a tie, not decisive: no position figure.
    Item(50, 120, Swap(JUDGE, "tie", "first"), (("tie", None), ("tie", "A"))),
    # A longer, gold B (2 to 1); calls B, B. Length h 0 j 0. Position: ann first, bob not: h
    # 1/2; j 1/2. Cell (B, B).
    Item(500, 100, Swap(JUDGE, "second", "first"), (("B", "B"), ("B", "A"), ("A", None))),
    # Gold B; two tie calls: no decisive call, so in no figure. Cell (B, tie).
    Item(60, 90, Swap(JUDGE, "tie", "tie"), (("B", None),)),
    # A longer, gold A; AB call A, BA call failed: no verdict. Length h 1 j 1. Position h 1; j 1.
    Item(200, 20, Swap(JUDGE, "first", None), (("A", "A"),)),
)
# Blocks per day: two days back (too few gold comparisons for an accuracy), yesterday, today.
BLOCKS_BY_DAY = {2: 2, 1: 4, 0: 4}
BLOCKS = sum(BLOCKS_BY_DAY.values())

# Length, per block over its five comparisons with unequal lengths, a decisive gold and a
# decisive call: h = (1, 0, 0, 0, 1), j = (1, 1, 1/2, 0, 1).
LENGTH_H = [1.0, 0.0, 0.0, 0.0, 1.0]
LENGTH_J = [1.0, 1.0, 0.5, 0.0, 1.0]
HUMAN_LONGER = 2 / 5
JUDGE_LONGER = 3.5 / 5
EXCESS_LONGER = (0 + 1 + 0.5 + 0 + 0) / 5  # mean of j − h = 0.3 = 0.7 − 0.4
# Position, per block over five comparisons: h = (1/2, 1, 0, 1/2, 1), j = (1/2, 1/2, 1, 1/2, 1).
POSITION_H = [0.5, 1.0, 0.0, 0.5, 1.0]
POSITION_J = [0.5, 0.5, 1.0, 0.5, 1.0]
EXCESS_FIRST = (0 - 0.5 + 1 + 0 + 0) / 5  # 0.1
# Pooled: labels 2 + 1 + 1 + 2 + 1 = 7 of which 1 + 1 + 0 + 1 + 1 = 4 picked the first shown;
# the judge's decisive calls 2 + 2 + 2 + 2 + 1 = 9 of which 1 + 1 + 2 + 1 + 1 = 6 were first.
HUMAN_LABELS, HUMAN_FIRST = 7, 4
JUDGE_CALLS, JUDGE_FIRST = 9, 6
# Verdicts against gold per block: (A: A 1, B 1, tie 1), (B: B 1, tie 2), (tie: tie 1).
CONFUSION = {"A": {"A": 1, "B": 1, "tie": 1}, "B": {"A": 0, "B": 1, "tie": 2}, "tie": {"tie": 1}}
# Series per block: parsed design calls 7·2 + 1 = 15, matching gold 2+0+1+1+1+2+0+1 = 8;
# verdicts 7 (the failed call leaves one without), right ones: the first, fifth and sixth = 3.
CALLS, HITS, VERDICTS, CORRECT = 15, 8, 7, 3


def add_label(rows: Rows, comparison_id: str, labeler: str, winner: str, first: str | None) -> None:
    rows.label(comparison_id, labeler, winner)
    rows.labels[-1]["shown_first"] = first


def add_item(rows: Rows, item: Item, at: datetime) -> str:
    """The comparison with its lengths, its calls and its labels."""
    comparison_id = rows.comparison(item.swap, at=at)
    rows.comparisons[-1].update(len_a=item.len_a, len_b=item.len_b)
    for labeler, (winner, first) in zip(("ann", "bob", "cat"), item.labels, strict=False):
        add_label(rows, comparison_id, labeler, winner, first)
    return comparison_id


def fixture_rows(*, with_orders: bool = True) -> Rows:
    """The blocks by day, and labelled comparisons that must not count."""
    rows = Rows()
    for days, blocks in BLOCKS_BY_DAY.items():
        for _ in range(blocks):
            for item in BLOCK:
                labels = item.labels if with_orders else tuple((w, None) for w, _ in item.labels)
                add_item(
                    rows,
                    Item(item.len_a, item.len_b, item.swap, labels),
                    BASE_TIME - timedelta(days=days),
                )
    always_longer = Swap(JUDGE, "first", "second")
    disputed = rows.comparison(always_longer)  # ann A, bob B: no gold
    rows.comparisons[-1].update(len_a=300, len_b=10)
    add_label(rows, disputed, "ann", "A", "A")
    add_label(rows, disputed, "bob", "B", "A")
    placebo = rows.comparison(always_longer, placebo=True)
    add_label(rows, placebo, "ann", "B", "A")
    old = rows.comparison(always_longer, at=FILTERS.since - timedelta(days=1))
    rows.comparisons[-1].update(len_a=300, len_b=10)
    add_label(rows, old, "ann", "B", "A")
    return rows


async def report_of(url: str, filters: ReportFilters = FILTERS) -> BiasReport:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        report = await build_report(session, filters, Settings())
    await engine.dispose()
    return report


def judge_of(report: BiasReport) -> JudgeReport:
    return next(j for j in report.judges if j.judge == JUDGE)


def bootstrap_oracle(values: list[float]) -> tuple[float, float]:
    """A plain percentile bootstrap of the mean: 1,000 resamples from numpy's generator, seed 0."""
    data = np.sort(np.asarray(values))
    indices = np.random.default_rng(0).integers(0, data.size, size=(1000, data.size))
    low, high = np.percentile(data[indices].mean(axis=1), [2.5, 97.5])
    return float(low), float(high)


def repeated(values: list[float]) -> list[float]:
    return values * BLOCKS


async def test_length_excess_equals_the_hand_computation(clean_pg: str) -> None:
    await fixture_rows().insert(clean_pg)
    length = judge_of(await report_of(clean_pg)).human_baseline.length  # type: ignore[union-attr]
    n = 5 * BLOCKS
    assert (length.n, length.n_used, length.sampled, length.tier) == (n, n, False, "preliminary")
    assert length.human_longer_rate == pytest.approx(HUMAN_LONGER, abs=1e-12)
    assert length.human_longer_rate_ci95 == stats.wilson_ci(2 * BLOCKS, n)
    assert length.judge_longer_rate == pytest.approx(JUDGE_LONGER, abs=1e-12)
    assert length.excess_longer == pytest.approx(EXCESS_LONGER, abs=1e-12)
    assert length.excess_longer == pytest.approx(0.3, abs=1e-12)
    excess = [j - h for j, h in zip(repeated(LENGTH_J), repeated(LENGTH_H), strict=True)]
    assert length.excess_longer_ci95 == pytest.approx(bootstrap_oracle(excess), abs=1e-12)
    assert length.judge_longer_rate_ci95 == pytest.approx(
        bootstrap_oracle(repeated(LENGTH_J)), abs=1e-12
    )
    assert length.excess_longer_ci95 is not None
    low, high = length.excess_longer_ci95
    assert low < EXCESS_LONGER < high


async def test_first_slot_excess_counts_only_labels_with_a_known_order(clean_pg: str) -> None:
    await fixture_rows().insert(clean_pg)
    position = judge_of(await report_of(clean_pg)).human_baseline.position  # type: ignore[union-attr]
    assert (position.n, position.tier, position.reason) == (5 * BLOCKS, "preliminary", None)
    assert (position.human_labels, position.judge_calls) == (
        HUMAN_LABELS * BLOCKS,
        JUDGE_CALLS * BLOCKS,
    )
    assert position.human_first_rate == pytest.approx(HUMAN_FIRST / HUMAN_LABELS, abs=1e-12)
    assert position.human_first_rate_ci95 == stats.wilson_ci(
        HUMAN_FIRST * BLOCKS, HUMAN_LABELS * BLOCKS
    )
    assert position.judge_first_pick_rate == pytest.approx(JUDGE_FIRST / JUDGE_CALLS, abs=1e-12)
    assert position.excess_first == pytest.approx(EXCESS_FIRST, abs=1e-12)
    excess = [j - h for j, h in zip(repeated(POSITION_J), repeated(POSITION_H), strict=True)]
    assert position.excess_first_ci95 == pytest.approx(bootstrap_oracle(excess), abs=1e-12)


async def test_without_display_orders_the_first_slot_baseline_says_why(clean_pg: str) -> None:
    await fixture_rows(with_orders=False).insert(clean_pg)
    baseline = judge_of(await report_of(clean_pg)).human_baseline
    assert baseline is not None
    position = baseline.position
    assert (position.n, position.excess_first, position.reason) == (0, None, "no_display_order")
    assert baseline.length.excess_longer == pytest.approx(EXCESS_LONGER, abs=1e-12)


async def test_confusion_matrix_counts_verdicts_per_gold_class(clean_pg: str) -> None:
    await fixture_rows().insert(clean_pg)
    baseline = judge_of(await report_of(clean_pg)).human_baseline
    assert baseline is not None
    expected = {
        gold: {verdict: CONFUSION[gold].get(verdict, 0) * BLOCKS for verdict in ("A", "B", "tie")}
        for gold in ("A", "B", "tie")
    }
    assert baseline.confusion == expected
    assert baseline.n_verdicts == VERDICTS * BLOCKS


async def test_series_gives_judge_human_accuracy_per_bucket(clean_pg: str) -> None:
    await fixture_rows().insert(clean_pg)
    series = {p.bucket: p for p in (await report_of(clean_pg)).series if p.judge == JUDGE}
    assert set(series) == {DAY - timedelta(days=d) for d in BLOCKS_BY_DAY}
    for days, blocks in BLOCKS_BY_DAY.items():
        point = series[DAY - timedelta(days=days)]
        counts = (point.gold_comparisons, point.gold_calls, point.gold_verdicts)
        assert counts == (len(BLOCK) * blocks, CALLS * blocks, VERDICTS * blocks)
        if blocks == 2:  # 16 gold comparisons: below tier preliminary, withheld
            assert point.human_agreement_tier == "insufficient"
            assert (point.call_accuracy, point.verdict_accuracy) == (None, None)
            continue
        assert point.human_agreement_tier == "preliminary"
        assert point.call_accuracy == pytest.approx(HITS / CALLS, abs=1e-12)
        assert point.call_accuracy_ci95 == stats.wilson_ci(HITS * blocks, CALLS * blocks)
        assert point.verdict_accuracy == pytest.approx(CORRECT / VERDICTS, abs=1e-12)
        assert point.verdict_accuracy_ci95 == stats.wilson_ci(CORRECT * blocks, VERDICTS * blocks)


async def test_baseline_and_series_are_the_same_on_sqlite(clean_pg: str, tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    await asyncio.to_thread(upgrade, url)
    rows = fixture_rows()
    for database in (clean_pg, url):
        await rows.insert(database)
    on_postgres, on_sqlite = await report_of(clean_pg), await report_of(url)
    assert judge_of(on_sqlite).human_baseline == judge_of(on_postgres).human_baseline
    fields = ("bucket", "gold_comparisons", "gold_calls", "call_accuracy", "verdict_accuracy")
    assert [p.model_dump(include=set(fields)) for p in on_sqlite.series] == [
        p.model_dump(include=set(fields)) for p in on_postgres.series
    ]


async def test_hourly_series_files_accuracy_by_hour_and_in_a_folded_day(clean_pg: str) -> None:
    rows = fixture_rows()
    # Today also has an unlabelled call in another hour: too few decisive calls, so today is
    # folded into one day row, which must carry its hour's gold counts.
    other_hour = BASE_TIME.replace(hour=(BASE_TIME.hour + 1) % 24)
    rows.comparison(Swap(JUDGE, "first", None), at=other_hour)
    await rows.insert(clean_pg)
    hourly = ReportFilters(since=FILTERS.since, bucket="hour")
    series = [p for p in (await report_of(clean_pg, hourly)).series if p.judge == JUDGE]
    hour = BASE_TIME.replace(minute=0, second=0)
    assert [(p.bucket, p.granularity) for p in series] == [
        (hour - timedelta(days=2), "hour"),
        (hour - timedelta(days=1), "hour"),
        (DAY, "day"),
    ]
    for point, blocks in zip(series, BLOCKS_BY_DAY.values(), strict=True):
        counts = (point.gold_comparisons, point.gold_calls, point.gold_verdicts)
        assert counts == (len(BLOCK) * blocks, CALLS * blocks, VERDICTS * blocks)
    assert series[-1].verdict_accuracy == pytest.approx(CORRECT / VERDICTS, abs=1e-12)


# The endpoint


@pytest.fixture
async def labeler(clean_pg: str) -> dict[str, str]:
    return await make_key(clean_pg, "labeler", ["label"])


async def test_labels_record_and_replace_the_response_shown_first(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    rows = Rows()
    comparison_id = rows.comparison(Swap(JUDGE, "first", "second"))
    await rows.insert(clean_pg)
    url = f"/v1/comparisons/{comparison_id}/labels"
    body: dict[str, Any] = {"winner": "A", "shown_first": "B"}
    first = await client.post(url, headers=labeler, json=body)
    assert first.status_code == 201, first.text
    assert first.json()["shown_first"] == "B"
    again = await client.post(url, headers=labeler, json={"winner": "B"})
    assert (again.status_code, again.json()["shown_first"]) == (200, None)
    wrong = await client.post(url, headers=labeler, json={**body, "shown_first": "tie"})
    assert wrong.status_code == 422
