"""Anytime-valid confidence sequences for the mean of outcomes in [0, 1] (issue 41). Pure.

The method is the hedged-capital confidence sequence with predictable plug-in bets of
Waudby-Smith and Ramdas (2023, "Estimating means of bounded random variables by betting", JRSS-B,
section 4.2): for each candidate mean m, two gamblers bet that the outcomes run above m and below
m; m leaves the sequence once their averaged wealth reaches 1/alpha. By Ville's inequality the
sequence covers the true mean at every time at once with probability 1 - alpha, so it may be read
after every comparison and stopped whenever it decides.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

# Candidate means: a grid fine enough that the interval's ends are within 0.001 (0 and 1 are on
# it, so a run of wins keeps 1 in the interval).
GRID = np.linspace(0.0, 1.0, 1001)
# The bet's cap, as a share of the most a gambler can stake on a mean without risking ruin
# (m for the one betting above it, 1 - m below): infinite where that side cannot lose.
BET_CAP = 0.75
with np.errstate(divide="ignore"):
    UP_CAP = BET_CAP / GRID
    DOWN_CAP = BET_CAP / (1 - GRID)
# No decision before this many outcomes: the bets are still learning the variance.
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


class HedgedCapital:
    """The wealth of the two gamblers at every candidate mean, updated one outcome at a time."""

    def __init__(self, alpha: float) -> None:
        self.alpha = alpha
        self.log_up = np.zeros_like(GRID)
        self.log_down = np.zeros_like(GRID)
        self.n = 0
        self._sum = 0.0
        self._squares = 0.0
        self.lower, self.upper = 0.0, 1.0

    def update(self, x: float) -> Interval:
        """Bet on `x`, then return the running intersection of the sequence so far."""
        rate = self._bet_rate()
        up = np.minimum(rate, UP_CAP)
        down = np.minimum(rate, DOWN_CAP)
        self.log_up += np.log1p(up * (x - GRID))
        self.log_down += np.log1p(-down * (x - GRID))
        mean_before = (0.5 + self._sum) / (self.n + 1)
        self._squares += (x - mean_before) ** 2
        self._sum += x
        self.n += 1
        self._narrow()
        return Interval(self.lower, self.upper)

    def _bet_rate(self) -> float:
        """The predictable plug-in bet size (their eq. 26), from the outcomes before this one."""
        t = self.n + 1
        variance = (0.25 + self._squares) / t
        return math.sqrt(2 * math.log(2 / self.alpha) / (variance * t * math.log(t + 1)))

    def _narrow(self) -> None:
        # Hedged: half the capital on each side; a mean stays while the wealth is below 1/alpha.
        wealth = np.logaddexp(self.log_up, self.log_down) - math.log(2)
        kept = GRID[wealth < math.log(1 / self.alpha)]
        if kept.size == 0:  # every candidate refuted (a 1-in-1/alpha run): nothing to narrow
            return
        self.lower = max(self.lower, float(kept.min()))
        self.upper = min(self.upper, float(kept.max()))


def confidence_sequence(outcomes: Sequence[float], alpha: float) -> Interval | None:
    """The sequence's interval after all `outcomes` (None before the first)."""
    if not outcomes:
        return None
    capital = HedgedCapital(alpha)
    interval = Interval(0.0, 1.0)
    for x in outcomes:
        interval = capital.update(x)
    return interval


def decide(interval: Interval, margin: float) -> str | None:
    """`candidate_better` when the whole interval is above 0.5 + margin, `baseline_better`
    when below 0.5 - margin, `equivalent` when (margin > 0) it lies within 0.5 ± margin."""
    if interval.lower > 0.5 + margin:
        return "candidate_better"
    if interval.upper < 0.5 - margin:
        return "baseline_better"
    if margin > 0 and 0.5 - margin <= interval.lower and interval.upper <= 0.5 + margin:
        return "equivalent"
    return None


def decision_path(outcomes: Sequence[float], alpha: float, margin: float) -> DecisionPath:
    """Read the sequence after every outcome (from `MIN_OUTCOMES` on) and keep the first
    decision."""
    if not outcomes:
        return DecisionPath(None, None, None)
    capital = HedgedCapital(alpha)
    decision, after = None, None
    interval = Interval(0.0, 1.0)
    for n, x in enumerate(outcomes, start=1):
        interval = capital.update(x)
        if decision is None and n >= MIN_OUTCOMES:
            decision = decide(interval, margin)
            after = n if decision is not None else None
    return DecisionPath(decision, after, interval)


def fixed_interval(outcomes: Sequence[float], alpha: float) -> Interval | None:
    """The fixed-sample (CLT) interval for the mean, clipped to [0, 1]: valid only at a sample
    size fixed in advance; shown beside the sequence, never used to decide."""
    if len(outcomes) < 2:
        return None
    values: npt.NDArray[np.float64] = np.asarray(outcomes, dtype=float)
    z = NormalDist().inv_cdf(1 - alpha / 2)
    half = z * float(values.std(ddof=1)) / math.sqrt(values.size)
    mean = float(values.mean())
    return Interval(max(0.0, mean - half), min(1.0, mean + half))
