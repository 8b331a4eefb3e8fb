"""The report's `human_baseline` per judge: length and position preference against the humans'.

A raw longer-wins or first-pick rate mixes the judge's bias with what the responses deserve;
on gold-labelled comparisons the labelers' own preferences on the same items are the baseline,
and the judge's excess over them is the bias. Definitions (SQL counts from
`app.labels.queries.baseline_table`; comparisons: gold-labelled, not disputed, not placebo, in
the report's scope, with a decisive design call of the judge):

- length: comparisons with unequal lengths and a decisive gold (A or B). h_c = 1 when the gold is
  the longer response, else 0; j_c = share of the judge's decisive design calls on c that picked
  the longer one. `human_longer_rate` = mean h_c (Wilson), `judge_longer_rate` = mean j_c,
  `excess_longer` = mean (j_c − h_c), which is their difference.
- position: comparisons with at least one decisive label whose display order is known. h_c =
  share of those labels (each labeler's latest) that picked the response shown first; j_c = share
  of the judge's decisive design calls that picked the first slot. The pooled rates count labels
  and calls (Wilson); `excess_first` = mean (j_c − h_c).
- Every CI of a mean over comparisons is a percentile bootstrap (1,000 resamples, seed 0) over the
  most recent `MAX_OBSERVATIONS` comparisons by label time (`sampled`, `n_used`), as
  self-preference's; the point estimates use all of them.
- Tiers count the figure's comparisons with the human-agreement thresholds; estimates are
  withheld below `preliminary`. The confusion matrix is counts, given at every tier.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from app import stats
from app.labels.schemas import (
    HumanBaselineSection,
    LengthBaseline,
    PositionBaseline,
    Winner,
)

WINNERS: tuple[Winner, ...] = ("A", "B", "tie")
BOOTSTRAP_ROUNDS = 1000


@dataclass(frozen=True, order=True)
class Pairing:
    """Comparisons that share the judge's share j and the humans' share h (`count` of them)."""

    judge: float
    human: float
    kept: bool
    count: int


def expand(values: Iterable[float], counts: Iterable[int]) -> npt.NDArray[np.float64]:
    """Each value repeated `count` times, sorted: resamples must not depend on row order."""
    return np.sort(np.repeat(np.asarray(list(values), dtype=np.float64), list(counts)))


def bootstrap_mean_ci(values: npt.NDArray[np.float64]) -> stats.Interval | None:
    """The section's percentile-bootstrap CI of a mean over comparisons."""
    return stats.percentile_bootstrap_mean_ci(values, rounds=BOOTSTRAP_ROUNDS, seed=0)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Paired:
    """The per-comparison pairs (j_c, h_c) of one figure."""

    pairings: list[Pairing]

    @property
    def n(self) -> int:
        return sum(p.count for p in self.pairings)

    @property
    def n_used(self) -> int:
        return sum(p.count for p in self.pairings if p.kept)

    def mean(self, side: str) -> float:
        """Mean over all comparisons of j_c (`judge`), h_c (`human`) or j_c − h_c (`excess`)."""
        total = sum(self.value(p, side) * p.count for p in sorted(self.pairings))
        return total / self.n

    def ci(self, side: str) -> stats.Interval | None:
        """Bootstrap CI of `mean(side)` over the kept comparisons."""
        kept = [p for p in self.pairings if p.kept]
        return bootstrap_mean_ci(
            expand((self.value(p, side) for p in kept), (p.count for p in kept))
        )

    @staticmethod
    def value(p: Pairing, side: str) -> float:
        return {"judge": p.judge, "human": p.human, "excess": p.judge - p.human}[side]


def length_pairs(rows: Iterable[Any]) -> Paired:
    """(share of the judge's decisive calls for the longer response, gold is the longer)."""
    return Paired(
        [
            Pairing(r.j_longer / r.j_n, float(r.gold == r.longer), bool(r.kept), r.rows)
            for r in rows
            if r.longer is not None and r.gold in ("A", "B")
        ]
    )


def length_baseline(rows: list[Any]) -> LengthBaseline:
    """Longer-response rates of the humans and the judge and the judge's excess."""
    paired = length_pairs(rows)
    n, used = paired.n, paired.n_used
    level = stats.tier("labelled", n)
    section = LengthBaseline(
        n=n,
        human_longer_rate=None,
        human_longer_rate_ci95=None,
        judge_longer_rate=None,
        judge_longer_rate_ci95=None,
        excess_longer=None,
        excess_longer_ci95=None,
        sampled=used < n,
        n_used=used,
        tier=level,
        reason="insufficient_data" if level == "insufficient" else None,
    )
    if section.reason is not None:
        return section
    longer = sum(p.count for p in paired.pairings if p.human == 1.0)
    section.human_longer_rate = longer / n
    section.human_longer_rate_ci95 = stats.wilson_ci(longer, n)
    section.judge_longer_rate = paired.mean("judge")
    section.judge_longer_rate_ci95 = paired.ci("judge")
    section.excess_longer = paired.mean("excess")
    section.excess_longer_ci95 = paired.ci("excess")
    return section


def position_baseline(rows: list[Any]) -> PositionBaseline:
    """First-slot rates of the labelers (known display orders) and the judge, and the excess."""
    ordered = [r for r in rows if r.h_n > 0]
    paired = Paired(
        [Pairing(r.j_first / r.j_n, r.h_first / r.h_n, bool(r.kept), r.rows) for r in ordered]
    )
    n, used = paired.n, paired.n_used
    totals: Counter[str] = Counter()
    for r in ordered:
        totals.update(h_n=r.h_n * r.rows, h_first=r.h_first * r.rows)
        totals.update(j_n=r.j_n * r.rows, j_first=r.j_first * r.rows)
    level = stats.tier("labelled", n)
    reason = None
    if n == 0 and not any(r.ordered for r in rows):
        reason = "no_display_order"
    elif level == "insufficient":
        reason = "insufficient_data"
    section = PositionBaseline(
        n=n,
        human_labels=totals["h_n"],
        human_first_rate=None,
        human_first_rate_ci95=None,
        judge_calls=totals["j_n"],
        judge_first_pick_rate=None,
        excess_first=None,
        excess_first_ci95=None,
        sampled=used < n,
        n_used=used,
        tier=level,
        reason=reason,
    )
    if reason is not None:
        return section
    section.human_first_rate = totals["h_first"] / totals["h_n"]
    section.human_first_rate_ci95 = stats.wilson_ci(totals["h_first"], totals["h_n"])
    section.judge_first_pick_rate = totals["j_first"] / totals["j_n"]
    section.judge_first_pick_rate_ci95 = stats.wilson_ci(totals["j_first"], totals["j_n"])
    section.excess_first = paired.mean("excess")
    section.excess_first_ci95 = paired.ci("excess")
    return section


def confusion(verdicts: Counter[tuple[str, str]]) -> dict[Winner, dict[Winner, int]]:
    """Gold class -> the judge's verdict -> comparisons, every cell present."""
    return {gold: {verdict: verdicts[(verdict, gold)] for verdict in WINNERS} for gold in WINNERS}


def human_baseline(rows: list[Any], verdicts: Counter[tuple[str, str]]) -> HumanBaselineSection:
    """One judge's `human_baseline` from its `baseline_table` rows and (verdict, gold) counts."""
    return HumanBaselineSection(
        length=length_baseline(rows),
        position=position_baseline(rows),
        confusion=confusion(verdicts),
        n_verdicts=sum(verdicts.values()),
    )
