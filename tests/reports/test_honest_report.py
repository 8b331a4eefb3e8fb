"""Issue 21, the report's part: provider models, validated filters, flag tiers, a Wilson CI for
every rate, the length section's adjusted p-values beside their raw ones."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any

import httpx2
import pytest

from app import stats
from app.comparisons.protocols import Pick
from app.config import Settings
from app.db import utcnow
from app.errors import ValidationProblem
from app.reports.series import bucket_start, build_series
from tests.reports.builders import BASE_TIME, StoredData
from tests.reports.oracle import holm
from tests.reports.test_bias_report import judge_of, pairs_with, report_of


def with_provider_model(data: StoredData, model: str | None, calls: int = 2) -> None:
    """The provider reported `model` (None: named none) on the last `calls` calls."""
    for row in data.calls[-calls:]:
        row["provider_model"] = model


# Flags and tiers


async def test_high_failure_rate_needs_tier_moderate_of_calls(clean_pg: str) -> None:
    data = StoredData()
    pairs_with(data, {("first", "second"): 2}, judge="few")
    data.swap(None, "first", judge="few", error_kind="server_error")  # 1 failed of 6 calls
    pairs_with(data, {("first", "second"): 45}, judge="many")
    for _ in range(5):
        data.swap(None, None, judge="many", error_kind="server_error")  # 10 failed of 100 calls
    report = await report_of(clean_pg, data)
    few, many = judge_of(report, "few"), judge_of(report, "many")
    assert (few.calls.total, few.calls.failed, few.calls.tier) == (6, 1, "insufficient")
    assert few.flags == []
    assert (many.calls.total, many.calls.failed, many.calls.tier) == (100, 10, "moderate")
    assert many.flags == ["high_failure_rate"]
    assert many.calls.failure_rate == pytest.approx(0.1)
    assert many.calls.failure_rate_ci95 == stats.wilson_ci(10, 100)


# Every rate has its Wilson CI

# (path to a section, rate field, its CI field) of every rate the report shows.
RATES = [
    (("calls",), "failure_rate", "failure_rate_ci95"),
    (("position",), "first_pick_rate", "ci95"),
    (("position",), "tie_rate", "tie_rate_ci95"),
    (("consistency",), "position_consistency", "ci95"),
    (("label",), "second_label_pick_rate", "ci95"),
    (("label", "by_pair", "P/Q"), "rate", "ci95"),
    (("placebo",), "first_pick_rate", "ci95"),
    (("placebo",), "second_label_pick_rate", "second_label_ci95"),
    (("length",), "longer_win_rate", "ci95"),
]
SERIES_RATES = [
    ("first_pick_rate", "first_pick_rate_ci95"),
    ("position_consistency", "position_consistency_ci95"),
    ("tie_rate", "tie_rate_ci95"),
    ("failure_rate", "failure_rate_ci95"),
]


def section(entry: dict[str, Any], path: tuple[str, ...]) -> dict[str, Any]:
    """A nested section of a judge's entry."""
    for key in path:
        entry = entry[key]
    return entry


def assert_wilson(rate: float, ci: list[float], n: int) -> None:
    """`ci` is the Wilson interval of `rate` over n (k recovered from the rate)."""
    assert ci == pytest.approx(stats.wilson_ci(round(rate * n), n))


async def test_every_rate_of_the_report_has_its_wilson_ci(clean_pg: str) -> None:
    data = StoredData()
    consistent: tuple[Pick, Pick] = ("first", "second")
    primacy: tuple[Pick, Pick] = ("first", "first")
    ties: tuple[Pick, Pick] = ("tie", "tie")
    picks = [consistent] * 30 + [primacy] * 10 + [ties] * 5
    for i, (p1, p2) in enumerate(picks):
        comparison_id = data.comparison(len_a=200, len_b=600 if i % 3 else 100)
        data.swap(p1, p2, comparison_id=comparison_id, first_slot_second_label=bool(i % 2))
    data.swap(None, "first", error_kind="timeout")
    for _ in range(25):
        placebo = data.comparison(placebo=True)
        data.swap("first", "second", comparison_id=placebo)
    report = (await report_of(clean_pg, data)).model_dump(mode="json")
    entry = report["judges"][0]
    for path, rate, ci in RATES:
        where = section(entry, path)
        assert where[rate] is not None, (path, rate)
        assert where[ci] is not None, (path, ci)
    calls = entry["calls"]
    assert_wilson(calls["failure_rate"], calls["failure_rate_ci95"], calls["total"])
    position = entry["position"]
    design_parsed = 2 * 45 + 1
    assert_wilson(position["tie_rate"], position["tie_rate_ci95"], design_parsed)
    [point] = report["series"]
    for rate, ci in SERIES_RATES:
        assert point[rate] is not None, rate
        assert point[ci] is not None, ci
    assert_wilson(point["first_pick_rate"], point["first_pick_rate_ci95"], point["n"])
    assert_wilson(point["position_consistency"], point["position_consistency_ci95"], point["pairs"])
    assert_wilson(point["failure_rate"], point["failure_rate_ci95"], point["calls"])


# The length section's adjusted p-values sit beside their raw ones


async def test_length_adjusted_p_values_sit_next_to_the_p_they_adjust(clean_pg: str) -> None:
    data = StoredData()
    for judge, slope in (("judge-a", 13), ("judge-b", 7)):
        for i in range(60):
            len_a, len_b = 100 + slope * i, 1000 - slope * i
            comparison_id = data.comparison(len_a=len_a, len_b=len_b)
            longer_first = (len_a > len_b) != (i % 4 == 0)
            data.swap(
                "first" if longer_first else "second",
                "second" if longer_first else "first",
                judge=judge,
                comparison_id=comparison_id,
            )
    report = (await report_of(clean_pg, data)).model_dump(mode="json")
    sections = [entry["length"] for entry in report["judges"]]
    for length in sections:
        keys = list(length)
        assert keys[keys.index("p_value") + 1] == "p_value_adjusted"
        assert keys[keys.index("spearman_p") + 1] == "spearman_p_adjusted"
        assert length["spearman_p_adjusted"] == length["p_adjusted"]
    want_spearman = holm([s["spearman_p"] for s in sections])
    want_binomial = holm([s["p_value"] for s in sections])
    assert [s["spearman_p_adjusted"] for s in sections] == pytest.approx(want_spearman)
    assert [s["p_value_adjusted"] for s in sections] == pytest.approx(want_binomial)


# Provider models


async def test_provider_models_per_judge_and_their_changes_in_the_series(clean_pg: str) -> None:
    data = StoredData()
    day0 = BASE_TIME.replace(hour=0)
    plan = [(0, "gpt-4o-2024-05-13"), (1, "gpt-4o-2024-05-13"), (2, "gpt-4o-2024-08-06")]
    for day, model in plan:
        for i in range(12):
            data.swap("first", "second", at=day0 + timedelta(days=day, hours=i))
            with_provider_model(data, model)
    data.swap("first", "second", judge="judge-b", at=day0)
    with_provider_model(data, None)  # the provider named no model
    report = await report_of(clean_pg, data)
    assert judge_of(report).provider_models == ["gpt-4o-2024-05-13", "gpt-4o-2024-08-06"]
    assert judge_of(report, "judge-b").provider_models == []
    series = [p for p in report.series if p.judge == "judge-a"]
    assert [(p.provider_models, p.provider_model_changed, p.version_changed) for p in series] == [
        (["gpt-4o-2024-05-13"], False, False),
        (["gpt-4o-2024-05-13"], False, False),
        (["gpt-4o-2024-08-06"], True, False),
    ]
    narrow = await report_of(
        clean_pg, StoredData(), since=day0 + timedelta(days=2), until=day0 + timedelta(days=3)
    )
    assert judge_of(narrow).provider_models == ["gpt-4o-2024-08-06"]


async def test_a_bucket_with_two_provider_models_is_a_change(clean_pg: str) -> None:
    data = StoredData()
    for i in range(10):
        data.swap("first", "second", at=BASE_TIME + timedelta(minutes=i))
        with_provider_model(data, "model-x" if i < 5 else "model-y")
    report = await report_of(clean_pg, data)
    [point] = report.series
    assert (point.provider_models, point.provider_model_changed) == (
        ["model-x", "model-y"],
        True,
    )


# Filters


def test_relative_moments_parse_as_ages_before_now() -> None:
    from app.params import parse_moment  # here: a missing name fails this test, not the module

    now = utcnow()
    assert parse_moment("7d", "since", now=now) == now - timedelta(days=7)
    assert parse_moment("24h", "since", now=now) == now - timedelta(hours=24)
    assert parse_moment("30m", "until", now=now) == now - timedelta(minutes=30)
    assert parse_moment("2026-01-02T03:04:05+01:00", "since", now=now).isoformat() == (
        "2026-01-02T02:04:05+00:00"
    )
    assert parse_moment("2026-01-02", "since", now=now).isoformat() == "2026-01-02T00:00:00+00:00"
    # Unix seconds, as these parameters took them before they took ages.
    assert parse_moment("1700000000", "since", now=now).isoformat() == "2023-11-14T22:13:20+00:00"
    assert parse_moment("-1", "since", now=now).isoformat() == "1969-12-31T23:59:59+00:00"
    for bad in ("7w", "yesterday", "-1d", "", "1e9", "99999999999999999999", "\u00b2"):
        with pytest.raises(ValidationProblem, match="/since"):
            parse_moment(bad, "since", now=now)


async def test_report_filters_are_validated(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    reader: dict[str, str],
) -> None:
    data = StoredData()
    pairs_with(data, {("first", "second"): 3}, judge="retired-judge")  # calls, no config
    await data.insert(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory())

    async def status(**params: str) -> int:
        response = await client.get("/v1/bias-report", headers=reader, params=params)
        return response.status_code

    assert await status(protocol="swap") == 200
    assert await status(protocol="swapp") == 422
    assert await status(bucket="week") == 422
    assert await status(judge="sim-b") == 200  # configured, no calls yet
    assert await status(judge="retired-judge") == 200  # stored calls, no longer configured
    assert await status(judge="no-such-judge") == 422
    problem = (
        await client.get("/v1/bias-report", headers=reader, params={"judge": "no-such-judge"})
    ).json()
    assert "/judge" in problem["detail"]


async def test_report_takes_relative_times_as_the_cli_does(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    reader: dict[str, str],
) -> None:
    data = StoredData()
    data.swap("first", "second", at=utcnow() - timedelta(days=10))
    data.swap("first", "second", at=utcnow() - timedelta(days=3))
    await data.insert(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    before = utcnow()
    response = await client.get("/v1/bias-report", headers=reader, params={"since": "7d"})
    after = utcnow()
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["judges"][0]["calls"]["total"] == 2
    since = datetime.fromisoformat(body["filters"]["since"])
    assert before - timedelta(days=7) <= since <= after - timedelta(days=7)
    older = await client.get(
        "/v1/bias-report", headers=reader, params={"since": "14d", "until": "5d"}
    )
    assert older.json()["judges"][0]["calls"]["total"] == 2
    wrong = await client.get("/v1/bias-report", headers=reader, params={"since": "7 days"})
    assert wrong.status_code == 422


def test_folded_hours_carry_the_provider_models_of_their_hours() -> None:
    """An hourly series folds sparse hours into their day: the day shows every model of them."""
    first_hour = 490_000  # hours since the epoch, as the cube's hourly rows carry them
    counts = dict.fromkeys(("calls", "failed", "design_parsed", "decisive", "first"), 2)
    rows = [
        SimpleNamespace(judge="j", bucket=first_hour + h, version=1, placebo=False,
                        design_ties=0, **counts)
        for h in (1, 2)
    ]  # fmt: skip
    hours = [bucket_start(first_hour + h) for h in (1, 2)]
    models = {("j", hours[0]): {"model-x"}, ("j", hours[1]): {"model-y"}}
    [day] = build_series(rows, [], "hour", models)
    assert day.granularity == "day"
    assert (day.provider_models, day.provider_model_changed) == (["model-x", "model-y"], True)


async def test_failed_calls_on_placebo_comparisons_count_in_calls_and_raise_the_flag(
    clean_pg: str,
) -> None:
    """Placebo comparisons are out of every bias statistic, but a failed call is a failed call:
    a judge failing every placebo call shows them all, its failure rate and the flag."""
    data = StoredData()
    for _ in range(60):
        placebo = data.comparison(placebo=True)
        data.swap(None, None, judge="broken", comparison_id=placebo, error_kind="server_error")
    pairs_with(data, {("first", "second"): 30}, judge="mixed")
    for _ in range(10):
        placebo = data.comparison(placebo=True)
        data.swap("first", None, judge="mixed", comparison_id=placebo, error_kind="timeout")
    report = await report_of(clean_pg, data)
    broken, mixed = judge_of(report, "broken"), judge_of(report, "mixed")
    assert (broken.calls.total, broken.calls.failed, broken.calls.placebo) == (120, 120, 120)
    assert broken.calls.by_error_kind == {"server_error": 120}
    assert (broken.calls.failure_rate, broken.calls.tier) == (1.0, "moderate")
    assert "high_failure_rate" in broken.flags
    assert (mixed.calls.total, mixed.calls.failed, mixed.calls.parsed) == (80, 10, 70)
    assert (mixed.calls.design, mixed.calls.ties) == (80, 0)
    assert mixed.calls.failure_rate == pytest.approx(10 / 80)
    # Off placebo, the bias statistics are unchanged: 60 decisive design calls, none placebo.
    assert (mixed.position.n, mixed.placebo.n) == (60, 10)
    series = {p.judge: p for p in report.series}
    assert (series["broken"].calls, series["broken"].failure_rate) == (120, 1.0)
    assert (series["mixed"].calls, series["mixed"].n) == (80, 60)
