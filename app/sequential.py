"""Anytime-valid confidence sequences for the mean of outcomes in [0, 1] (issue 41). Pure.

The method is the predictable plug-in empirical-Bernstein confidence sequence of Waudby-Smith and
Ramdas (2024, "Estimating means of bounded random variables by betting", JRSS-B 86(1), Theorem
2): at time t it is

    C_t = Σ λ_i X_i / Σ λ_i  ±  (log(2/α) + Σ v_i ψ_E(λ_i)) / Σ λ_i,

with v_i = 4 (X_i − μ̂_{i−1})², ψ_E(λ) = (−log(1 − λ) − λ) / 4 and a predictable bet λ_i that
reads only the outcomes before i. It covers the true mean at every t at once with probability
1 − α (a supermartingale and Ville's inequality), so it may be read after every comparison and
stopped whenever it decides; the running intersection keeps that guarantee. The tuning (the bet
λ_i = min(√(2 log(1/α) / (σ̂²_{i−1} i log(1 + i))), 1/2) with a prior mean 1/2 and variance 1/4)
is truescore's (`truescore.sequential`, the test oracle, to 1e-12); any predictable bet keeps
the coverage, the tuning only moves the width. docs/STATISTICS.md, "Experiments", says why this
construction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

# Any fixed cap below 1 keeps log(1 − λ) finite and the sequence valid (truescore's default).
BET_CAP = 0.5
# No decision before this many outcomes: the bets are still learning the variance, and a rule
# a reader can state beats a decision on a handful of comparisons (docs/STATISTICS.md).
MIN_OUTCOMES = 20


@dataclass(frozen=True)
class Interval:
    """[lower, upper]."""

    lower: float
    upper: float


@dataclass(frozen=True)
class DecisionPath:
    """A sequence read after every outcome: the first decision, after how many outcomes, and
    the interval (the running intersection) after the last one."""

    decision: str | None
    decided_after: int | None
    interval: Interval | None


class EmpiricalBernstein:
    """The sequence's running sums, updated one outcome at a time in O(1)."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.n = 0
        self._sum = 0.0  # Σ X_i
        self._mean = 0.5  # μ̂ before the next outcome (the prior mean)
        self._squares = 0.0  # Σ (X_i − μ̂_i)², μ̂_i including X_i
        self._bets = 0.0  # Σ λ_i
        self._weighted = 0.0  # Σ λ_i X_i
        self._penalty = 0.0  # Σ v_i ψ_E(λ_i)
        self.lower, self.upper = 0.0, 1.0

    def update(self, x: float) -> Interval:
        """Bet on `x`; the running intersection of the sequence so far."""
        t = self.n + 1
        variance = (0.25 + self._squares) / t  # σ̂² before this outcome (prior 1/4)
        bet = min(math.sqrt(2 * math.log(1 / self.alpha) / (variance * t * math.log1p(t))), BET_CAP)
        surprise = 4 * (x - self._mean) ** 2
        self._penalty += surprise * (-math.log1p(-bet) - bet) / 4
        self._bets += bet
        self._weighted += bet * x
        self._sum += x
        self.n = t
        self._mean = (0.5 + self._sum) / (t + 1)
        self._squares += (x - self._mean) ** 2
        centre = self._weighted / self._bets
        margin = (math.log(2 / self.alpha) + self._penalty) / self._bets
        self.lower = max(self.lower, min(max(centre - margin, 0.0), 1.0))
        self.upper = min(self.upper, min(max(centre + margin, 0.0), 1.0))
        return Interval(self.lower, self.upper)


def intervals(outcomes: Sequence[float], alpha: float) -> list[Interval]:
    """The sequence's interval after each outcome."""
    sequence = EmpiricalBernstein(alpha)
    return [sequence.update(x) for x in outcomes]


def confidence_sequence(outcomes: Sequence[float], alpha: float) -> Interval | None:
    """The sequence's interval after all `outcomes` (None before the first)."""
    path = intervals(outcomes, alpha)
    return path[-1] if path else None


def decide(interval: Interval, margin: float) -> str | None:
    """`candidate_better` when the whole interval is above 0.5 + margin, `baseline_better`
    when below 0.5 − margin, `equivalent` when (margin > 0) it lies within 0.5 ± margin."""
    if interval.lower > 0.5 + margin:
        return "candidate_better"
    if interval.upper < 0.5 - margin:
        return "baseline_better"
    if margin > 0 and 0.5 - margin <= interval.lower and interval.upper <= 0.5 + margin:
        return "equivalent"
    return None


class Decider:
    """The sequence read after every outcome (from `MIN_OUTCOMES` on), keeping the first
    decision: what `decision_path` computes, one outcome at a time in O(1)."""

    def __init__(self, alpha: float, margin: float) -> None:
        self.sequence = EmpiricalBernstein(alpha)
        self.margin = margin
        self.decision: str | None = None
        self.decided_after: int | None = None
        self.interval: Interval | None = None

    def update(self, x: float) -> None:
        """Take one more outcome."""
        self.interval = self.sequence.update(x)
        if self.decision is None and self.sequence.n >= MIN_OUTCOMES:
            self.decision = decide(self.interval, self.margin)
            self.decided_after = self.sequence.n if self.decision is not None else None

    def path(self) -> DecisionPath:
        """The first decision, after how many outcomes, and the interval now."""
        return DecisionPath(self.decision, self.decided_after, self.interval)


def decision_path(outcomes: Sequence[float], alpha: float, margin: float) -> DecisionPath:
    """Read the sequence after every outcome (from `MIN_OUTCOMES` on); the first decision."""
    decider = Decider(alpha, margin)
    for x in outcomes:
        decider.update(x)
    return decider.path()


def fixed_interval(outcomes: Sequence[float], alpha: float) -> Interval | None:
    """The fixed-sample (CLT) interval for the mean, clipped to [0, 1]: valid only at a sample
    size fixed in advance; shown beside the sequence, never used to decide."""
    n = len(outcomes)
    if n < 2:
        return None
    mean = sum(outcomes) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in outcomes) / (n - 1))
    half = NormalDist().inv_cdf(1 - alpha / 2) * sd / math.sqrt(n)
    return Interval(max(0.0, mean - half), min(1.0, mean + half))
