"""Experiments under peeking (issue 41), by seeded simulation: how often an A/A experiment decides
(a false decision) when it is read after every comparison, against a fixed-sample interval read
as often; and how soon an A/B experiment with a true win rate of 0.60 decides, against the fixed
sample size of the same power.

Each comparison's outcome for the candidate is a win, a tie (one half) or a loss: A/A wins 40%,
ties 20%, loses 40% (mean 0.5); A/B wins 50%, ties 20%, loses 30% (mean 0.60). The sequence and
the decision rule are the service's own (`app.sequential`), called directly: no HTTP or
database, every draw seeded.

Run: PYTHONPATH=$PWD .venv/bin/python bench/experiment_sim.py --runs 1000 --cap 2000 --seed 0
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from statistics import NormalDist

import numpy as np

from app import sequential
from app.sequential import MIN_OUTCOMES

ALPHA = 0.05
AA = (0.4, 0.2)  # (win, tie)
AB = (0.5, 0.2)
CALLS_PER_COMPARISON = 2  # a swap comparison with one judge


def outcomes(rng: np.random.Generator, win: float, tie: float, n: int) -> list[float]:
    u = rng.random(n)
    return list(np.where(u < win, 1.0, np.where(u < win + tie, 0.5, 0.0)))


def fixed_peeking_decides(xs: list[float]) -> bool:
    """The fixed-sample interval read after every comparison from the minimum on."""
    values = np.asarray(xs)
    n = np.arange(1, values.size + 1)
    mean = np.cumsum(values) / n
    square = np.cumsum(values**2) / n
    sd = np.sqrt(np.maximum(square - mean**2, 0) * n / np.maximum(n - 1, 1))
    half = NormalDist().inv_cdf(1 - ALPHA / 2) * sd / np.sqrt(n)
    outside = (mean - half > 0.5) | (mean + half < 0.5)
    return bool(outside[MIN_OUTCOMES - 1 :].any())


def wilson(k: int, n: int) -> tuple[float, float]:
    z = NormalDist().inv_cdf(0.975)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def fixed_sample_size(power: float) -> int:
    """The comparisons a fixed-sample two-sided z-test at ALPHA needs for `power` at 0.60."""

    def variance(win: float, tie: float) -> float:
        mean = win + tie / 2
        return win + tie / 4 - mean * mean

    z_alpha = NormalDist().inv_cdf(1 - ALPHA / 2)
    z_power = NormalDist().inv_cdf(power)
    spread = z_alpha * math.sqrt(variance(*AA)) + z_power * math.sqrt(variance(*AB))
    return math.ceil((spread / 0.1) ** 2)


def cpu_ticks() -> tuple[int, int] | None:
    """(ticks the hypervisor stole, all ticks) from /proc/stat; None where unreadable."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
    except OSError:
        return None
    return (fields[7], sum(fields)) if len(fields) > 7 else None


def row(*cells: str) -> None:
    print("| " + " | ".join(cells) + " |")


def rate(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k / n:.3f} ({low:.3f}–{high:.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--cap", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start, cpu_start, ticks_start = time.perf_counter(), time.process_time(), cpu_ticks()
    rng = np.random.default_rng(args.seed)

    sequential_wrong = fixed_wrong = 0
    for _ in range(args.runs):
        xs = outcomes(rng, *AA, args.cap)
        sequential_wrong += sequential.decision_path(xs, ALPHA, 0.0).decision is not None
        fixed_wrong += fixed_peeking_decides(xs)

    stops: list[int] = []
    wrong_way = 0
    for _ in range(args.runs):
        path = sequential.decision_path(outcomes(rng, *AB, args.cap), ALPHA, 0.0)
        if path.decision == "candidate_better" and path.decided_after is not None:
            stops.append(path.decided_after)
        wrong_way += path.decision == "baseline_better"

    power = len(stops) / args.runs
    # The fixed design is given the lower 95% bound of the observed power (all runs deciding is
    # a power of 1, which no fixed sample reaches): the savings below are the smaller for it.
    power_low = wilson(len(stops), args.runs)[0]
    fixed_n = fixed_sample_size(power_low)
    median = statistics.median(stops) if stops else float("nan")
    mean = statistics.fmean(stops) if stops else float("nan")
    # An experiment that did not decide ran to the cap: its calls count too.
    spent = (sum(stops) + (args.runs - len(stops)) * args.cap) / args.runs
    print(f"runs={args.runs} cap={args.cap} seed={args.seed} alpha={ALPHA} min={MIN_OUTCOMES}")
    row("design", "A/A false decisions (95% CI)")
    row("---", "---")
    row("confidence sequence, read after every comparison", rate(sequential_wrong, args.runs))
    row("fixed-sample interval, read after every comparison", rate(fixed_wrong, args.runs))
    print()
    row("A/B at 0.60", "value")
    row("---", "---")
    row("decided candidate_better within the cap (power)", f"{power:.3f}")
    row("decided baseline_better", str(wrong_way))
    p90 = np.percentile(stops, 90) if stops else float("nan")
    row("comparisons to a decision: median / mean / p90", f"{median:.0f} / {mean:.0f} / {p90:.0f}")
    row("mean comparisons spent per experiment (undecided: the cap)", f"{spent:.0f}")
    row(f"fixed-sample design of power {power_low:.3f} (the lower 95% bound)", str(fixed_n))
    saved = (fixed_n - spent) * CALLS_PER_COMPARISON
    row("calls saved against it, per experiment (mean)", f"{saved:.0f} ({1 - spent / fixed_n:.0%})")
    ticks_end = cpu_ticks()
    stolen = "unknown"
    if ticks_start is not None and ticks_end is not None and ticks_end[1] > ticks_start[1]:
        share = (ticks_end[0] - ticks_start[0]) / (ticks_end[1] - ticks_start[1])
        stolen = f"{share:.1%} of the machine's CPU time"
    print(
        f"wall {time.perf_counter() - start:.1f} s, CPU {time.process_time() - cpu_start:.1f} s, "
        f"load {os.getloadavg()[0]:.2f}, steal {stolen}"
    )


if __name__ == "__main__":
    main()
