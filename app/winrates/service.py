"""The win-rate use case: count the outcomes in SQL, estimate in Python (docs/STATISTICS.md
"Human-anchored win rate")."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy.ext.asyncio import AsyncSession

from app import ppi, stats
from app.ledger.callscope import ReportFilters
from app.ledger.gold import OutcomeCount, Outcomes, outcomes_of
from app.winrates import alttest
from app.winrates.queries import Annotations, alt_test_annotations, outcome_counts
from app.winrates.schemas import (
    AltTest,
    AnchoredWinRate,
    HumanWinRate,
    Interval,
    JudgeAltTest,
    JudgeWinRate,
    LabelerTestRead,
    LabelsNeeded,
    LabelTarget,
    Reason,
    Section,
    WinRateFilters,
    WinRates,
)

# The planning targets of `labels_needed` (issue 40).
HALF_WIDTH_TARGETS = (0.05, 0.02)
LABELLED_SECTIONS: tuple[Section, ...] = ("human", "anchored", "labels_needed")


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


def human_section(outcomes: Outcomes) -> HumanWinRate:
    """The queue's gold labels alone (the anchored estimate at λ = 0)."""
    estimate = ppi.clt_mean(outcomes.human)
    assert estimate is not None  # Outcomes.labelled_reason ruled out no labels
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
    assert estimate is not None  # Outcomes.labelled_reason ruled out no labels
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
    reason = outcomes.labelled_reason()
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


async def read_alt_test(
    session: AsyncSession, filters: ReportFilters, epsilon: float, q: float
) -> AltTest:
    """The alternative-annotator test of every judge (or the filtered one) in scope."""
    labels, verdicts = await alt_test_annotations(session, filters)
    return alt_test_answer(filters, labels, verdicts, epsilon, q)


def alt_test_answer(
    filters: ReportFilters, labels: Annotations, verdicts: Annotations, epsilon: float, q: float
) -> AltTest:
    """The answer from the annotations (`alttest`)."""
    items = {item for mine in labels.values() for item in mine}
    judges = []
    for judge in sorted(verdicts):
        result = alttest.alt_test(verdicts[judge], labels, epsilon, q)
        judges.append(
            JudgeAltTest(
                judge=judge,
                items=len(items & verdicts[judge].keys()),
                labelers=[LabelerTestRead(**vars(row)) for row in result.labelers],
                winning_rate=result.winning_rate,
                advantage_probability=result.advantage_probability,
                passed=result.passed,
                reason=result.reason,
            )
        )
    return AltTest(
        filters=filters_read(filters), epsilon=epsilon, q=q, n_items=len(items), judges=judges
    )
