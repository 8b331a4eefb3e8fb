"""The win-rate use case: count the outcomes in SQL, estimate in Python (docs/STATISTICS.md
"Human-anchored win rate")."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app import ppi, stats
from app.ledger.callscope import ReportFilters
from app.winrates.queries import OutcomeCount, outcome_counts
from app.winrates.schemas import (
    AnchoredWinRate,
    HumanWinRate,
    Interval,
    JudgeWinRate,
    LabelsNeeded,
    LabelTarget,
    Reason,
    Section,
    WinRateFilters,
    WinRates,
)

# The planning targets of `labels_needed` (issue 40).
HALF_WIDTH_TARGETS = (0.05, 0.02)
Y_OF_WINNER = {"A": 1.0, "tie": 0.5, "B": 0.0}
LABELLED_SECTIONS: tuple[Section, ...] = ("human", "anchored", "labels_needed")


@dataclass
class Outcomes:
    """The outcomes for the model, as arrays: the labelled slice (human, judge) and the rest."""

    human: list[float] = field(default_factory=list)
    judged: list[float] = field(default_factory=list)  # the judge on the labelled slice
    unlabelled: list[float] = field(default_factory=list)
    not_from_queue: int = 0
    disputed: int = 0

    @property
    def every_judged(self) -> list[float]:
        """The judge's outcome on every comparison."""
        return self.judged + self.unlabelled


def for_model(winner: str, model_is_a: bool) -> float:
    """The outcome of a winner (A | B | tie) for the model."""
    y = Y_OF_WINNER[winner]
    return y if model_is_a else 1.0 - y


def outcomes_of(counts: list[OutcomeCount]) -> Outcomes:
    """The counted outcomes, expanded (at most one value per comparison in the window)."""
    outcomes = Outcomes()
    # In one order whatever the database's: the float sums then agree to the last bit.
    for row in sorted(
        counts, key=lambda r: (r.model_is_a, r.verdict, r.gold or "", r.other_labels)
    ):
        judged = for_model(row.verdict, row.model_is_a)
        if row.gold is not None:
            outcomes.human += [for_model(row.gold, row.model_is_a)] * row.count
            outcomes.judged += [judged] * row.count
        else:
            # Disputed and non-queue labelled comparisons are not in the uniform slice.
            outcomes.unlabelled += [judged] * row.count
        outcomes.not_from_queue += row.count if row.other_labels else 0
        outcomes.disputed += row.count if row.queue_labelled and row.gold is None else 0
    return outcomes


def clipped(interval: Interval) -> Interval:
    """A win rate's interval inside [0, 1], where the true value lies (coverage is kept)."""
    return max(0.0, interval[0]), min(1.0, interval[1])


def unit_clip(value: float) -> float:
    """A point estimate inside [0, 1] (PPI's correction can step outside)."""
    return min(1.0, max(0.0, value))


def judge_section(outcomes: Outcomes) -> JudgeWinRate | Reason:
    """The judges' verdicts alone."""
    values = outcomes.every_judged
    tier = stats.tier("comparisons", len(values))
    estimate = ppi.clt_mean(values)
    if estimate is None:
        return "no_comparisons"
    if tier == "insufficient":
        return "insufficient_data"
    return JudgeWinRate(
        win_rate=estimate.estimate, ci95=clipped(estimate.ci95), n=len(values), tier=tier
    )


def labelled_reason(outcomes: Outcomes) -> Reason | None:
    """Why nothing rests on the labels, if nothing does."""
    if not outcomes.every_judged:
        return "no_comparisons"
    if not outcomes.human:
        return "no_labels"
    if stats.tier("labelled", len(outcomes.human)) == "insufficient":
        return "insufficient_data"
    return None


def human_section(outcomes: Outcomes) -> HumanWinRate:
    """The queue's gold labels alone (the anchored estimate at λ = 0)."""
    estimate = ppi.clt_mean(outcomes.human)
    assert estimate is not None  # labelled_reason ruled out no labels
    n = len(outcomes.human)
    return HumanWinRate(
        win_rate=estimate.estimate,
        ci95=clipped(estimate.ci95),
        n_labelled=n,
        tier=stats.tier("labelled", n),
    )


def anchored_section(outcomes: Outcomes) -> AnchoredWinRate:
    """PPI++ over every comparison, anchored by the labelled slice."""
    estimate = ppi.ppi_mean(outcomes.human, outcomes.judged, outcomes.unlabelled)
    assert estimate is not None  # labelled_reason ruled out no labels
    n = len(outcomes.human)
    return AnchoredWinRate(
        win_rate=unit_clip(estimate.estimate),
        ci95=clipped(estimate.ci95),
        n=len(outcomes.every_judged),
        n_labelled=n,
        lam=estimate.lam,
        tier=stats.tier("labelled", n),
    )


def labels_needed(outcomes: Outcomes) -> LabelsNeeded:
    """More uniform labels for each target half-width, at the current moments."""
    moments = ppi.Moments.of(outcomes.human, outcomes.judged, outcomes.unlabelled)
    n = len(outcomes.human)
    return LabelsNeeded(
        targets=[
            LabelTarget(half_width=h, more_labels=ppi.more_labels_needed(moments, n, h))
            for h in HALF_WIDTH_TARGETS
        ]
    )


async def read_win_rates(
    session: AsyncSession, model: str, baseline: str, filters: ReportFilters
) -> WinRates:
    """The win rates of `model` against `baseline` in the filters' scope."""
    return win_rates(
        model, baseline, filters, await outcome_counts(session, model, baseline, filters)
    )


def win_rates(
    model: str, baseline: str, filters: ReportFilters, counts: list[OutcomeCount]
) -> WinRates:
    """The answer from the counted outcomes."""
    outcomes = outcomes_of(counts)
    reasons: dict[Section, Reason] = {}
    judge = judge_section(outcomes)
    if isinstance(judge, str):
        reasons["judge"] = judge
    reason = labelled_reason(outcomes)
    if reason is not None:
        reasons.update(dict.fromkeys(LABELLED_SECTIONS, reason))
    return WinRates(
        generated_at=datetime.now(UTC),
        model=model,
        baseline=baseline,
        filters=filters_read(filters),
        verdict="final" if filters.judge is None else "judge",
        n_comparisons=len(outcomes.every_judged),
        n_labelled=len(outcomes.human),
        n_labelled_not_from_queue=outcomes.not_from_queue,
        disputed=outcomes.disputed,
        judge=None if isinstance(judge, str) else judge,
        human=None if reason else human_section(outcomes),
        anchored=None if reason else anchored_section(outcomes),
        labels_needed=None if reason else labels_needed(outcomes),
        reasons=reasons,
    )


def filters_read(filters: ReportFilters) -> WinRateFilters:
    """The filters as echoed."""
    return WinRateFilters(
        judge=filters.judge,
        since=filters.since,
        until=filters.until,
        tags=[f"{k}:{v}" for k, v in filters.tags],
        origin=filters.origin,
    )
