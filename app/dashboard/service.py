"""Dashboard pages: the JSON report's figures (same query functions), shaped into tables and charts.

Each page builder returns a `PageView`: the template's context and its charts. The HTML route
renders the charts to SVG; the chart route returns one chart's spec (with its data) as JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.dashboard import charts
from app.dashboard.cache import PageCache, PageView
from app.dashboard.charts import Chart, Row
from app.dashboard.filters import PageFilters
from app.labels.report import label_sections
from app.leaderboard.params import leaderboard_query
from app.leaderboard.service import LeaderboardCache, get_leaderboard
from app.reports.bias import COIN_TOSS_FLOOR, HIGH_FAILURE_SHARE, RED_FLAG_FLOOR, build_report
from app.scoring import queries as scoring_queries
from app.scoring.report import scoring_sections

HALF = [(0.5, "#555", "0.5: no preference")]
PC_FLOORS = [
    (RED_FLAG_FLOOR, "#e08214", "red_flag floor 0.80"),
    (COIN_TOSS_FLOOR, "#b2182b", "coin_toss floor 0.70"),
]
Report = dict[str, Any]


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


async def bias_report(sources: Sources, filters: PageFilters) -> Report:
    """The bias report exactly as `GET /v1/bias-report` computes it, as JSON data."""
    report = await build_report(sources.session, filters.report(), sources.settings)
    return report.model_dump(mode="json")


async def add_label_sections(sources: Sources, filters: PageFilters, report: Report) -> None:
    """Human agreement and confidence per judge, unless the report already carries them."""
    if any("human_agreement" in judge for judge in report["judges"]):
        return
    sections = await label_sections(
        sources.session, filters.report(), [judge["judge"] for judge in report["judges"]]
    )
    for judge in report["judges"]:
        found = sections.by_judge.get(judge["judge"])
        if found is not None:
            judge.update(found.model_dump(mode="json"))


def failure_rate(judge: Report) -> float | None:
    """Failed calls over all calls of the judge."""
    calls = judge["calls"]
    return calls["failed"] / calls["total"] if calls["total"] else None


def overview_rows(report: Report) -> list[Row]:
    """One row per judge: the overview table and its charts' data."""
    rows = []
    for judge in report["judges"]:
        position, consistency = judge["position"], judge["consistency"]
        row = with_ci(
            {
                "judge": judge["judge"],
                "n": position["n"],
                "first_pick_rate": position["first_pick_rate"],
                "p_adjusted": position["p_adjusted"],
                "position_tier": position["tier"],
                "pairs": consistency["pairs"],
                "position_consistency": consistency["position_consistency"],
                "pc_ci": consistency["ci95"],
                "consistency_tier": consistency["tier"],
                "calls": judge["calls"]["total"],
                "failure_rate": failure_rate(judge),
                "flags": judge["flags"],
            },
            position["ci95"],
        )
        rows.append(row)
    return rows


# measure: (its count, its tier) in a series point
SERIES_MEASURES = {
    "first_pick_rate": ("n", "tier"),
    "position_consistency": ("pairs", "consistency_tier"),
}


def series_rows(series: Sequence[Report], measure: str) -> list[Row]:
    """One row per judge and day of a measure with its Wilson CI, the count and tier it rests
    on, and whether the judge's version or provider model changed that day."""
    count, tier = SERIES_MEASURES[measure]
    return [
        with_ci(
            {
                "bucket": point["bucket"],
                "judge": point["judge"],
                "version": point["version"],
                "provider_models": ", ".join(point.get("provider_models") or []),
                count: point[count],
                measure: point[measure],
                "tier": point[tier],
                "version_changed": point["version_changed"],
                "provider_model_changed": point.get("provider_model_changed", False),
            },
            point.get(f"{measure}_ci95"),
        )
        for point in series
    ]


def change_days(series: Sequence[Report]) -> list[Row]:
    """Per judge, the days its version and its provider model changed (the charts' markers,
    as text for readers who cannot see them)."""
    days: dict[str, Row] = {}
    for point in series:
        entry = days.setdefault(
            point["judge"], {"judge": point["judge"], "version": [], "model": []}
        )
        if point["version_changed"]:
            entry["version"].append(point["bucket"][:10])
        if point.get("provider_model_changed"):
            entry["model"].append(point["bucket"][:10])
    return [entry for entry in days.values() if entry["version"] or entry["model"]]


def overview_series_charts(series: Sequence[Report]) -> list[Chart]:
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
        {"rows": rows, "changes": change_days(report["series"])},
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
                ),
                empty="No calls in this window.",
            ),
            *overview_series_charts(report["series"]),
        ],
    )


def label_rows(judge: Report) -> list[Row]:
    """Second-label pick rate per label pair."""
    return [
        with_ci(
            {
                "pair": pair,
                "rate": entry["rate"],
                "n": entry["n"],
                "p_adjusted": entry["p_adjusted"],
                "tier": entry["tier"],
            },
            entry["ci95"],
        )
        for pair, entry in judge["label"]["by_pair"].items()
    ]


def placebo_rows(placebo: Report) -> list[Row]:
    """Position and label preference on identical texts."""
    return [
        with_ci(
            {"measure": "first-pick rate", "rate": placebo["first_pick_rate"]}, placebo["ci95"]
        ),
        with_ci(
            {"measure": "second-label rate", "rate": placebo["second_label_pick_rate"]},
            placebo.get("second_label_ci95"),
        ),
    ]


def reliability_rows(judge: Report) -> list[Row]:
    """Reliability deciles of every confidence source (sources are never mixed)."""
    sources = (judge.get("confidence") or {}).get("by_source", {})
    return [
        {"source": source, **decile}
        for source, entry in sorted(sources.items())
        for decile in entry["reliability"]
    ]


async def judge_page(sources: Sources, filters: PageFilters) -> PageView:
    """One judge over time, with label, placebo, length, human agreement and confidence."""
    report = await bias_report(sources, filters)
    await add_label_sections(sources, filters, report)
    judge = next((j for j in report["judges"] if j["judge"] == filters.judge), None)
    series = [p for p in report["series"] if p["judge"] == filters.judge]
    changes = [p["bucket"] for p in series if p["version_changed"]]
    model_changes = [p["bucket"] for p in series if p.get("provider_model_changed")]
    view = PageView(
        f"Judge {filters.judge}",
        "judge.html.j2",
        {
            "judge": judge,
            "series": series,
            "change_days": [c[:10] for c in changes],
            "model_change_days": [c[:10] for c in model_changes],
            # The window the report was built for (a cached page keeps it): the explorer links
            # behind its figures use it, so their totals are the figures.
            # Without an `until`, the report counted calls up to when it was built.
            "report_window": {
                "since": report["filters"]["since"],
                "until": report["filters"]["until"] or report["generated_at"],
            },
        },
    )
    if judge is None:
        return view
    view.charts = [
        Chart(
            "series_first_pick",
            "First-pick rate by day (version changes in purple, provider-model changes in green)",
            charts.series_chart(
                "First-pick rate", series, "first_pick_rate", changes, HALF, model_changes
            ),
        ),
        Chart(
            "series_consistency",
            "Position consistency by day",
            charts.series_chart(
                "Position consistency",
                series,
                "position_consistency",
                changes,
                PC_FLOORS,
                model_changes,
            ),
        ),
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
                "Placebo", placebo_rows(judge["placebo"]), "measure", "rate", HALF, (0, 1)
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


async def scoring_report(sources: Sources, filters: PageFilters) -> Report:
    """Reviewer offsets, position-score and length-score sections, as the report computes them."""
    sections = await scoring_sections(
        sources.session, filters.scoring(), sources.settings.reviewer_margin
    )
    return sections.model_dump(mode="json")


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
    reviewers = (await scoring_report(sources, filters))["reviewers"]
    taus = await margins(sources, filters)
    view = PageView("Reviewers", "reviewers.html.j2", {"reviewers": reviewers, "taus": taus})
    for rubric in sorted({r["rubric"] for r in reviewers}):
        rows = [
            with_ci(
                {
                    "reviewer": r["reviewer"],
                    "offset": r["offset"],
                    "classification": r["classification"] or "not estimated",
                },
                r["ci95"],
            )
            for r in reviewers
            if r["rubric"] == rubric
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
    position, length = sections["position_score"], sections["length_score"]
    effects = [
        with_ci(
            {"position": f"position {p['position']}", "effect": p["effect"], "n": p["n"]}, p["ci95"]
        )
        for p in position["by_position"]
    ]
    pooled = [
        with_ci({"reviewer": r["reviewer"], "pooled_r": r["pooled_r"]}, r["ci95"])
        for r in length["by_reviewer"]
    ]
    return PageView(
        "Position-score bias",
        "position.html.j2",
        {"position": position, "length": length},
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
    """Bradley-Terry ratings with bootstrap CIs (the cached leaderboard)."""
    query = leaderboard_query(
        None, filters.start(), filters.until, list(filters.tags), filters.keeper
    )
    board = await get_leaderboard(sources.sessionmaker, sources.leaderboard_cache, query)
    models = [m.model_dump(mode="json") for m in board.models]
    rows = [with_ci({"model": m["model"], "rating": m["rating"]}, m["ci95"]) for m in models]
    return PageView(
        "Leaderboard",
        "leaderboard.html.j2",
        {"board": board, "models": models},
        [
            Chart(
                "ratings",
                "Ratings (95% bootstrap CI)",
                charts.interval_chart(
                    "Rating", rows, "model", "rating", [(1000.0, "#555", "1000: average")]
                ),
                empty="Insufficient data: no rated models in this window.",
            ),
        ],
    )


PageBuilder = Callable[[Sources, PageFilters], Awaitable[PageView]]
PAGES: dict[str, PageBuilder] = {
    "overview": overview_page,
    "judge": judge_page,
    "reviewers": reviewers_page,
    "position-score": position_score_page,
    "leaderboard": leaderboard_page,
}
