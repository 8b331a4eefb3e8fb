"""The experiments' confidence sequence (app/sequential.py, issue 41): equal to the published
implementation it follows (truescore, to 1e-12), within [0, 1] and only ever narrowing, and, by
seeded simulation, a false decision rate under peeking after every comparison inside its
binomial band (where the fixed-sample interval checked as often is far outside it)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy.stats import binom
from truescore.sequential import confidence_sequence as truescore_sequence

from app import sequential
from app.sequential import MIN_OUTCOMES, EmpiricalBernstein, Interval, decide, decision_path

# A comparison's outcome for the candidate: a loss, a tie, a win.
OUTCOMES = (0.0, 0.5, 1.0)


def draw(rng: random.Random, win: float, tie: float, n: int) -> list[float]:
    """n outcomes: a win with probability `win`, a tie with `tie`, else a loss."""
    return [1.0 if (u := rng.random()) < win else 0.5 if u < win + tie else 0.0 for _ in range(n)]


@pytest.mark.parametrize("alpha", [0.05, 0.01, 0.2])
@pytest.mark.parametrize("seed", range(5))
def test_every_step_equals_truescore(alpha: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.choice(OUTCOMES, size=400) if seed % 2 else rng.uniform(0, 1, size=400)
    oracle = truescore_sequence(values, alpha=alpha, method="empirical_bernstein")
    sequence = EmpiricalBernstein(alpha)
    ours = [sequence.update(float(x)) for x in values]
    assert [i.lower for i in ours] == pytest.approx(list(oracle.lower_bounds), abs=1e-12)
    assert [i.upper for i in ours] == pytest.approx(list(oracle.upper_bounds), abs=1e-12)
    assert sequential.confidence_sequence(list(values), alpha) == ours[-1]


@given(st.lists(st.sampled_from(OUTCOMES) | st.floats(0, 1), min_size=1, max_size=200))
def test_the_interval_stays_in_the_unit_range_and_only_narrows(values: list[float]) -> None:
    sequence = EmpiricalBernstein(0.05)
    previous = Interval(0.0, 1.0)
    for x in values:
        current = sequence.update(x)
        assert 0.0 <= previous.lower <= current.lower <= current.upper <= previous.upper <= 1.0
        previous = current


def test_no_decision_before_the_minimum_and_the_first_crossing_is_kept() -> None:
    assert decision_path([1.0] * (MIN_OUTCOMES - 1), 0.05, 0.0).decision is None
    wins = decision_path([1.0] * 200, 0.05, 0.0)
    assert wins.decision == "candidate_better"
    assert wins.decided_after is not None
    assert wins.decided_after >= MIN_OUTCOMES
    # Later losses narrow the interval but never take the decision back.
    turned = decision_path([1.0] * 200 + [0.0] * 400, 0.05, 0.0)
    assert (turned.decision, turned.decided_after) == ("candidate_better", wins.decided_after)
    assert decision_path([0.0] * 200, 0.05, 0.0).decision == "baseline_better"
    assert decision_path([], 0.05, 0.0) == sequential.DecisionPath(None, None, None)


def test_the_decision_rule_reads_the_margin() -> None:
    assert decide(Interval(0.56, 0.7), 0.05) == "candidate_better"
    assert decide(Interval(0.54, 0.7), 0.05) is None
    assert decide(Interval(0.3, 0.44), 0.05) == "baseline_better"
    assert decide(Interval(0.46, 0.54), 0.05) == "equivalent"
    assert decide(Interval(0.46, 0.54), 0.0) is None


def test_a_tied_experiment_decides_equivalent_within_its_margin() -> None:
    outcomes = draw(random.Random(3), 0.4, 0.2, 3000)
    path = decision_path(outcomes, 0.05, margin=0.1)
    assert path.decision == "equivalent"


def test_the_fixed_interval_is_the_clt_one() -> None:
    values = [1.0, 0.0, 0.5, 1.0, 1.0]
    interval = sequential.fixed_interval(values, 0.05)
    assert interval is not None
    half = 1.959963984540054 * np.std(values, ddof=1) / np.sqrt(5)
    assert (interval.lower, interval.upper) == pytest.approx(
        (max(0, np.mean(values) - half), min(1, np.mean(values) + half))
    )
    assert sequential.fixed_interval([1.0], 0.05) is None


# A smaller run of bench/experiment_sim.py: A/A experiments (win 0.4, tie 0.2, loss 0.4), each
# read after every comparison up to `CAP`.
RUNS, CAP, ALPHA = 300, 600, 0.05


def false_decisions(peek_fixed: bool) -> int:
    rng = random.Random(20261129)
    wrong = 0
    for _ in range(RUNS):
        outcomes = draw(rng, 0.4, 0.2, CAP)
        if peek_fixed:
            wrong += any(
                (i := sequential.fixed_interval(outcomes[:n], ALPHA)) is not None
                and decide(i, 0.0) is not None
                for n in range(MIN_OUTCOMES, CAP + 1, 5)
            )
        else:
            wrong += decision_path(outcomes, ALPHA, 0.0).decision is not None
    return wrong


def test_peeking_after_every_comparison_keeps_false_decisions_within_alpha() -> None:
    # The count of false decisions is at most Binomial(RUNS, alpha)'s 99.9% quantile: a method
    # whose real rate were alpha would pass 999 times in 1000.
    limit = binom.ppf(0.999, RUNS, ALPHA)
    assert false_decisions(peek_fixed=False) <= limit
    # The same peeking with a fixed-sample interval decides wrongly far more often: the test
    # would see a sequence that were not anytime-valid.
    assert false_decisions(peek_fixed=True) > 3 * limit


def test_a_better_candidate_is_found_and_never_called_worse() -> None:
    rng = random.Random(7)
    paths = [decision_path(draw(rng, 0.5, 0.2, 1500), ALPHA, 0.0) for _ in range(100)]
    decisions = [p.decision for p in paths]
    assert "baseline_better" not in decisions
    assert decisions.count("candidate_better") >= 90
