"""The alternative-annotator test (Calderon, Reichart and Dror, ACL 2025, "The Alternative
Annotator Test for LLM-as-a-Judge"): can a judge stand in for one of the human labelers? Pure.

As published (the authors' `alt_test`, github.com/nitaytech/AltTest): the items are comparisons
labelled by at least two labelers that the judge also judged. Each labeler h in turn is left out;
on each item h labelled, the judge's verdict and h's label are each scored by accuracy against
the remaining labelers' labels (the share of them it equals), and the judge wins the item when
its score is at least h's (W_f = 1), h when its own is at least the judge's (W_h = 1; a draw is
a win for both). With d = W_h − W_f over h's items, a one-sided paired t-test of H0: mean(d) ≥ ε
(h is better than the judge by at least the cost-benefit margin ε) against H1: mean(d) < ε gives
h's p-value; Benjamini-Yekutieli at q controls the false discovery rate across labelers. The
**winning rate** is the share of labelers whose H0 is rejected; the judge **passes** at a winning
rate of 0.5 or more. The **advantage probability** ρ is the mean over labelers of mean(W_f): the
chance the judge is as good as or better than a random labeler, for comparing judges. Labelers
with fewer than 30 items are left out (the t-test's normality, as the authors' default), and the
test needs at least 3 labelers left (the authors' recommendation: with two there is no consensus
to represent). docs/STATISTICS.md, "Alternative-annotator test".
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from app import stats

MIN_ITEMS_PER_LABELER = 30
MIN_LABELERS = 3
MIN_LABELERS_PER_ITEM = 2
PASSING_WINNING_RATE = 0.5
AltTestReason = Literal["no_labels", "too_few_labelers"]


@dataclass(frozen=True)
class LabelerTest:
    """One labeler left out: how often the judge and the labeler each represent the others."""

    labeler: str
    items: int
    judge_advantage: float  # mean W_f: the judge at least as close to the others as the labeler
    labeler_advantage: float  # mean W_h
    p_value: float  # H0: labeler_advantage − judge_advantage ≥ ε
    p_adjusted: float  # Benjamini-Yekutieli
    judge_wins: bool  # H0 rejected at the FDR level


@dataclass(frozen=True)
class AltTestResult:
    """The test for one judge, or why it has none."""

    labelers: list[LabelerTest]
    winning_rate: float | None
    advantage_probability: float | None
    passed: bool | None
    reason: AltTestReason | None


def accuracy(annotation: str, others: list[str]) -> float:
    """The share of the other labels that equal this one."""
    return sum(other == annotation for other in others) / len(others)


def alt_test(
    judge: Mapping[str, str],
    labels: Mapping[str, Mapping[str, str]],
    epsilon: float,
    q: float = 0.05,
) -> AltTestResult:
    """The test of `judge` (item → verdict) against `labels` (labeler → item → label)."""
    labelers_of: dict[str, list[str]] = {}
    for labeler, mine in labels.items():
        for item in mine:
            labelers_of.setdefault(item, []).append(labeler)
    items = {
        item
        for item, who in labelers_of.items()
        if len(who) >= MIN_LABELERS_PER_ITEM and item in judge
    }
    if not items:
        return AltTestResult([], None, None, None, "no_labels")
    tested: list[tuple[str, int, float, float, float]] = []
    for labeler in sorted(labels):
        own = sorted(item for item in labels[labeler] if item in items)
        if len(own) < MIN_ITEMS_PER_LABELER:
            continue
        judge_wins, labeler_wins = [], []
        for item in own:
            others = [labels[h][item] for h in labelers_of[item] if h != labeler]
            judge_score = accuracy(judge[item], others)
            labeler_score = accuracy(labels[labeler][item], others)
            judge_wins.append(float(judge_score >= labeler_score))
            labeler_wins.append(float(labeler_score >= judge_score))
        differences = [h - f for h, f in zip(labeler_wins, judge_wins, strict=True)]
        p_value = stats.t_test_below_p(differences, epsilon)
        tested.append((labeler, len(own), mean(judge_wins), mean(labeler_wins), p_value))
    if len(tested) < MIN_LABELERS:
        return AltTestResult([], None, None, None, "too_few_labelers")
    rejected, adjusted = stats.benjamini_yekutieli([t[4] for t in tested], q)
    rows = [
        LabelerTest(name, n, f, h, p, p_adj, won)
        for (name, n, f, h, p), p_adj, won in zip(tested, adjusted, rejected, strict=True)
    ]
    winning_rate = sum(rejected) / len(rows)
    return AltTestResult(
        labelers=rows,
        winning_rate=winning_rate,
        advantage_probability=mean([row.judge_advantage for row in rows]),
        passed=winning_rate >= PASSING_WINNING_RATE,
        reason=None,
    )


def mean(values: list[float]) -> float:
    """The arithmetic mean of a non-empty list."""
    return sum(values) / len(values)
