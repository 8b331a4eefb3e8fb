"""The alternative-annotator test (issue 40) by seeded simulation: how often a judge that is no
better than a labeler is declared a winner, and how often a better one passes.

Each item has a true verdict (A, B or tie, uniform). Each of the labelers and the judge reports
it correctly with its own accuracy, else one of the two other verdicts at random. Every labeler
labels every item (the queue hands the same comparison to each of them).

- **Null (ε = 0)**: the judge is one more labeler, of the labelers' own accuracy. Judge and
  labeler are then exchangeable, so for every labeler E[W_h − W_f] = 0: every H0 (mean d ≥ ε)
  holds, at its boundary. Any labeler the judge "wins" against is a false discovery; under this
  global null the FDR Benjamini-Yekutieli controls equals the chance of any false win, so that
  rate must stay at or below q = 0.05, and the pass rate (winning rate ≥ 0.5) below it.
- **Power**: the judge reports the true verdict more often than the labelers (a judge that
  represents the consensus well), at the authors' margins.

The test is the service's own (`app.winrates.alttest.alt_test`), called directly: no HTTP or
database, every draw seeded.

Run: PYTHONPATH=$PWD .venv/bin/python bench/alt_test_sim.py --runs 2000 --seed 0
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from app import stats
from app.winrates.alttest import alt_test

VERDICTS = ("A", "B", "tie")
Q = 0.05


def annotate(rng: np.random.Generator, truth: np.ndarray, accuracy: float) -> list[str]:
    """The true verdict with probability `accuracy`, else one of the other two at random."""
    wrong = (truth + rng.integers(1, 3, truth.size)) % 3
    chosen = np.where(rng.random(truth.size) < accuracy, truth, wrong)
    return [VERDICTS[k] for k in chosen]


def one_run(
    rng: np.random.Generator,
    items: int,
    labelers: int,
    labeler_accuracy: float,
    judge_accuracy: float,
    epsilon: float,
) -> tuple[int, bool]:
    """(labelers the judge won against, passed) on one simulated slice."""
    truth = rng.integers(0, 3, items)
    names = [f"item-{k}" for k in range(items)]
    labels = {
        f"labeler-{h}": dict(zip(names, annotate(rng, truth, labeler_accuracy), strict=True))
        for h in range(labelers)
    }
    judge = dict(zip(names, annotate(rng, truth, judge_accuracy), strict=True))
    result = alt_test(judge, labels, epsilon, Q)
    return sum(row.judge_wins for row in result.labelers), bool(result.passed)


def scenario(
    runs: int,
    seed: int,
    *,
    items: int = 60,
    labelers: int = 4,
    labeler_accuracy: float = 0.7,
    judge_accuracy: float = 0.7,
    epsilon: float = 0.0,
) -> tuple[int, int]:
    """(runs with any false win, runs passed) over `runs` seeded slices."""
    rng = np.random.default_rng(seed)
    any_win = passed = 0
    for _ in range(runs):
        wins, ok = one_run(rng, items, labelers, labeler_accuracy, judge_accuracy, epsilon)
        any_win += wins > 0
        passed += ok
    return any_win, passed


def rate(k: int, n: int) -> str:
    low, high = stats.wilson_ci(k, n) or (float("nan"), float("nan"))
    return f"{k / n:.3f} ({low:.3f}–{high:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    started, cpu = time.perf_counter(), os.times()
    print("| scenario | labelers × items | ε | any labeler won (95% CI) | passed (95% CI) |")
    print("|---|---|---|---|---|")
    rows = [
        ("null: judge = a labeler (acc 0.7)", {"judge_accuracy": 0.7, "epsilon": 0.0}),
        ("null, 3 labelers × 30 items", {"labelers": 3, "items": 30, "epsilon": 0.0}),
        ("worse judge (acc 0.5), ε = 0.1", {"judge_accuracy": 0.5, "epsilon": 0.1}),
        ("same judge (acc 0.7), ε = 0.2", {"judge_accuracy": 0.7, "epsilon": 0.2}),
        ("better judge (acc 0.9), ε = 0.1", {"judge_accuracy": 0.9, "epsilon": 0.1}),
        ("better judge (acc 0.9), ε = 0", {"judge_accuracy": 0.9, "epsilon": 0.0}),
    ]
    for k, (name, knobs) in enumerate(rows):
        any_win, passed = scenario(args.runs, args.seed + k, **knobs)  # type: ignore[arg-type]
        shape = f"{knobs.get('labelers', 4)} × {knobs.get('items', 60)}"
        print(
            f"| {name} | {shape} | {knobs['epsilon']} | {rate(any_win, args.runs)} "
            f"| {rate(passed, args.runs)} |"
        )
    spent = os.times()
    print(
        f"\n{args.runs} runs per row, seed {args.seed}: {time.perf_counter() - started:.1f} s, "
        f"{spent.user - cpu.user + spent.system - cpu.system:.1f} s CPU"
    )


if __name__ == "__main__":
    main()
