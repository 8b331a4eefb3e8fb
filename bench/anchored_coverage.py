"""Coverage of the win-rate intervals when the judge is biased (issue 40), by seeded simulation.

Each run draws comparisons of a model M against a baseline B with hidden qualities; humans prefer
the better response; the judge sees the same qualities (noisily) plus a bias for M: a length bias
(M writes longer, the judge likes length, humans do not) or a self-preference (the judge is of M's
family). A uniform random slice is labelled, as the labeling queue draws it. The judge-only,
human-only and anchored (PPI++) 95% intervals are checked against the true human win rate,
computed exactly from the model by Gauss-Hermite quadrature. The estimators are the service's own
(`app.ppi`), called directly: no HTTP or database, every draw seeded.

Run: PYTHONPATH=$PWD .venv/bin/python bench/anchored_coverage.py --runs 1000 --seed 0
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app import ppi

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Scenario:
    """A judge's bias for M, in logits, on top of the humans' preference."""

    name: str
    quality_gap: float = 0.2  # mean q_M − q_B: M is a little better
    human_slope: float = 1.5  # humans: P(M wins | decisive) = σ(1.5·Δq)
    human_ties: float = 0.15
    judge_slope: float = 1.5
    judge_noise: float = 0.4  # the judge sees Δq + N(0, 0.4²)
    judge_ties: float = 0.10
    length_bias: float = 0.0  # logit per tanh(Δlen / 300)
    mean_delta_len: float = 0.0  # characters, M minus B
    self_preference: float = 0.0  # logit added for M
    comparisons: int = 2000
    labelled: int = 200

    def true_win_rate(self) -> float:
        """E[human outcome for M]: ties count ½; Δq ~ N(gap, 2) integrated by quadrature."""
        nodes, weights = np.polynomial.hermite.hermgauss(80)
        delta_q = self.quality_gap + math.sqrt(2 * 2.0) * nodes
        decisive = float(np.sum(weights * sigmoid(self.human_slope * delta_q)) / math.sqrt(math.pi))
        return self.human_ties * 0.5 + (1 - self.human_ties) * decisive


SCENARIOS = (
    Scenario("unbiased judge"),
    Scenario("length bias", length_bias=1.2, mean_delta_len=250.0),
    Scenario("self-preference", self_preference=0.8),
)


def sigmoid(x: Floats) -> Floats:
    """The logistic function."""
    return 1.0 / (1.0 + np.exp(-x))


def outcomes(rng: np.random.Generator, p_win: Floats, ties: float) -> Floats:
    """Won 1, tie ½, lost 0: a tie with probability `ties`, else a win with probability p."""
    won = (rng.random(p_win.size) < p_win).astype(np.float64)
    return np.where(rng.random(p_win.size) < ties, 0.5, won)


def simulate(rng: np.random.Generator, s: Scenario) -> tuple[Floats, Floats]:
    """One run's comparisons: the humans' outcome and the judge's debiased outcome for M."""
    size = s.comparisons
    delta_q = rng.normal(s.quality_gap, math.sqrt(2.0), size)
    delta_len = rng.normal(s.mean_delta_len, 300.0, size)
    human = outcomes(rng, sigmoid(s.human_slope * delta_q), s.human_ties)
    seen = delta_q + rng.normal(0.0, s.judge_noise, size)
    logit = s.judge_slope * seen + s.length_bias * np.tanh(delta_len / 300.0) + s.self_preference
    return human, outcomes(rng, sigmoid(logit), s.judge_ties)


@dataclass(frozen=True)
class RunIntervals:
    """One run's three 95% intervals and the anchored λ."""

    judge: ppi.MeanEstimate
    human: ppi.MeanEstimate
    anchored: ppi.AnchoredEstimate


def one_run(rng: np.random.Generator, s: Scenario) -> RunIntervals:
    """Draw a run, label a uniform slice, estimate."""
    human, judged = simulate(rng, s)
    labelled = rng.permutation(s.comparisons) < s.labelled  # a uniform slice, as the queue draws
    judge = ppi.clt_mean(judged)
    human_only = ppi.clt_mean(human[labelled])
    anchored = ppi.ppi_mean(human[labelled], judged[labelled], judged[~labelled])
    assert judge is not None
    assert human_only is not None
    assert anchored is not None
    return RunIntervals(judge, human_only, anchored)


@dataclass(frozen=True)
class Coverage:
    """Over many runs: how often each interval held the true human win rate, and its width."""

    scenario: str
    runs: int
    truth: float
    judge: int
    human: int
    anchored: int
    judge_mean: float
    judge_width: float
    human_width: float
    anchored_width: float
    mean_lambda: float
    widest_ratio: float  # the anchored half-width over the human-only one, at its largest


def covers(interval: tuple[float, float], value: float) -> bool:
    """Whether the interval holds the value."""
    return interval[0] <= value <= interval[1]


def coverage(s: Scenario, runs: int, seed: int) -> Coverage:
    """`runs` seeded runs of the scenario."""
    rng = np.random.default_rng(seed)
    truth = s.true_win_rate()
    results = [one_run(rng, s) for _ in range(runs)]
    return Coverage(
        scenario=s.name,
        runs=runs,
        truth=truth,
        judge=sum(covers(r.judge.ci95, truth) for r in results),
        human=sum(covers(r.human.ci95, truth) for r in results),
        anchored=sum(covers(r.anchored.ci95, truth) for r in results),
        judge_mean=float(np.mean([r.judge.estimate for r in results])),
        judge_width=float(np.mean([2 * r.judge.half_width for r in results])),
        human_width=float(np.mean([2 * r.human.half_width for r in results])),
        anchored_width=float(np.mean([2 * r.anchored.half_width for r in results])),
        mean_lambda=float(np.mean([r.anchored.lam for r in results])),
        widest_ratio=max(r.anchored.half_width / r.human.half_width for r in results),
    )


def table(rows: list[Coverage]) -> str:
    """The Markdown table BENCHMARKS.md shows."""
    lines = [
        "| scenario | true human win rate | judge's mean | coverage: judge / human / anchored "
        "| mean width: judge / human / anchored | mean λ | widest anchored / human |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in rows:
        lines.append(
            f"| {c.scenario} | {c.truth:.3f} | {c.judge_mean:.3f} "
            f"| {c.judge / c.runs:.3f} / {c.human / c.runs:.3f} / {c.anchored / c.runs:.3f} "
            f"| {c.judge_width:.3f} / {c.human_width:.3f} / {c.anchored_width:.3f} "
            f"| {c.mean_lambda:.2f} | {c.widest_ratio:.3f} |"
        )
    return "\n".join(lines)


def main() -> None:
    """Print the coverage table for every scenario."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    rows = [coverage(s, args.runs, args.seed + i) for i, s in enumerate(SCENARIOS)]
    s = SCENARIOS[0]
    print(f"runs={args.runs} seed={args.seed} comparisons={s.comparisons} labelled={s.labelled}")
    print(table(rows))
    print(f"wall time {time.perf_counter() - start:.1f} s")


if __name__ == "__main__":
    main()
