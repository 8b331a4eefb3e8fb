"""The bias report: oracles, filters, tiers, flags, series, both backends, the sim and the route."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import httpx2
import numpy as np
import pytest
from scipy import stats as sps
from sqlalchemy import text

from app import stats
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.judging.types import SimKnobs
from app.ledger.callscope import ReportFilters
from app.reports import queries
from app.reports.bias import build_report, kappa_from_confusion
from app.reports.schemas import BiasReport, JudgeReport
from app.reports.series import build_series
from app.schema import upgrade
from tests.reports.builders import (
    BASE_TIME,
    StoredData,
    sim_runtime_judge,
    sim_swap_comparisons,
)
from tests.reports.oracle import JUDGES, Oracle, generate, holm, wilson

SINCE = BASE_TIME - timedelta(days=1)


async def compute(url: str, settings: Settings | None = None, **filters: Any) -> BiasReport:
    """The report over a database, as the route computes it."""
    engine = create_engine(url)
    try:
        async with create_sessionmaker(engine)() as session:
            filters.setdefault("since", SINCE)
            return await build_report(session, ReportFilters(**filters), settings or Settings())
    finally:
        await engine.dispose()


async def report_of(url: str, data: StoredData, **filters: Any) -> BiasReport:
    """Insert the rows, then compute the report."""
    await data.insert(url)
    return await compute(url, **filters)


def judge_of(report: BiasReport, name: str = "judge-a") -> JudgeReport:
    """One judge's entry."""
    return next(j for j in report.judges if j.judge == name)


def assert_close(got: dict[str, Any], want: dict[str, Any]) -> None:
    """Every wanted figure (numbers and intervals) equals the report's to 1e-9."""
    for key, value in want.items():
        expected = tuple(value) if isinstance(value, tuple | list) else (value,)
        actual = tuple(got[key]) if isinstance(got[key], tuple | list) else (got[key],)
        assert actual == pytest.approx(expected, rel=1e-9, abs=1e-12), key


def sigmoid(z: float) -> float:
    """The logistic function."""
    return 1 / (1 + math.exp(-z))


# Oracles over generated traffic


@pytest.fixture(scope="module")
def traffic() -> StoredData:
    """Three judges' random traffic (generated once)."""
    data = StoredData()
    generate(data)
    return data


@pytest.fixture(scope="module")
async def traffic_report(pg_url: str, traffic: StoredData) -> BiasReport:
    """The report over the generated traffic, computed once; the tables are emptied after."""
    try:
        return await report_of(pg_url, traffic)
    finally:
        engine = create_engine(pg_url)
        async with engine.begin() as conn:
            await conn.execute(
                text(
                    "TRUNCATE judge_calls, comparison_tags, comparisons, call_rollup, "
                    "judge_observations, observation_rollup, length_rollup, call_tag_rollup, "
                    "observation_tag_rollup, length_tag_rollup CASCADE"
                )
            )
        await engine.dispose()


async def test_generated_traffic_matches_the_oracles(
    traffic_report: BiasReport, traffic: StoredData
) -> None:
    report = traffic_report
    oracle = Oracle(traffic)
    assert [j.judge for j in report.judges] == sorted(JUDGES)
    position_p = holm([oracle.position(j)["p_value"] for j in sorted(JUDGES)])
    label_p = holm([oracle.label_p(j) for j in sorted(JUDGES)])
    length_p = holm([oracle.length(j)["spearman_p"] for j in sorted(JUDGES)])
    for entry, p_pos, p_lab, p_len in zip(
        report.judges, position_p, label_p, length_p, strict=True
    ):
        assert_close(entry.position.model_dump(), oracle.position(entry.judge))
        assert entry.position.p_adjusted == pytest.approx(p_pos, rel=1e-9)
        assert_close(entry.consistency.model_dump(), oracle.consistency(entry.judge))
        assert entry.label.p_adjusted == pytest.approx(p_lab, rel=1e-9)
        assert entry.length.p_adjusted == pytest.approx(p_len, rel=1e-9)


async def test_label_and_placebo_sections_match_the_oracles(
    traffic_report: BiasReport, traffic: StoredData
) -> None:
    report = traffic_report
    oracle = Oracle(traffic)
    for entry in report.judges:
        pairs = oracle.label(entry.judge)
        for pair, (k, n) in pairs.items():
            got = entry.label.by_pair[pair]
            assert got.n == n
            assert got.rate == pytest.approx(k / n)
            assert got.ci95 == pytest.approx(wilson(k, n))
            assert got.p_value == pytest.approx(sps.binomtest(k, n).pvalue)
        assert [e.p_adjusted for e in entry.label.by_pair.values()] == pytest.approx(
            holm([sps.binomtest(k, n).pvalue for _, (k, n) in sorted(pairs.items())])
        )
        k, n = (sum(v[i] for v in pairs.values()) for i in (0, 1))
        assert entry.label.n == n
        assert entry.label.second_label_pick_rate == pytest.approx(k / n)
        assert entry.label.label_p == pytest.approx(oracle.label_p(entry.judge))
        placebo = oracle.decisive(entry.judge, placebo=True)
        assert entry.placebo.n == len(placebo)
    big = judge_of(report, "j-open").placebo
    firsts = sum(c["pick"] == "first" for c in oracle.decisive("j-open", placebo=True))
    seconds = sum(k for k, _ in oracle.label("j-open", placebo=True).values())
    assert big.first_pick_rate == pytest.approx(firsts / big.n)
    assert big.p_value == pytest.approx(sps.binomtest(firsts, big.n).pvalue)
    assert big.second_label_pick_rate == pytest.approx(seconds / big.n)


async def test_calls_length_and_self_preference_match_the_oracles(
    traffic_report: BiasReport, traffic: StoredData
) -> None:
    report = traffic_report
    oracle = Oracle(traffic)
    for entry in report.judges:
        # `calls` counts every call, placebo comparisons included (issue 37).
        calls = oracle.calls(entry.judge) + oracle.calls(entry.judge, placebo=True)
        assert entry.calls.total == len(calls)
        assert entry.calls.placebo == len(oracle.calls(entry.judge, placebo=True))
        assert entry.calls.design == sum(c["design"] for c in calls)
        assert entry.calls.failed == sum(c["pick"] is None for c in calls)
        assert entry.calls.ties == sum(c["pick"] == "tie" for c in calls)
        assert sum(entry.calls.by_error_kind.values()) == entry.calls.failed
        length = oracle.length(entry.judge)
        assert entry.length.n == length["n"]
        assert entry.length.longer_win_n == length["longer_win_n"]
        assert entry.length.longer_win_rate == pytest.approx(
            length["longer"] / length["longer_win_n"]
        )
        assert (entry.length.spearman, entry.length.spearman_p) == pytest.approx(
            (length["spearman"], length["spearman_p"])
        )
    assert judge_of(report, "j-open").versions == [1, 2]
    for name, family in (("j-open", "openai"), ("j-anth", "anthropic")):
        excess = oracle.self_preference(name, family)
        section = judge_of(report, name).self_preference
        assert section.n == len(excess) >= 30
        assert section.delta == pytest.approx(float(np.mean(excess)))
        # The oracle's own s_c − o_c, one count each: the report must have counted them alike.
        assert section.ci95 == pytest.approx(
            stats.percentile_bootstrap_mean_ci_of_counts(excess, [1] * len(excess), 1000, 0)
        )
        scipy_ci = sps.bootstrap(
            (np.array(excess),), np.mean, n_resamples=1000, method="percentile", random_state=0
        ).confidence_interval
        assert section.ci95 == pytest.approx((scipy_ci.low, scipy_ci.high), abs=0.03)
    assert judge_of(report, "j-none").self_preference.reason == "no_audit_data"


def test_kappa_from_a_table_matches_sklearn() -> None:
    from sklearn.metrics import cohen_kappa_score

    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
        table = np.zeros((3, 3))
        np.add.at(table, (a, b), 1)
        assert kappa_from_confusion(table) == pytest.approx(cohen_kappa_score(a, b))


# Degenerate data


async def test_no_calls_gives_no_judges(clean_pg: str) -> None:
    report = await compute(clean_pg)
    assert (report.schema_version, report.judges, report.series) == (1, [], [])


async def test_a_judge_with_only_failed_calls_keeps_counts_and_nulls_estimates(
    clean_pg: str,
) -> None:
    data = StoredData()
    for _ in range(50):
        data.swap(None, None, error_kind="timeout")
    entry = judge_of(await report_of(clean_pg, data))
    assert entry.calls.model_dump() == {
        "total": 100,
        "design": 100,
        "parsed": 0,
        "failed": 100,
        "ties": 0,
        "tokens_in": 0,
        "tokens_out": 0,
        "reasoning_tokens": 0,
        "by_error_kind": {"timeout": 100},
        "placebo": 0,
        "failure_rate": 1.0,
        "failure_rate_ci95": stats.wilson_ci(100, 100),
        "tier": "moderate",  # the least that may raise high_failure_rate
    }
    assert (entry.position.n, entry.position.first_pick_rate) == (0, None)
    assert entry.position.reason == entry.consistency.reason == "insufficient_data"
    assert entry.length.n == 0
    assert entry.flags == ["high_failure_rate"]


async def test_all_ties_are_consistent_but_have_no_kappa(clean_pg: str) -> None:
    data = StoredData()
    for _ in range(120):
        data.swap("tie", "tie")
    entry = judge_of(await report_of(clean_pg, data))
    assert entry.position.n == 0
    assert entry.position.tier == "insufficient"
    assert entry.consistency.position_consistency == 1.0
    assert entry.consistency.order_kappa is None  # expected agreement is 1
    assert entry.length.n == 120
    assert entry.length.longer_win_n == 0
    assert entry.length.spearman is None  # a constant outcome has no rank correlation


async def test_one_class_of_pairs_only(clean_pg: str) -> None:
    data = StoredData()
    for _ in range(150):
        data.swap("first", "first")
    entry = judge_of(await report_of(clean_pg, data))
    assert entry.consistency.model_dump(
        include={"position_consistency", "primacy_pairs", "recency_pairs", "preference_fairness"}
    ) == {
        "position_consistency": 0.0,
        "primacy_pairs": 150,
        "recency_pairs": 0,
        "preference_fairness": -1.0,
    }
    assert entry.consistency.order_kappa == pytest.approx(0.0)
    assert entry.position.first_pick_rate == 1.0
    assert entry.position.test == "mcnemar"
    assert entry.position.p_value == pytest.approx(2 * 0.5**150)
    assert {"position_bias", "red_flag", "coin_toss"} <= set(entry.flags)


# Tiers and nulls


@pytest.mark.parametrize(
    ("pairs", "tier"), [(9, "insufficient"), (10, "preliminary"), (50, "moderate"), (250, "high")]
)
async def test_position_tier_counts_decisive_calls(clean_pg: str, pairs: int, tier: str) -> None:
    data = StoredData()
    for i in range(pairs):
        data.swap("first", "second", label_pair="P/Q", first_slot_second_label=bool(i % 2))
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.position.n, entry.position.tier, entry.label.tier) == (2 * pairs, tier, tier)
    withheld = tier == "insufficient"
    assert (entry.position.first_pick_rate is None) is withheld
    assert (entry.label.second_label_pick_rate is None) is withheld
    assert entry.position.reason == ("insufficient_data" if withheld else None)
    assert entry.position.test == (None if withheld else "binomial" if pairs < 20 else "mcnemar")


@pytest.mark.parametrize(
    ("pairs", "tier"),
    [(19, "insufficient"), (20, "preliminary"), (99, "preliminary"), (100, "moderate")],
)
async def test_consistency_tier_counts_swap_pairs(clean_pg: str, pairs: int, tier: str) -> None:
    data = StoredData()
    for _ in range(pairs):
        data.swap("first", "second")
    data.swap("first", None)  # not a swap pair: one call failed
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.consistency.pairs, entry.consistency.tier) == (pairs, tier)
    assert (entry.consistency.position_consistency is None) is (tier == "insufficient")
    assert entry.consistency.primacy_pairs == 0  # counts stay present


async def test_length_tier_counts_comparisons(clean_pg: str) -> None:
    data = StoredData()
    lengths = [100 + 40 * i for i in range(29)]
    for len_a in lengths:
        data.swap("first", "second", comparison_id=data.comparison(len_a=len_a, len_b=500))
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.length.n, entry.length.tier, entry.length.reason) == (
        29,
        "insufficient",
        "insufficient_data",
    )
    eligible = sum(abs(a - 500) >= max(30, 0.1 * min(a, 500)) for a in lengths)
    assert entry.length.spearman is None
    assert entry.length.longer_win_n == eligible == 26


async def test_self_preference_without_other_judges_is_insufficient(clean_pg: str) -> None:
    data = StoredData()
    for _ in range(10):
        comparison_id = data.comparison(family_a="openai", family_b="google")
        data.swap("first", "second", comparison_id=comparison_id, family="openai")
        data.swap("first", "first", judge="judge-b", comparison_id=comparison_id)
    report = await report_of(clean_pg, data)
    section = judge_of(report).self_preference
    assert (section.n, section.delta, section.reason) == (10, None, "insufficient_data")
    assert judge_of(report, "judge-b").self_preference.reason == "no_audit_data"


# Filters


async def test_filters_select_judge_version_window_tags_and_protocol(clean_pg: str) -> None:
    data = StoredData()
    late = BASE_TIME + timedelta(days=1)
    for i in range(8):
        tags = {"team": "a" if i % 2 else "b", "env": "prod" if i < 4 else "dev"}
        comparison_id = data.comparison(tags=tags, protocol="single" if i == 7 else "swap")
        data.call(
            comparison_id, judge="judge-a", version=1 + i % 2, at=late if i >= 6 else BASE_TIME
        )
        data.call(comparison_id, judge="judge-b")
    await data.insert(clean_pg)

    async def total(judge: str = "judge-a", **filters: Any) -> int:
        report = await compute(clean_pg, **filters)
        return sum(j.calls.total for j in report.judges if j.judge == judge)

    assert await total() == 8
    assert [j.judge for j in (await compute(clean_pg, judge="judge-b")).judges] == ["judge-b"]
    assert await total(judge_version=2) == 4
    assert await total(until=late) == 6
    assert await total(since=late) == 2
    assert await total(tags=(("team", "a"),)) == 4
    assert await total(tags=(("team", "a"), ("env", "prod"))) == 2
    assert await total(tags=(("team", "c"),)) == 0
    assert await total(protocol="single") == 1


async def test_running_comparisons_are_ignored_and_placebo_only_counts_as_placebo(
    clean_pg: str,
) -> None:
    data = StoredData()
    for status in ("running", "complete", "partial", "failed"):
        data.swap("first", "second", comparison_id=data.comparison(status=status))
    data.swap("first", "first", comparison_id=data.comparison(placebo=True))
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.calls.total, entry.calls.placebo) == (8, 2)  # calls count placebo's too
    assert entry.consistency.pairs == 3
    assert (entry.placebo.n, entry.length.n, entry.position.n) == (2, 3, 6)


async def test_audit_calls_count_for_their_judge(clean_pg: str) -> None:
    data = StoredData()
    data.swap("first", "second", role="audit")
    data.swap("first", "second", role="voter")
    assert judge_of(await report_of(clean_pg, data)).consistency.pairs == 2


async def test_non_design_rounds_count_only_in_calls(clean_pg: str) -> None:
    data = StoredData()
    comparison_id = data.comparison(protocol="adaptive")
    data.swap("first", "first", comparison_id=comparison_id)
    data.call(comparison_id, round_index=2, pick="second")
    data.call(comparison_id, round_index=3, pick="second")
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.calls.total, entry.calls.design, entry.position.n) == (4, 2, 2)
    assert entry.consistency.primacy_pairs == 1


# Flags


def pairs_with(
    data: StoredData,
    counts: dict[tuple[Any, Any], int],
    second_label_first: bool | None = None,
    **fields: Any,
) -> None:
    """Swap pairs in the given (AB pick, BA pick) numbers; labels alternate unless fixed."""
    for (p1, p2), n in counts.items():
        for i in range(n):
            fixed = second_label_first if second_label_first is not None else bool(i % 2)
            data.swap(p1, p2, first_slot_second_label=fixed, **fields)


async def test_low_consistency_flags_only_from_tier_moderate(clean_pg: str) -> None:
    data = StoredData()
    pairs_with(
        data,
        {("first", "second"): 60, ("first", "first"): 20, ("second", "second"): 20},
        judge="moderate-coin",
    )  # PC 0.60, n 100: the whole CI is below 0.70
    pairs_with(
        data,
        {("first", "second"): 78, ("first", "first"): 11, ("second", "second"): 11},
        judge="moderate-watch",
    )  # PC 0.78: below 0.80, CI not
    pairs_with(
        data,
        {("first", "second"): 30, ("first", "first"): 20, ("second", "second"): 20},
        judge="preliminary",
    )  # PC 0.43, but only 70 pairs
    report = await report_of(clean_pg, data)
    assert judge_of(report, "moderate-coin").flags == ["red_flag", "coin_toss"]
    assert judge_of(report, "moderate-watch").flags == ["red_flag_watch"]
    assert judge_of(report, "preliminary").flags == []


async def test_bias_flags_need_significance_effect_and_tier(clean_pg: str) -> None:
    data = StoredData()
    # Primacy 0.64 on 120 pairs: position bias; every second label picked: label bias.
    pairs_with(
        data,
        {("first", "second"): 86, ("first", "first"): 34},
        judge="biased",
        second_label_first=True,
    )
    pairs_with(
        data,
        {("first", "second"): 90, ("first", "first"): 5, ("second", "second"): 5},
        judge="fair",
    )
    pairs_with(data, {("first", "first"): 40}, judge="small")  # strong but preliminary
    report = await report_of(clean_pg, data)
    biased = judge_of(report, "biased")
    assert biased.position.significant
    assert biased.label.significant
    assert biased.flags == ["position_bias", "label_bias", "red_flag"]  # PC 0.72: CI < 0.80
    assert judge_of(report, "fair").flags == []
    small = judge_of(report, "small")
    assert small.position.significant
    assert small.position.tier == "preliminary"
    assert small.flags == []


async def test_operational_flags(clean_pg: str) -> None:
    data = StoredData()
    pairs_with(data, {("first", "second"): 18})
    data.swap("first", None, error_kind="unsupported_parameter")
    entry = judge_of(await report_of(clean_pg, data))
    assert entry.calls.by_error_kind == {"unsupported_parameter": 1}
    assert entry.flags == ["unsupported_parameter"]  # 1 failed of 38 calls is under 5%
    data = StoredData()
    pairs_with(data, {("first", "second"): 48}, judge="judge-b")
    data.swap(None, None, judge="judge-b", error_kind="server_error")
    data.swap(None, "first", judge="judge-b", error_kind="server_error")
    # 3 failed of 100 calls is 3%; 3 of 40 (7.5%) would be over 5% but below tier moderate.
    assert judge_of(await report_of(clean_pg, data), "judge-b").flags == []
    data = StoredData()
    pairs_with(data, {("first", "second"): 45}, judge="judge-c")
    for _ in range(6):  # 6 failed of 102 calls
        data.swap(None, "first", judge="judge-c", error_kind="server_error")
    assert judge_of(await report_of(clean_pg, data), "judge-c").flags == ["high_failure_rate"]


async def test_a_longer_preferring_judge_without_labels_is_described_not_flagged(
    clean_pg: str,
) -> None:
    data = StoredData()
    for i in range(150):
        len_a, len_b = 100 + 13 * i, 2000 - 13 * i
        winner_first = len_a > len_b  # A shown first in round 0
        comparison_id = data.comparison(len_a=len_a, len_b=len_b)
        data.swap(
            "first" if winner_first else "second",
            "second" if winner_first else "first",
            comparison_id=comparison_id,
        )
    entry = judge_of(await report_of(clean_pg, data))
    assert entry.length.longer_win_rate == 1.0
    assert entry.length.spearman is not None
    assert entry.length.spearman > 0.8
    assert entry.length.significant
    # Without gold labels the traffic cannot tell a length bias from better answers being
    # longer (issue 37): the judge is described, and `length_bias` waits for the baseline.
    assert entry.length.prefers_longer is True
    assert "length_bias" not in entry.flags


async def test_self_preference_flag_against_non_conflicted_judges(clean_pg: str) -> None:
    data = StoredData()
    for i in range(120):
        own_a = i % 2 == 0
        comparison_id = data.comparison(
            family_a="openai" if own_a else "google", family_b="google" if own_a else "openai"
        )
        data.swap(
            "first" if own_a else "second",
            "second" if own_a else "first",
            judge="gpt-judge",
            family="openai",
            role="audit",
            comparison_id=comparison_id,
        )
        data.swap("first", "second", judge="neutral", family="meta", comparison_id=comparison_id)
    report = await report_of(clean_pg, data)
    section = judge_of(report, "gpt-judge").self_preference
    assert section.n == 120
    assert section.tier == "moderate"
    assert section.delta == pytest.approx(0.5)  # always own (1.0) vs A half the time (0.5)
    assert section.significant
    assert "self_preference" in judge_of(report, "gpt-judge").flags
    assert judge_of(report, "neutral").self_preference.reason == "no_audit_data"


# Time series


async def test_series_by_day_marks_version_changes(clean_pg: str) -> None:
    data = StoredData()
    day0 = BASE_TIME.replace(hour=0)
    for day, version in ((0, 1), (1, 1), (2, 2)):
        for i in range(15 + day):
            data.swap(
                "first",
                "second" if i % 5 else "first",
                version=version,
                at=day0 + timedelta(days=day, hours=i % 20),
            )
    data.swap(None, "first", error_kind="timeout", version=2, at=day0 + timedelta(days=2))
    report = await report_of(clean_pg, data)
    points = report.series
    assert [p.bucket for p in points] == [day0 + timedelta(days=d) for d in range(3)]
    assert [(p.n, p.pairs, p.version, p.version_changed) for p in points] == [
        (30, 15, 1, False),
        (32, 16, 1, False),
        (35, 17, 2, True),
    ]
    assert points[0].first_pick_rate == pytest.approx(18 / 30)
    assert points[0].position_consistency is None
    assert points[0].consistency_tier == "insufficient"
    assert points[2].failure_rate == pytest.approx(1 / 36)
    assert sum(p.n for p in points) == judge_of(report).position.n


async def test_series_by_hour_only_where_every_hour_is_preliminary(clean_pg: str) -> None:
    data = StoredData()
    day0, day1 = BASE_TIME.replace(hour=0), BASE_TIME.replace(hour=0) + timedelta(days=1)
    for hour in (3, 4):
        for _ in range(10):
            data.swap("first", "second", at=day0 + timedelta(hours=hour, minutes=5))
    for hour, pairs in ((3, 10), (9, 2)):
        for _ in range(pairs):
            data.swap("first", "second", at=day1 + timedelta(hours=hour))
    report = await report_of(clean_pg, data, bucket="hour")
    assert [(p.bucket, p.granularity, p.n) for p in report.series] == [
        (day0 + timedelta(hours=3), "hour", 20),
        (day0 + timedelta(hours=4), "hour", 20),
        (day1, "day", 24),
    ]
    assert all(p.tier == "preliminary" for p in report.series)


# Bounded data for ranks and the bootstrap


def recent_traffic() -> StoredData:
    """60 comparisons over three days (20 a day, a minute apart), a conflicted judge and a
    neutral one on each; the outcome follows Δlen only on the last day."""
    data = StoredData()
    day0 = BASE_TIME.replace(hour=0)
    for i in range(60):
        at = day0 + timedelta(days=i // 20, minutes=i % 20)
        len_a = 100 + 37 * ((i * 7) % 60)
        comparison_id = data.comparison(
            len_a=len_a, len_b=1200, family_a="openai", family_b="google", at=at
        )
        a_wins = len_a > 1200 if i >= 40 else i % 2 == 0
        data.swap(
            "first" if a_wins else "second",
            "second" if a_wins else "first",
            comparison_id=comparison_id,
            family="openai",
            at=at,
        )
        data.swap(
            "first",
            "second" if i % 3 else "first",
            judge="judge-n",
            comparison_id=comparison_id,
            at=at,
        )
    return data


def spearman_of(data: StoredData, comparison_ids: set[str]) -> float:
    """scipy's ρ(Δlen, y_c) for judge-a over the given comparisons."""
    lengths = {c["id"]: c["len_a"] - c["len_b"] for c in data.comparisons}
    outcome: dict[str, list[int]] = {}
    for call in data.calls:
        if call["judge_name"] == "judge-a" and call["comparison_id"] in comparison_ids:
            outcome.setdefault(call["comparison_id"], []).append(
                {"A": 1, "B": -1, "tie": 0}[call["mapped_winner"]]
            )
    ids = sorted(outcome)
    return float(
        sps.spearmanr([lengths[i] for i in ids], [np.mean(outcome[i]) for i in ids]).statistic
    )


async def same_on_sqlite(data: StoredData, entry: JudgeReport, tmp_path: Path) -> None:
    """The judge's entry computed on SQLite from the same rows equals `entry`."""
    sqlite_url = f"sqlite+aiosqlite:///{tmp_path}/x.db"
    await asyncio.to_thread(upgrade, sqlite_url)
    await data.insert(sqlite_url)
    assert judge_of(await compute(sqlite_url)) == entry


async def test_ranks_use_the_recent_days_when_a_day_fits_the_bound(
    clean_pg: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(queries, "MAX_OBSERVATIONS", 50)  # 20 comparisons a day: two days fit
    data = recent_traffic()
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.length.n, entry.length.n_used, entry.length.sampled) == (60, 40, True)
    last_days = {c["id"] for c in data.comparisons[20:]}
    assert entry.length.spearman == pytest.approx(spearman_of(data, last_days))
    eligible = sum(
        abs(c["len_a"] - 1200) >= max(30, 0.1 * min(c["len_a"], 1200)) for c in data.comparisons
    )
    assert entry.length.longer_win_n == eligible > 40  # counts still use all the data
    await same_on_sqlite(data, entry, tmp_path)


async def test_ranks_and_bootstrap_use_exactly_the_most_recent_observations(
    clean_pg: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(queries, "MAX_OBSERVATIONS", 15)  # a single day (20) exceeds it
    data = recent_traffic()
    entry = judge_of(await report_of(clean_pg, data))
    assert (entry.length.n, entry.length.n_used, entry.length.sampled) == (60, 15, True)
    recent = {c["id"] for c in data.comparisons[45:]}
    assert entry.length.spearman == pytest.approx(spearman_of(data, recent))
    section = entry.self_preference
    assert (section.n, section.n_used, section.sampled) == (60, 15, True)
    await same_on_sqlite(data, entry, tmp_path)


# PostgreSQL and SQLite


async def test_postgresql_and_sqlite_give_the_same_report(
    clean_pg: str, traffic: StoredData, tmp_path: Path
) -> None:
    sqlite_url = f"sqlite+aiosqlite:///{tmp_path}/x.db"
    await asyncio.to_thread(upgrade, sqlite_url)
    await traffic.insert(sqlite_url)
    await traffic.insert(clean_pg)
    for bucket in ("day", "hour"):
        reports = [await compute(url, bucket=bucket) for url in (clean_pg, sqlite_url)]
        dumped = [r.model_dump(mode="json", exclude={"generated_at"}) for r in reports]
        assert dumped[0] == dumped[1]
        assert len(dumped[0]["series"]) > 3
    filtered = [
        await compute(
            url, tags=(("team", "a"),), judge="j-open", until=BASE_TIME + timedelta(days=1)
        )
        for url in (clean_pg, sqlite_url)
    ]
    assert filtered[0].model_dump(exclude={"generated_at"}) == filtered[1].model_dump(
        exclude={"generated_at"}
    )


# The sim judge


# (π, λ, comparisons): two biased settings, and no bias at all.
SIM_SETTINGS = {"sim-a": (0.5, 0.3, 2000), "sim-b": (-0.4, 0.6, 2000), "sim-0": (0.0, 0.0, 1000)}
SIM_PLACEBO = 300


@pytest.fixture(scope="module")
async def sim_report_data() -> StoredData:
    """Per setting, real sim comparisons of equal quality and 300 placebo ones (fixed seeds);
    plus an unbiased judge on 300 comparisons with quality gaps."""
    data = StoredData()
    for seed, (name, (pi, lam, count)) in enumerate(SIM_SETTINGS.items()):
        judge = sim_runtime_judge(name, SimKnobs(position_bias=pi, label_bias=lam))
        await sim_swap_comparisons(data, judge, count, seed=seed)
        await sim_swap_comparisons(
            data,
            judge,
            SIM_PLACEBO,
            text_a="Same.\n[sim q=0]",
            text_b="Same.\n[sim q=0]",
            seed=200 + seed,
        )
    unbiased = sim_runtime_judge("sim-q", SimKnobs())
    for i in range(300):
        q = 1 if i % 2 else -1
        # Equal lengths: a length difference that tracked quality would read as length bias.
        await sim_swap_comparisons(
            data,
            unbiased,
            1,
            text_a=f"One.\n[sim q={q:+d}]",
            text_b=f"Two.\n[sim q={-q:+d}]",
            seed=1000 + i,
        )
    return data


async def test_sim_rates_match_the_logit_model(clean_pg: str, sim_report_data: StoredData) -> None:
    report = await report_of(clean_pg, sim_report_data)
    for name, (pi, lam, count) in SIM_SETTINGS.items():
        entry = judge_of(report, name)
        first = (sigmoid(pi + lam) + sigmoid(pi - lam)) / 2
        second = (sigmoid(lam + pi) + sigmoid(lam - pi)) / 2
        for got, want, n in (
            (entry.position.first_pick_rate, first, entry.position.n),
            (entry.label.second_label_pick_rate, second, entry.label.n),
            (entry.placebo.first_pick_rate, first, entry.placebo.n),
            (entry.placebo.second_label_pick_rate, second, entry.placebo.n),
        ):
            assert got is not None
            assert abs(got - want) < 3 * math.sqrt(want * (1 - want) / n), (name, got, want)
        assert (entry.position.n, entry.placebo.n) == (2 * count, 2 * SIM_PLACEBO)
    for name in ("sim-a", "sim-b"):
        assert {"position_bias", "label_bias"} <= set(judge_of(report, name).flags)
    for name in ("sim-0", "sim-q"):
        neutral = judge_of(report, name)
        assert not (neutral.position.significant)
        assert not (neutral.label.significant)
        assert not (neutral.length.significant)
        assert not (neutral.self_preference.significant)
    # Between equal responses an unbiased judge is a coin toss, and PC says so (0.5).
    assert judge_of(report, "sim-0").flags == ["red_flag", "coin_toss"]
    assert judge_of(report, "sim-q").flags == []


async def test_placebo_measures_pure_position_bias(clean_pg: str) -> None:
    data = StoredData()
    judge = sim_runtime_judge("sim-p", SimKnobs(position_bias=0.8))
    await sim_swap_comparisons(
        data, judge, 400, text_a="Same.\n[sim q=0]", text_b="Same.\n[sim q=0]", seed=5
    )
    entry = judge_of(await report_of(clean_pg, data), "sim-p")
    assert entry.placebo.n == 800
    assert (entry.calls.total, entry.calls.placebo, entry.position.n) == (800, 800, 0)
    rate, want = entry.placebo.first_pick_rate, sigmoid(0.8)
    assert rate is not None
    assert abs(rate - want) < 3 * math.sqrt(want * (1 - want) / 800)
    assert entry.placebo.p_value is not None
    assert entry.placebo.p_value < 1e-6


async def test_length_biased_sim_shows_length_bias(clean_pg: str) -> None:
    data = StoredData()
    judge = sim_runtime_judge("sim-long", SimKnobs(length_bias=1.5))
    rng = np.random.default_rng(1)
    for i, (len_a, len_b) in enumerate(rng.integers(1, 150, size=(300, 2))):
        await sim_swap_comparisons(
            data,
            judge,
            1,
            text_a="word " * len_a + "\n[sim q=0]",
            text_b="word " * len_b + "\n[sim q=0]",
            seed=i,
        )
    entry = judge_of(await report_of(clean_pg, data), "sim-long")
    assert entry.length.spearman is not None
    assert entry.length.spearman > 0.3
    assert entry.length.longer_win_rate is not None
    assert entry.length.longer_win_rate > 0.7
    assert entry.length.prefers_longer is True
    assert "length_bias" not in entry.flags  # no labels: descriptive only


# The route


SIM_TOML = """
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-a"

[judges.sim]
position_bias = 0.5
"""


async def test_route_serves_the_report_with_read_scope(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    reader: dict[str, str],
) -> None:
    data = StoredData()
    pairs_with(data, {("first", "second"): 30})
    await data.insert(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    response = await client.get(
        "/v1/bias-report", headers=reader, params={"judge": "judge-a", "bucket": "hour"}
    )
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["schema_version"] == 1
    assert body["judges"][0]["consistency"]["pairs"] == 30
    assert body["filters"]["judge"] == "judge-a"
    assert body["filters"]["bucket"] == "hour"
    alias = await client.get("/bias-report", headers=reader)
    assert alias.status_code == 200
    assert alias.json()["judges"] == body["judges"]
    assert (await client.get("/v1/bias-report")).status_code == 401
    bad = await client.get("/v1/bias-report", headers=reader, params={"tag": "nocolon"})
    assert bad.status_code == 422
    schema = (await client.get("/openapi.json")).json()
    assert schema["paths"]["/v1/bias-report"]["get"]["operationId"] == "get_bias_report"
    assert "/bias-report" not in schema["paths"]


async def test_route_defaults_to_the_last_30_days(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    reader: dict[str, str],
) -> None:
    data = StoredData()
    data.swap("first", "second", at=BASE_TIME - timedelta(days=40))
    data.swap("first", "second")
    await data.insert(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    body = (await client.get("/v1/bias-report", headers=reader)).json()
    assert body["judges"][0]["calls"]["total"] == 2
    assert body["filters"]["until"] is None
    assert body["filters"]["since"] is not None
    old = (
        await client.get(
            "/v1/bias-report",
            headers=reader,
            params={"since": (BASE_TIME - timedelta(days=41)).isoformat()},
        )
    ).json()
    assert old["judges"][0]["calls"]["total"] == 4


async def test_compared_through_the_api_then_reported(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(judges_toml=SIM_TOML))
    for i in range(50):
        response = await client.post(
            "/v1/compare",
            headers=comparer,
            json={
                "prompt": f"Question {i}?",
                "response_a": f"Answer A{i}.\n[sim q=0]",
                "response_b": f"Answer B{i} longer.\n[sim q=0]",
                "tags": {"run": "e2e"},
            },
        )
        assert response.status_code == 200, response.text
    body = (await client.get("/v1/bias-report", headers=comparer, params={"tag": "run:e2e"})).json()
    entry = body["judges"][0]
    assert entry["judge"] == "sim-a"
    assert entry["calls"]["total"] == 100
    assert entry["consistency"]["pairs"] == 50
    assert entry["position"]["n"] == 100
    assert entry["length"]["n"] == 50
    assert entry["placebo"]["n"] == 0
    assert sum(p["n"] for p in body["series"]) == 100


def test_a_bucket_with_pairs_but_no_counted_calls_is_no_point() -> None:
    """Rollup rows left without their calls (a purge, a partial truncate) must not be a 500."""
    pairs_only = SimpleNamespace(judge="j", bucket=490_000, pairs=3, consistent=2)
    assert build_series([], [pairs_only], "hour") == []
