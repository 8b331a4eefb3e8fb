"""Read-side SQL for the leaderboard: the outcomes between generating models (STATISTICS.md).

An outcome is a complete, non-placebo comparison whose two responses name different models,
scored for model A as y = 1 (A won), ½ (tie) or 0 (B won) from the final, debiased verdict. Only
the callers' traffic counts unless asked otherwise: a drift canary's runs re-judge frozen items,
which would count those model pairs again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import ColumnElement, Select, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.jobs.models import JobStatus
from app.leaderboard.judges_out import PanelOutcome
from app.ledger.callscope import Origin, of_origin, tagged
from app.ledger.gold import Label, OutcomeCount, outcome_count, outcome_counts_query
from app.ledger.models import Comparison, JudgeCall

# STATISTICS.md: Python fits on at most the 100,000 most recent observations of a figure.
MAX_OUTCOMES = 100_000


@dataclass(frozen=True)
class LeaderboardFilters:
    """Which comparisons count; no `since` means every stored comparison."""

    since: datetime | None = None
    until: datetime | None = None
    tags: tuple[tuple[str, str], ...] = ()
    origin: Origin = "traffic"


@dataclass(frozen=True)
class Watermark:
    """A cheap fingerprint of the eligible comparisons: it moves when a new one completes, and
    of the labels (the anchored win rates read them): it moves when one is posted or replaced."""

    count: int
    last_completed_at: datetime | None
    labels: int = 0
    last_labelled_at: datetime | None = None


@dataclass(frozen=True)
class PairCount:
    """How often one ordered pair of models ended with one verdict (A, B or tie)."""

    model_a: str
    model_b: str
    winner: str
    count: int


@dataclass(frozen=True)
class BaselineGame:
    """One direct comparison of `model` with the baseline: its outcome and Δlen for `model`."""

    model: str
    y: float
    delta_len: int


def eligible(filters: LeaderboardFilters) -> list[ColumnElement[bool]]:
    """Conditions selecting the comparisons that are leaderboard outcomes."""
    conditions: list[ColumnElement[bool]] = [
        Comparison.status == JobStatus.COMPLETE,
        Comparison.placebo.is_(False),
        Comparison.winner.in_(("A", "B", "tie")),
        Comparison.model_a.is_not(None),
        Comparison.model_b.is_not(None),
        Comparison.model_a != "",
        Comparison.model_b != "",
        Comparison.model_a != Comparison.model_b,
    ]
    if filters.since is not None:
        conditions.append(Comparison.created_at >= filters.since)
    if filters.until is not None:
        conditions.append(Comparison.created_at < filters.until)
    conditions.extend(of_origin(Comparison.origin, filters.origin))
    conditions.extend(tagged(Comparison.id, filters.tags))
    return conditions


async def watermark(session: AsyncSession, filters: LeaderboardFilters) -> Watermark:
    """Count and latest completion of the eligible comparisons."""
    query = select(func.count(), func.max(Comparison.completed_at)).where(*eligible(filters))
    count, last = (await session.execute(query)).one()
    labels, labelled_at = (
        await session.execute(select(func.count(), func.max(Label.updated_at)))
    ).one()
    return Watermark(int(count), last, int(labels), labelled_at)


def _most_recent_ids(filters: LeaderboardFilters, limit: int) -> Select[Any]:
    return (
        select(Comparison.id)
        .where(*eligible(filters))
        .order_by(Comparison.created_at.desc(), Comparison.id.desc())
        .limit(limit)
    )


def _outcomes(filters: LeaderboardFilters, limit: int | None) -> list[ColumnElement[bool]]:
    """The outcomes in scope; the `limit` most recent ones if given."""
    if limit is not None:
        return [Comparison.id.in_(_most_recent_ids(filters, limit))]
    return eligible(filters)


async def pair_counts(
    session: AsyncSession, filters: LeaderboardFilters, *, limit: int | None = None
) -> list[PairCount]:
    """Verdict counts per ordered model pair; over the `limit` most recent outcomes if given."""
    conditions = _outcomes(filters, limit)
    query = (
        select(Comparison.model_a, Comparison.model_b, Comparison.winner, func.count())
        .where(*conditions)
        .group_by(Comparison.model_a, Comparison.model_b, Comparison.winner)
        .order_by(Comparison.model_a, Comparison.model_b, Comparison.winner)
    )
    # eligible() keeps only rows with both models and a verdict: none of these is NULL.
    rows = cast("list[tuple[str, str, str, int]]", (await session.execute(query)).all())
    return [PairCount(a, b, w, int(n)) for a, b, w, n in rows]


async def baseline_games(
    session: AsyncSession, filters: LeaderboardFilters, baseline: str
) -> list[BaselineGame]:
    """The most recent direct comparisons with the baseline, from the other model's side."""
    query = (
        select(
            Comparison.model_a,
            Comparison.model_b,
            Comparison.len_a,
            Comparison.len_b,
            Comparison.winner,
        )
        .where(*eligible(filters))
        .where((Comparison.model_a == baseline) | (Comparison.model_b == baseline))
        .order_by(Comparison.created_at.desc(), Comparison.id.desc())
        .limit(MAX_OUTCOMES)
    )
    rows = cast("list[tuple[str, str, int, int, str]]", (await session.execute(query)).all())
    games = []
    for model_a, model_b, len_a, len_b, winner in rows:
        y_a = 1.0 if winner == "A" else 0.0 if winner == "B" else 0.5
        if model_b == baseline:
            games.append(BaselineGame(model=model_a, y=y_a, delta_len=len_a - len_b))
        else:
            games.append(BaselineGame(model=model_b, y=1.0 - y_a, delta_len=len_b - len_a))
    return games


async def anchored_counts(
    session: AsyncSession, filters: LeaderboardFilters, baseline: str
) -> dict[str, list[OutcomeCount]]:
    """Per model, its direct comparisons with the baseline counted per verdict and queue gold
    (`ledger.gold`): what its anchored win rate is estimated from. Every comparison in scope
    counts, not only the most recent: the counts are a few rows per model whatever the traffic."""
    model = case((Comparison.model_a == baseline, Comparison.model_b), else_=Comparison.model_a)
    keys = [model.label("model"), (Comparison.model_b == baseline).label("model_is_a")]
    with_baseline = (Comparison.model_a == baseline) | (Comparison.model_b == baseline)
    query = outcome_counts_query(
        keys, Comparison.winner.expression, [*eligible(filters), with_baseline]
    )
    counts: dict[str, list[OutcomeCount]] = {}
    for row in (await session.execute(query)).all():
        counts.setdefault(row[0], []).append(outcome_count(row[1], row[2:]))
    return counts


async def labelled_pair_counts(
    session: AsyncSession, filters: LeaderboardFilters
) -> list[tuple[str, str, OutcomeCount]]:
    """Every outcome in scope counted per ordered model pair, verdict and queue gold (from
    model A's side): what the anchored ratings are fitted on."""
    keys = [Comparison.model_a.label("model_a"), Comparison.model_b.label("model_b")]
    query = outcome_counts_query(keys, Comparison.winner.expression, eligible(filters))
    rows = (await session.execute(query)).all()
    return [(row[0], row[1], outcome_count(True, row[2:])) for row in rows]


async def panel_outcomes(
    session: AsyncSession, filters: LeaderboardFilters, *, limit: int | None = None
) -> list[PanelOutcome]:
    """The outcomes (the `limit` most recent if given) with each voting judge's own debiased
    winner from `judge_results`: what leave-one-judge-out refits. Audits are told apart by
    their calls' role (a stored result does not say it)."""
    conditions = _outcomes(filters, limit)
    audits_query = (
        select(JudgeCall.comparison_id, JudgeCall.judge_name)
        .where(JudgeCall.role == "audit")
        .where(JudgeCall.comparison_id.in_(select(Comparison.id).where(*conditions)))
        .distinct()
    )
    audits = {(c, j) for c, j in (await session.execute(audits_query)).all()}
    query = select(
        Comparison.id,
        Comparison.model_a,
        Comparison.model_b,
        Comparison.winner,
        Comparison.judge_results,
    ).where(*conditions)
    rows = cast(
        "list[tuple[str, str, str, Any, dict[str, Any] | None]]",
        (await session.execute(query)).all(),
    )
    outcomes = []
    for comparison_id, model_a, model_b, winner, results in rows:
        voters = tuple(
            sorted(
                (name, result["winner"])
                for name, result in (results or {}).items()
                if result is not None
                and result.get("winner") is not None
                and (comparison_id, name) not in audits
            )
        )
        outcomes.append(PanelOutcome(model_a, model_b, winner, voters))
    return outcomes
