"""How fragile a ranking is (issue 41): how many verdicts would have to flip to reorder two
adjacent models, and how many model pairs the intervals separate. Pure.

A flip turns one comparison's verdict against one of its two models (a win becomes a loss; a tie
becomes a loss when no win is left on that pair). The fewest flips that reorder two models is a
combinatorial minimum; this finds an upper bound greedily: each step takes the flip that the
fit's local sensitivity says closes the gap fastest, refits Bradley-Terry exactly, and stops once
the order has turned. Those flips do reorder them, so the figure is an upper bound on the
minimum, and a small one is a fragile ranking (STATISTICS.md, "Leaderboard: fragility").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from app.leaderboard.ratings import (
    LAMBDA,
    FloatArray,
    Game,
    IntArray,
    fit_pairs,
    pair_hessian,
    pair_table,
)

# Strengths closer than this are equal (a fit's rounding is not a reordering).
TIED = 1e-9
# Beyond this many flips a pair counts as robust; the search stops there.
MAX_FLIPS = 100


@dataclass
class PairVerdicts:
    """Per pair of models (lower index first): its wins for each side and its ties."""

    lo: IntArray
    hi: IntArray
    wins: FloatArray  # [pair, 0]: wins of lo; [pair, 1]: wins of hi
    ties: FloatArray

    @classmethod
    def of(cls, n_models: int, games: Sequence[Game]) -> PairVerdicts:
        table = pair_table(n_models, games)
        size = len(table.lo)
        credit = table.credit_lo
        wins = np.stack(
            [
                np.bincount(table.pair_of_game, credit == 1.0, size),
                np.bincount(table.pair_of_game, credit == 0.0, size),
            ],
            axis=1,
        ).astype(np.float64)
        ties = np.bincount(table.pair_of_game, (credit > 0) & (credit < 1), size)
        return cls(table.lo, table.hi, wins, ties.astype(np.float64))

    def credits(self) -> tuple[FloatArray, FloatArray]:
        """Credit won by lo and by hi on each pair (a tie gives each one half)."""
        return self.wins[:, 0] + self.ties / 2, self.wins[:, 1] + self.ties / 2

    def flip(self, pair: int, side: int) -> None:
        """One verdict on `pair` turns against `side` (0: lo, 1: hi): a win becomes a loss, or
        with no win left a tie does."""
        if self.wins[pair, side] >= 1:
            self.wins[pair, side] -= 1
        else:
            self.ties[pair] -= 1
        self.wins[pair, 1 - side] += 1


def flips_to_reorder(
    n_models: int, games: Sequence[Game], higher: int, lower: int, lam: float = LAMBDA
) -> int | None:
    """The flips (found greedily: an upper bound on the fewest) after which `lower`'s strength
    exceeds `higher`'s; None when `MAX_FLIPS` do not."""
    verdicts = PairVerdicts.of(n_models, games)
    table = pair_table(n_models, games)
    theta = fit_pairs(n_models, table, verdicts.credits(), lam)
    for flips in range(1, MAX_FLIPS + 1):
        chosen = best_flip(verdicts, theta, higher, lower, lam)
        if chosen is None:
            return None
        verdicts.flip(*chosen)
        theta = fit_pairs(n_models, table, verdicts.credits(), lam, theta)
        if theta[lower] - theta[higher] > TIED:
            return flips
    return None


def best_flip(
    verdicts: PairVerdicts, theta: FloatArray, higher: int, lower: int, lam: float
) -> tuple[int, int] | None:
    """(pair, side) of the flip the fit's sensitivity says narrows θ_higher − θ_lower most:
    taking credit c from u and giving it to v changes it by about c·(g_v − g_u), with
    g = H⁻¹(e_higher − e_lower). Only flips that take from `higher` or give to `lower` count."""
    lo, hi = verdicts.lo, verdicts.hi
    hessian = pair_hessian(
        len(theta), lo, hi, verdicts.wins.sum(axis=1) + verdicts.ties, theta, lam
    )
    target = np.zeros(len(theta))
    target[higher], target[lower] = 1.0, -1.0
    g = np.linalg.solve(hessian, target)
    loser, gainer = np.stack([lo, hi], axis=1), np.stack([hi, lo], axis=1)
    has_tie = verdicts.ties[:, None] >= 1
    # A win flipped moves a whole point; a tie flipped to a loss, half of one.
    amount = np.where(verdicts.wins >= 1, 1.0, np.where(has_tie, 0.5, 0.0))
    change = amount * (g[gainer] - g[loser])
    allowed = (amount > 0) & ((loser == higher) | (gainer == lower)) & (change < 0)
    if not allowed.any():
        return None
    pair, side = np.unravel_index(np.argmin(np.where(allowed, change, np.inf)), change.shape)
    return int(pair), int(side)


def separable_share(intervals: Sequence[tuple[float, float]]) -> tuple[int, int]:
    """(pairs whose 95% intervals do not overlap, all pairs) among the rated models: Arena-Hard's
    separability."""
    separated = total = 0
    for k, (low_a, high_a) in enumerate(intervals):
        for low_b, high_b in intervals[k + 1 :]:
            total += 1
            separated += high_a < low_b or high_b < low_a
    return separated, total
