"""Canary drift statistics against independent oracles (scipy, statsmodels, published values)."""

import itertools
import random
from random import Random
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from app.canaries.stats import (
    Drift,
    ItemResult,
    PairedTest,
    compare_runs,
    compare_with,
    newcombe_paired_ci,
    summarize,
)

MIN_EFFECT = 0.05
# Paired 2×2 tables (a, b, c, d): none discordant, small, lopsided, large and very large.
TABLES = [
    (10, 0, 0, 10),
    (0, 0, 0, 3),
    (5, 3, 9, 2),
    (0, 7, 0, 0),
    (3, 0, 12, 1),
    (100, 40, 60, 300),
    (1000, 250, 310, 500),
    (4000, 1200, 1320, 2500),
]


def item(
    key: str,
    gold: str | None = "A",
    winners: tuple[str | None, str | None] = (None, None),
    picks: tuple[str | None, str | None] = (None, None),
    verdict: str | None = None,
) -> ItemResult:
    return ItemResult(item=key, gold=gold, winners=winners, picks=picks, verdict=verdict)  # type: ignore[arg-type]


def paired(drift: Drift, name: str) -> PairedTest:
    return next(t for t in drift.tests if t.name == name)


def statsmodels_p(a: int, b: int, c: int, d: int) -> float:
    return float(mcnemar(np.array([[a, b], [c, d]]), exact=True).pvalue)


def verdict_runs(a: int, b: int, c: int, d: int) -> tuple[list[ItemResult], list[ItemResult]]:
    """Two runs whose per-item verdict correctness is the paired table (rows = previous)."""
    states = [(True, True)] * a + [(True, False)] * b + [(False, True)] * c + [(False, False)] * d
    previous = [
        item(f"i{n}", verdict="A" if before else "B") for n, (before, _) in enumerate(states)
    ]
    current = [item(f"i{n}", verdict="A" if now else "B") for n, (_, now) in enumerate(states)]
    return previous, current


def consistency_runs(a: int, b: int, c: int, d: int) -> tuple[list[ItemResult], list[ItemResult]]:
    """Two runs whose per-item swap consistency is the paired table (rows = previous)."""
    pair = {True: ("A", "A"), False: ("A", "B")}
    states = [(True, True)] * a + [(True, False)] * b + [(False, True)] * c + [(False, False)] * d
    previous = [item(f"i{n}", winners=pair[before]) for n, (before, _) in enumerate(states)]
    current = [item(f"i{n}", winners=pair[now]) for n, (_, now) in enumerate(states)]
    return previous, current


# McNemar and the exact binomial tests against statsmodels and scipy


@pytest.mark.parametrize("table", TABLES)
def test_verdict_accuracy_mcnemar_equals_statsmodels(table: tuple[int, int, int, int]) -> None:
    a, b, c, d = table
    result = paired(compare_runs(*verdict_runs(*table), MIN_EFFECT), "verdict_accuracy")
    assert (result.n, result.b, result.c) == (a + b + c + d, b, c)
    assert result.p_value == pytest.approx(statsmodels_p(*table), rel=1e-12, abs=1e-300)
    assert result.difference == pytest.approx((c - b) / (a + b + c + d))
    assert result.effect == pytest.approx(abs(c - b) / (a + b + c + d))


@pytest.mark.parametrize("table", TABLES)
def test_swap_consistency_mcnemar_equals_statsmodels(table: tuple[int, int, int, int]) -> None:
    a, b, c, d = table
    drift = compare_runs(*consistency_runs(*table), MIN_EFFECT)
    result = paired(drift, "position_consistency")
    assert (result.n, result.b, result.c) == (a + b + c + d, b, c)
    assert result.p_value == pytest.approx(statsmodels_p(*table), rel=1e-12, abs=1e-300)
    assert result.ci95 == pytest.approx(newcombe_paired_ci(*table))


def test_no_discordant_items_give_p_one_and_no_drift() -> None:
    drift = compare_runs(*verdict_runs(40, 0, 0, 10), MIN_EFFECT)
    result = paired(drift, "verdict_accuracy")
    assert (result.p_value, result.p_adjusted, result.difference) == (1.0, 1.0, 0.0)
    assert not drift.drift


@pytest.mark.parametrize(
    ("to_a", "to_b", "same"), [(0, 0, 5), (9, 2, 30), (31, 60, 109), (0, 14, 1)]
)
def test_discordant_verdicts_binomial_equals_scipy(to_a: int, to_b: int, same: int) -> None:
    previous = [item(f"a{n}", verdict="B") for n in range(to_a)]
    previous += [item(f"b{n}", verdict="A") for n in range(to_b)]
    current = [item(f"a{n}", verdict="A") for n in range(to_a)]
    current += [item(f"b{n}", verdict="B") for n in range(to_b)]
    # Unchanged verdicts, and ties and missing verdicts, which the direction test leaves out.
    for n in range(same):
        previous.append(item(f"s{n}", verdict="A"))
        current.append(item(f"s{n}", verdict="A"))
    previous += [item("tie", verdict="tie"), item("gone", verdict="A")]
    current += [item("tie", verdict="A"), item("gone", verdict=None)]
    drift = compare_runs(previous, current, MIN_EFFECT)
    result = paired(drift, "verdict_direction")
    n = to_a + to_b + same
    assert (result.n, result.b, result.c) == (n, to_b, to_a)
    expected = sps.binomtest(to_a, to_a + to_b, 0.5).pvalue if to_a + to_b else 1.0
    assert result.p_value == pytest.approx(expected, rel=1e-12)
    assert result.effect == pytest.approx(abs(to_a - to_b) / n)
    # Agreement counts every item with a verdict in both runs, the tie → A one included.
    agreement = drift.verdict_agreement
    assert (agreement.k, agreement.n) == (same, n + 1)
    assert agreement.ci95 == pytest.approx(proportion_confint(same, n + 1, method="wilson"))


def test_first_pick_sign_test_equals_scipy_and_the_rate_change() -> None:
    # Everyone starts at one first pick of two; 30 items move to two, 10 to none, 60 stay.
    previous = [item(f"i{n}", picks=("first", "second")) for n in range(100)]
    moves = [("first", "first")] * 30 + [("second", "second")] * 10 + [("first", "second")] * 60
    current = [item(f"i{n}", picks=moves[n]) for n in range(100)]
    # An item with no decisive call in one run is left out.
    previous.append(item("ties", picks=("tie", "tie")))
    current.append(item("ties", picks=("first", "first")))
    result = paired(compare_runs(previous, current, MIN_EFFECT), "first_pick_rate")
    assert (result.n, result.b, result.c) == (100, 10, 30)
    assert result.p_value == pytest.approx(sps.binomtest(30, 40, 0.5).pvalue, rel=1e-12)
    # First picks go from 100 of 200 decisive calls to 120 of 200.
    assert result.difference == pytest.approx(0.1)
    assert result.ci95 is not None
    assert result.ci95[0] < 0.1 < result.ci95[1]


def test_first_pick_share_counts_decisive_calls_only() -> None:
    # (first, tie) is one first pick of one decisive call: a share of 1, up from 1/2.
    previous = [item("i", picks=("first", "second"))]
    current = [item("i", picks=("first", "tie"))]
    result = paired(compare_runs(previous, current, MIN_EFFECT), "first_pick_rate")
    assert (result.b, result.c) == (0, 1)
    assert result.difference == pytest.approx(0.5)


def test_holm_equals_statsmodels_and_drift_needs_the_effect_floor() -> None:
    previous, current = verdict_runs(150, 5, 30, 15)
    # Consistency drops on the same items; first picks rise on some.
    pairs = {True: ("A", "A"), False: ("A", "B")}
    for n in range(len(previous)):
        consistent_before, consistent_now = n % 3 != 0, n % 5 != 0
        previous[n] = item(
            previous[n].item,
            "A",
            pairs[consistent_before],
            ("first", "second"),
            previous[n].verdict,
        )
        current[n] = item(
            current[n].item,
            "A",
            pairs[consistent_now],
            ("first", "first") if n % 7 == 0 else ("first", "second"),
            current[n].verdict,
        )
    drift = compare_runs(previous, current, MIN_EFFECT)
    raw = [t.p_value for t in drift.tests]
    expected = multipletests(raw, method="holm")[1]
    np.testing.assert_allclose([t.p_adjusted for t in drift.tests], expected, rtol=1e-12)
    for t in drift.tests:
        assert t.significant == (t.p_adjusted < 0.05 and (t.effect or 0.0) >= MIN_EFFECT)
    assert paired(drift, "verdict_accuracy").significant
    assert drift.drift
    assert not compare_runs(previous, current, min_effect=0.5).drift


# Newcombe's paired interval


def test_newcombe_interval_equals_the_published_example() -> None:
    # Cavo et al. (2012) in Fagerland, Lydersen & Laake, "Statistical Analysis of Contingency
    # Tables" (2017), ch. 8: estimate -0.0621, 95% CI -0.1186 to -0.0046 for p1+ − p+1. Ours is
    # current − previous with previous as rows, so the published interval comes back negated.
    low, high = newcombe_paired_ci(59, 6, 16, 80) or (0.0, 0.0)
    assert (round(-high, 4), round(-low, 4)) == (-0.1186, -0.0046)


@given(st.tuples(*[st.integers(0, 60)] * 4).filter(lambda t: sum(t) > 0))
def test_newcombe_interval_holds_the_difference_inside_minus_one_one(
    table: tuple[int, int, int, int],
) -> None:
    a, b, c, d = table
    low, high = newcombe_paired_ci(a, b, c, d) or (0.0, 0.0)
    assert -1.0 <= low <= (c - b) / sum(table) <= high <= 1.0
    # Swapping the runs mirrors the interval.
    assert newcombe_paired_ci(a, c, b, d) == pytest.approx((-high, -low))


# One run's figures


def test_summary_rates_and_wilson_intervals() -> None:
    items = [
        item("1", "A", ("A", "A"), ("first", "second"), "A"),
        item("2", "A", ("A", "B"), ("first", "first"), "tie"),
        item("3", "B", ("B", None), ("second", None), "B"),
        item("4", None, ("tie", "tie"), ("tie", "tie"), "tie"),
        item("5", "tie", ("A", "B"), ("first", "first"), "tie"),
        item("6", "B", (None, None), (None, None), None),
    ]
    figures = summarize(items)
    # Parsed calls on labelled items: items 1, 2, 3 and 5, seven calls, four right.
    assert (figures.call_accuracy.k, figures.call_accuracy.n) == (4, 7)
    assert figures.n_labelled_items == 4
    assert (figures.verdict_accuracy.k, figures.verdict_accuracy.n) == (3, 4)
    assert (figures.position_consistency.k, figures.position_consistency.n) == (2, 4)
    assert (figures.first_pick_rate.k, figures.first_pick_rate.n) == (5, 7)
    for rate in (figures.verdict_accuracy, figures.position_consistency, figures.first_pick_rate):
        assert rate.ci95 == pytest.approx(proportion_confint(rate.k, rate.n, method="wilson"))


def test_call_accuracy_with_both_orders_is_the_mean_of_the_per_order_accuracies() -> None:
    rng = random.Random(3)
    items = [
        item(str(n), rng.choice("AB"), (rng.choice("AB"), rng.choice(["A", "B", "tie"])))
        for n in range(300)
    ]
    per_order = [np.mean([i.winners[r] == i.gold for i in items]) for r in (0, 1)]
    figures = summarize(items)
    accuracy = figures.call_accuracy.value
    assert accuracy == pytest.approx(np.mean(per_order))
    low, high = figures.call_accuracy.ci95 or (1.0, 0.0)
    assert accuracy is not None
    assert low < accuracy < high
    # The seeded bootstrap does not depend on the order of the items.
    assert summarize(items[::-1]).call_accuracy.ci95 == figures.call_accuracy.ci95


def test_empty_runs_have_no_rates_and_no_drift() -> None:
    figures = summarize([])
    assert figures.call_accuracy.value is None
    assert figures.call_accuracy.ci95 is None
    assert figures.first_pick_rate.ci95 is None
    drift = compare_runs([], [], MIN_EFFECT)
    assert drift.n_items == 0
    assert not drift.drift
    assert all(t.p_value == 1.0 and t.effect is None and t.ci95 is None for t in drift.tests)


# Pairing


def test_only_items_in_both_runs_count() -> None:
    previous, current = verdict_runs(20, 2, 8, 5)
    extra = [item(f"new{n}", verdict="A") for n in range(50)]
    gone = [item(f"old{n}", verdict="B") for n in range(50)]
    alone = compare_runs(previous, current, MIN_EFFECT)
    padded = compare_runs(previous + gone, current + extra, MIN_EFFECT)
    assert padded == alone
    assert padded.n_items == 35


def test_previous_verdicts_are_held_against_the_current_gold() -> None:
    previous = [item("i", gold="B", verdict="A")]
    current = [item("i", gold="A", verdict="A")]
    result = paired(compare_runs(previous, current, MIN_EFFECT), "verdict_accuracy")
    assert (result.b, result.c) == (0, 0)


def test_an_item_listed_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="more than once"):
        compare_runs([item("i"), item("i")], [item("i")], MIN_EFFECT)


# Properties

WINNERS: list[Any] = ["A", "B", "tie", None]
PICKS: list[Any] = ["first", "second", "tie", None]
winners = st.sampled_from(WINNERS)
picks = st.sampled_from(PICKS)
item_results = st.builds(
    ItemResult,
    item=st.text(min_size=1, max_size=3),
    gold=winners,
    winners=st.tuples(winners, winners),
    picks=st.tuples(picks, picks),
    verdict=winners,
)
runs = st.lists(item_results, max_size=40, unique_by=lambda i: i.item)


@given(runs)
def test_a_run_compared_with_itself_never_drifts(run: list[ItemResult]) -> None:
    drift = compare_runs(run, run, MIN_EFFECT)
    assert not drift.drift
    for t in drift.tests:
        assert (t.b, t.c, t.p_value, t.p_adjusted) == (0, 0, 1.0, 1.0)
        assert t.difference in (None, 0.0)


@given(runs, st.randoms(use_true_random=False))
def test_swapping_the_runs_mirrors_every_test(first: list[ItemResult], rng: Random) -> None:
    # A canary's gold is fixed per item (copied at creation): both runs share it.
    second = [
        ItemResult(
            i.item,
            i.gold,
            (rng.choice(WINNERS), rng.choice(WINNERS)),
            (rng.choice(PICKS), rng.choice(PICKS)),
            rng.choice(WINNERS),
        )
        for i in first
        if rng.random() < 0.9
    ]
    forward, backward = (
        compare_runs(first, second, MIN_EFFECT),
        compare_runs(second, first, MIN_EFFECT),
    )
    assert forward.drift == backward.drift
    for there, back in zip(forward.tests, backward.tests, strict=True):
        assert (there.n, there.b, there.c) == (back.n, back.c, back.b)
        assert there.p_adjusted == pytest.approx(back.p_adjusted)
        if there.difference is not None and there.name != "first_pick_rate":
            assert there.difference == pytest.approx(-(back.difference or 0.0))


# Simulation: the same judge twice, and a changed one

FLIP = {"A": "B", "B": "A"}


def simulate_run(
    rng: np.random.Generator, golds: list[str], skill: np.ndarray, first_bias: float
) -> list[ItemResult]:
    """A run of a judge whose calls are right with the item's skill, or pick `first` outright."""
    results = []
    for n, (gold, right) in enumerate(zip(golds, skill, strict=True)):
        calls = [
            _simulated_call(rng, gold, right, first_bias, swapped) for swapped in (False, True)
        ]
        winners = (calls[0][0], calls[1][0])
        verdict = winners[0] if winners[0] == winners[1] else "tie"
        results.append(item(str(n), gold, winners, (calls[0][1], calls[1][1]), verdict))
    return results


def _simulated_call(
    rng: np.random.Generator, gold: str, right: float, first_bias: float, swapped: bool
) -> tuple[str, str]:
    if rng.random() < first_bias:
        pick = "first"
        return ("B" if swapped else "A"), pick
    winner = gold if rng.random() < right else FLIP[gold]
    shown_first = "B" if swapped else "A"
    return winner, "first" if winner == shown_first else "second"


def same_process_pair(seed: int, first_bias: tuple[float, float] = (0.1, 0.1)) -> Drift:
    """Two runs of one judge on 200 items; item difficulty is fixed, the calls are fresh."""
    rng = np.random.default_rng(seed)
    golds = list(rng.choice(["A", "B"], size=200))
    skill = rng.beta(6, 2, size=200)
    previous = simulate_run(rng, golds, skill, first_bias[0])
    current = simulate_run(rng, golds, skill, first_bias[1])
    return compare_runs(previous, current, MIN_EFFECT)


def test_an_unchanged_judge_drifts_at_most_five_percent_of_the_time() -> None:
    # Each pair's four exact tests are Holm-adjusted, which holds the family-wise error at 5% or
    # less (the exact tests are conservative, and the effect floor only removes flags). The bound:
    # 200 pairs flagging at a rate consistent with ≤ 5%, i.e. a one-sided exact binomial test of the
    # flag count against 5% does not reject at 1%. Seeds are fixed, so the count never varies.
    flagged = sum(same_process_pair(seed).drift for seed in range(200))
    assert sps.binomtest(flagged, 200, 0.05, alternative="greater").pvalue > 0.01


def test_a_judge_with_a_new_position_bias_drifts() -> None:
    drift = same_process_pair(seed=1, first_bias=(0.0, 0.3))
    first_picks = paired(drift, "first_pick_rate")
    assert drift.drift
    assert first_picks.significant
    assert first_picks.difference is not None
    assert first_picks.difference > 0.1
    assert paired(drift, "position_consistency").difference < 0  # type: ignore[operator]


# A slow drift: every step too small to flag, the sum of them plain


def drifting_run(wrong: int, size: int = 400) -> list[ItemResult]:
    """A run whose first `wrong` items are judged wrong (B) in both orders, the rest right (A)."""
    right = (("A", "A"), ("first", "second"), "A")
    bad = (("B", "B"), ("second", "first"), "B")
    return [item(f"{n:04d}", "A", *(bad if n < wrong else right)) for n in range(size)]


def test_a_slow_drift_passes_each_step_but_not_the_baseline() -> None:
    """12 more of 400 items go wrong each run: a 0.03 step stays under the minimum effect against
    the previous run, while three steps (0.09) against the baseline are a plain drift."""
    runs = [drifting_run(12 * k) for k in range(4)]
    for before, now in itertools.pairwise(runs):
        step, _ = compare_with(now, before, None, MIN_EFFECT)
        assert step is not None
        assert not step.drift
    step, since = compare_with(runs[3], runs[2], runs[0], MIN_EFFECT)
    assert step is not None
    assert since is not None
    assert not step.drift
    assert since.drift
    accuracy = paired(since, "verdict_accuracy")
    assert (accuracy.b, accuracy.c) == (36, 0)
    assert accuracy.difference == pytest.approx(-0.09)


def test_previous_and_baseline_tests_are_holm_adjusted_together() -> None:
    rng = np.random.default_rng(3)
    golds = list(rng.choice(["A", "B"], size=200))
    skill = rng.beta(6, 2, size=200)
    first, second, third = (simulate_run(rng, golds, skill, b) for b in (0.0, 0.15, 0.3))
    step, since = compare_with(third, second, first, MIN_EFFECT)
    assert step is not None
    assert since is not None
    tests = [*step.tests, *since.tests]
    assert len(tests) == 8
    expected = multipletests([t.p_value for t in tests], method="holm")[1]
    assert [t.p_adjusted for t in tests] == pytest.approx(list(expected))
    assert compare_with(third, None, None, MIN_EFFECT) == (None, None)
