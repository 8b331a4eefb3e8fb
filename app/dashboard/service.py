"""Dashboard pages: the JSON report's figures (same query functions), shaped into tables and charts.

Each page builder returns a `PageView`: the template's context and its charts. The HTML route
renders the charts to SVG; the chart route returns one chart's spec (with its data) as JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.dashboard import charts
from app.dashboard.cache import PageCache, PageView
from app.dashboard.charts import Chart, Row
from app.dashboard.filters import PageFilters
from app.dashboard.usage import usage_charts
from app.leaderboard.params import leaderboard_query
from app.leaderboard.schemas import Leaderboard
from app.leaderboard.service import LeaderboardCache, get_leaderboard
from app.reports.bias import COIN_TOSS_FLOOR, HIGH_FAILURE_SHARE, RED_FLAG_FLOOR, build_report
from app.reports.schemas import BiasReport, JudgeReport, PlaceboSection, SeriesPoint
from app.scoring import queries as scoring_queries
from app.scoring.report import scoring_sections
from app.scoring.schemas import ScoringSections
from app.stats import Z95

HALF = [(0.5, "#555", "0.5: no preference")]
PC_FLOORS = [
    (RED_FLAG_FLOOR, "#e08214", "red_flag floor 0.80"),
    (COIN_TOSS_FLOOR, "#b2182b", "coin_toss floor 0.70"),
]
# A report section as a template reads it: the JSON the API answers, so a page shows exactly
# what `GET /v1/bias-report` says. Python code here reads the typed report instead.
Json = dict[str, Any]
_TIME = TypeAdapter(datetime)


def json_time(moment: datetime) -> str:
    """A time as the API's JSON spells it (the charts' and templates' bucket strings)."""
    return str(_TIME.dump_python(moment, mode="json"))


@dataclass(frozen=True)
class Sources:
    """What page builders read from: a session, the session factory and the shared caches."""

    session: AsyncSession
    sessionmaker: async_sessionmaker[AsyncSession]
    settings: Settings
    leaderboard_cache: LeaderboardCache
    pages: PageCache


def with_ci(row: Row, ci: Sequence[float] | None) -> Row:
    """The row with its 95% interval as `ci_low`/`ci_high` (the charts' whisker fields)."""
    row["ci_low"], row["ci_high"] = (ci[0], ci[1]) if ci else (None, None)
    return row


async def bias_report(sources: Sources, filters: PageFilters) -> BiasReport:
    """The bias report exactly as `GET /v1/bias-report` computes it."""
    return await build_report(sources.session, filters.report(), sources.settings)


def failure_rate(judge: JudgeReport) -> float | None:
    """Failed calls over all calls of the judge."""
    calls = judge.calls
    return calls.failed / calls.total if calls.total else None


def overview_rows(report: BiasReport) -> list[Row]:
    """One row per judge: the overview table and its charts' data."""
    rows = []
    for judge in report.judges:
        position, consistency = judge.position, judge.consistency
        row = with_ci(
            {
                "judge": judge.judge,
                "n": position.n,
                "first_pick_rate": position.first_pick_rate,
                "p_adjusted": position.p_adjusted,
                "position_tier": position.tier,
                "pairs": consistency.pairs,
                "position_consistency": consistency.position_consistency,
                "pc_ci": consistency.ci95,
                "consistency_tier": consistency.tier,
                "calls": judge.calls.total,
                "failure_rate": failure_rate(judge),
                "failed": f"{judge.calls.failed} of {judge.calls.total} calls failed",
                "flags": list(judge.flags),
            },
            position.ci95,
        )
        rows.append(row)
    return rows


def series_rows(series: Sequence[SeriesPoint], measure: str) -> list[Row]:
    """One row per judge and day of a measure with its Wilson CI, the count and tier it rests
    on, and whether the judge's version or provider model changed that day."""
    rows = []
    for point in series:
        if measure == "first_pick_rate":
            figures = {"n": point.n, measure: point.first_pick_rate, "tier": point.tier}
            ci = point.first_pick_rate_ci95
        else:
            figures = {"pairs": point.pairs, measure: point.position_consistency}
            figures["tier"], ci = point.consistency_tier, point.position_consistency_ci95
        row = {
            "bucket": json_time(point.bucket),
            "judge": point.judge,
            "version": point.version,
            "provider_models": ", ".join(point.provider_models),
            **figures,
            "version_changed": point.version_changed,
            "provider_model_changed": point.provider_model_changed,
        }
        rows.append(with_ci(row, ci))
    return rows


def change_days(series: Sequence[SeriesPoint]) -> list[Row]:
    """Per judge, the days its version and its provider model changed (the charts' markers,
    as text for readers who cannot see them)."""
    days: dict[str, Row] = {}
    for point in series:
        entry = days.setdefault(point.judge, {"judge": point.judge, "version": [], "model": []})
        if point.version_changed:
            entry["version"].append(json_time(point.bucket)[:10])
        if point.provider_model_changed:
            entry["model"].append(json_time(point.bucket)[:10])
    return [entry for entry in days.values() if entry["version"] or entry["model"]]


def overview_series_charts(series: Sequence[SeriesPoint]) -> list[Chart]:
    """Change over time: each judge's first-pick rate and PC per day with CIs and markers."""
    return [
        Chart(
            "series_first_pick",
            "First-pick rate by day and judge (95% CI; version changes in purple, "
            "provider-model changes in green)",
            charts.judges_series_chart(
                "First-pick rate by day",
                series_rows(series, "first_pick_rate"),
                "first_pick_rate",
                HALF,
            ),
        ),
        Chart(
            "series_consistency",
            "Position consistency by day and judge (95% CI) against the floors",
            charts.judges_series_chart(
                "Position consistency by day",
                series_rows(series, "position_consistency"),
                "position_consistency",
                PC_FLOORS,
            ),
        ),
    ]


async def overview_page(sources: Sources, filters: PageFilters) -> PageView:
    """Every judge's first-pick rate, PC against the floors, flags and failure rate."""
    report = await bias_report(sources, filters)
    rows = overview_rows(report)
    pc_rows = [
        with_ci(
            {"judge": r["judge"], "position_consistency": r["position_consistency"]}, r["pc_ci"]
        )
        for r in rows
    ]
    return PageView(
        "Overview",
        "overview.html.j2",
        {"rows": rows, "changes": change_days(report.series)},
        [
            Chart(
                "first_pick",
                "First-pick rate (95% CI) against 0.5",
                charts.interval_chart(
                    "First-pick rate", rows, "judge", "first_pick_rate", HALF, (0, 1)
                ),
            ),
            Chart(
                "consistency",
                "Position consistency (95% CI) against the 0.80 and 0.70 floors",
                charts.interval_chart(
                    "Position consistency",
                    pc_rows,
                    "judge",
                    "position_consistency",
                    PC_FLOORS,
                    (0, 1),
                ),
            ),
            Chart(
                "failures",
                "Failure rate",
                charts.bar_chart(
                    "Failure rate",
                    rows,
                    "judge",
                    "failure_rate",
                    [(HIGH_FAILURE_SHARE, "#b2182b", "high_failure_rate 5%")],
                    label="failed",
                ),
                empty="No calls in this window.",
            ),
            *overview_series_charts(report.series),
            *await usage_charts(sources.session, filters.report()),
        ],
    )


def label_rows(judge: JudgeReport) -> list[Row]:
    """Second-label pick rate per label pair."""
    return [
        with_ci(
            {
                "pair": pair,
                "rate": entry.rate,
                "n": entry.n,
                "p_adjusted": entry.p_adjusted,
                "tier": entry.tier,
            },
            entry.ci95,
        )
        for pair, entry in judge.label.by_pair.items()
    ]


def placebo_rows(placebo: PlaceboSection) -> list[Row]:
    """Position and label preference on identical texts."""
    return [
        with_ci({"measure": "first-pick rate", "rate": placebo.first_pick_rate}, placebo.ci95),
        with_ci(
            {"measure": "second-label rate", "rate": placebo.second_label_pick_rate},
            placebo.second_label_ci95,
        ),
    ]


def reliability_rows(judge: JudgeReport) -> list[Row]:
    """Reliability deciles of every confidence source (sources are never mixed)."""
    sources = judge.confidence.by_source if judge.confidence is not None else {}
    return [
        {"source": source, **decile.model_dump(mode="json")}
        for source, entry in sorted(sources.items())
        for decile in entry.reliability
    ]


async def judge_page(sources: Sources, filters: PageFilters) -> PageView:
    """One judge over time, with label, placebo, length, human agreement and confidence."""
    report = await bias_report(sources, filters)
    judge = next((j for j in report.judges if j.judge == filters.judge), None)
    points = [p for p in report.series if p.judge == filters.judge]
    series = [p.model_dump(mode="json") for p in points]
    changes = [json_time(p.bucket) for p in points if p.version_changed]
    model_changes = [json_time(p.bucket) for p in points if p.provider_model_changed]
    view = PageView(
        f"Judge {filters.judge}",
        "judge.html.j2",
        {
            "judge": judge.model_dump(mode="json") if judge is not None else None,
            "series": series,
            "change_days": [c[:10] for c in changes],
            "model_change_days": [c[:10] for c in model_changes],
            # The window the report was built for (a cached page keeps it): the explorer links
            # behind its figures use it, so their totals are the figures.
            # Without an `until`, the report counted calls up to when it was built.
            "report_window": {
                "since": json_time(report.filters.since),
                "until": json_time(report.filters.until or report.generated_at),
            },
        },
    )
    if judge is None:
        return view
    view.charts = [
        *overview_series_charts(points),
        Chart(
            "labels",
            "Second-label pick rate by label pair (95% CI)",
            charts.interval_chart(
                "Second-label pick rate", label_rows(judge), "pair", "rate", HALF, (0, 1)
            ),
        ),
        Chart(
            "placebo",
            "Placebo comparisons (identical texts)",
            charts.interval_chart(
                "Placebo", placebo_rows(judge.placebo), "measure", "rate", HALF, (0, 1)
            ),
        ),
    ]
    if reliability_rows(judge):
        view.charts.append(
            Chart(
                "reliability",
                "Confidence reliability",
                charts.reliability_chart("Reliability", reliability_rows(judge)),
            )
        )
    return view


async def scoring_report(sources: Sources, filters: PageFilters) -> ScoringSections:
    """Reviewer offsets, position-score and length-score sections, as the report computes them."""
    return await scoring_sections(
        sources.session, filters.scoring(), sources.settings.reviewer_margin
    )


async def margins(sources: Sources, filters: PageFilters) -> dict[str, float]:
    """τ per rubric: the setting, else a tenth of the rubric's range."""
    found = await scoring_queries.rubrics(sources.session, filters.scoring())
    fixed = sources.settings.reviewer_margin
    return {
        r.rubric: fixed if fixed is not None else 0.1 * (float(r.high) - float(r.low))
        for r in found
    }


async def reviewers_page(sources: Sources, filters: PageFilters) -> PageView:
    """Reviewer offsets with CIs inside the ±τ band, and their classifications."""
    reviewers = (await scoring_report(sources, filters)).reviewers
    taus = await margins(sources, filters)
    shown = [r.model_dump(mode="json") for r in reviewers]
    view = PageView("Reviewers", "reviewers.html.j2", {"reviewers": shown, "taus": taus})
    for rubric in sorted({r.rubric for r in reviewers}):
        rows = [
            with_ci(
                {
                    "reviewer": r.reviewer,
                    "offset": r.offset,
                    "classification": r.classification or "not estimated",
                },
                r.ci95,
            )
            for r in reviewers
            if r.rubric == rubric
        ]
        view.charts.append(
            Chart(
                f"offsets_{rubric[:12]}",
                f"Offsets on rubric {rubric[:12]}",
                charts.band_chart("Reviewer offset", rows, taus.get(rubric, 0)),
            )
        )
    if not view.charts:
        view.charts.append(
            Chart("offsets", "Reviewer offsets", None, "No informative scores in this window.")
        )
    return view


async def position_score_page(sources: Sources, filters: PageFilters) -> PageView:
    """Position effects with CIs, the F-test, and the length-score correlation."""
    sections = await scoring_report(sources, filters)
    position, length = sections.position_score, sections.length_score
    effects = [
        with_ci({"position": f"position {p.position}", "effect": p.effect, "n": p.n}, p.ci95)
        for p in position.by_position
    ]
    pooled = [
        with_ci({"reviewer": r.reviewer, "pooled_r": r.pooled_r}, r.ci95)
        for r in length.by_reviewer
    ]
    return PageView(
        "Position-score bias",
        "position.html.j2",
        {"position": position.model_dump(mode="json"), "length": length.model_dump(mode="json")},
        [
            Chart(
                "position_effects",
                "Position effect γ (95% CI)",
                charts.interval_chart(
                    "Position effect",
                    effects,
                    "position",
                    "effect",
                    [(0.0, "#555", "0: no effect")],
                ),
            ),
            Chart(
                "length_score",
                "Length-score correlation by reviewer (pooled r, 95% CI)",
                charts.interval_chart(
                    "Pooled r", pooled, "reviewer", "pooled_r", [(0.0, "#555", "0")], (-1, 1)
                ),
            ),
        ],
    )


async def leaderboard_page(sources: Sources, filters: PageFilters) -> PageView:
    """Bradley-Terry ratings with bootstrap CIs (the cached leaderboard), and the win rates
    against the most-played model, judge-only beside human-anchored."""
    query = leaderboard_query(
        None, filters.start(), filters.until, list(filters.tags), filters.keeper
    )
    board = await get_leaderboard(sources.sessionmaker, sources.leaderboard_cache, query)
    rows = [with_ci({"model": m.model, "rating": m.rating}, m.ci95) for m in board.models]
    baseline = min(board.models, key=lambda m: (-m.games, m.model)).model if board.models else None
    versus = None
    if baseline is not None:
        query = replace(query, baseline=baseline)
        versus = await get_leaderboard(sources.sessionmaker, sources.leaderboard_cache, query)
    return PageView(
        "Leaderboard",
        "leaderboard.html.j2",
        {
            "board": board,
            "models": [m.model_dump(mode="json") for m in board.models],
            "baseline": baseline,
        },
        [
            Chart(
                "ratings",
                "Ratings (95% bootstrap CI)",
                charts.interval_chart(
                    "Rating", rows, "model", "rating", [(1000.0, "#555", "1000: average")]
                ),
                empty="Insufficient data: no rated models in this window.",
            ),
            Chart(
                "win_rates",
                f"Win rate against {baseline}: judge only and human-anchored (95% CI)",
                charts.interval_chart(
                    "Win rate (%)",
                    win_rate_rows(versus),
                    "row",
                    "win_rate",
                    [(50.0, "#555", "50%: even")],
                    (0, 100),
                    color="estimate",
                ),
                empty="Insufficient data: no comparisons with the most-played model here.",
            ),
        ],
    )


def win_rate_rows(board: Leaderboard | None) -> list[Row]:
    """Per model against the board's baseline: the judges' raw win rate (± Z95·se) and the
    PPI++ anchored one, in percent, as two rows of one chart."""
    rows: list[Row] = []
    for m in board.models if board is not None else []:
        judge = m.vs_baseline
        if judge is not None and judge.win_rate is not None and judge.win_rate_se is not None:
            half = Z95 * judge.win_rate_se
            ci = (max(0.0, judge.win_rate - half), min(100.0, judge.win_rate + half))
            row = {
                "row": f"{m.model} · judge",
                "estimate": "judge only",
                "win_rate": judge.win_rate,
            }
            rows.append(with_ci(row, ci))
        anchored = m.anchored_win_rate
        if anchored is not None:
            row = {"row": f"{m.model} · anchored", "estimate": "anchored (PPI++)"}
            rows.append(with_ci(row | {"win_rate": anchored.win_rate}, anchored.ci95))
    return rows


PageBuilder = Callable[[Sources, PageFilters], Awaitable[PageView]]
PAGES: dict[str, PageBuilder] = {
    "overview": overview_page,
    "judge": judge_page,
    "reviewers": reviewers_page,
    "position-score": position_score_page,
    "leaderboard": leaderboard_page,
}
