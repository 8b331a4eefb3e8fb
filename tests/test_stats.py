"""Report statistics against independent oracles (scipy, statsmodels, sklearn) and properties."""

import itertools
import math
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import brier_score_loss, cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from app import stats

counts = st.integers(min_value=1, max_value=2000).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)
p_value = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)
LABELS = ("A", "B", "tie")


# Wilson


@given(counts)
def test_wilson_matches_statsmodels(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = stats.wilson_ci(k, n)
    assert ci is not None
    np.testing.assert_allclose(ci, proportion_confint(k, n, method="wilson"), atol=1e-12)


@given(counts)
def test_wilson_contains_the_rate_and_stays_in_unit_interval(kn: tuple[int, int]) -> None:
    k, n = kn
    ci = stats.wilson_ci(k, n)
    assert ci is not None
    assert 0.0 <= ci[0] <= k / n <= ci[1] <= 1.0


def test_wilson_of_no_trials_is_none() -> None:
    assert stats.wilson_ci(0, 0) is None


def test_wilson_all_successes_reaches_one() -> None:
    ci = stats.wilson_ci(50, 50)
    assert ci is not None
    assert ci[0] == pytest.approx(0.9286524, abs=1e-6)
    assert ci[1] == 1.0


# Exact tests


def _hand_binom_p(k: int, n: int, p: float) -> float:
    """Two-sided exact p: total probability of outcomes no likelier than k (tolerance as R)."""
    pmf = sps.binom.pmf(np.arange(n + 1), n, p)
    return float(min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum()))


@given(counts, st.sampled_from([0.5, 0.3, 0.8]))
def test_binom_p_matches_hand_sum_of_unlikelier_outcomes(kn: tuple[int, int], p: float) -> None:
    k, n = kn
    assert stats.binom_two_sided_p(k, n, p) == pytest.approx(_hand_binom_p(k, n, p), rel=1e-9)


def test_binom_p_of_no_trials_is_none() -> None:
    assert stats.binom_two_sided_p(0, 0) is None


@given(st.integers(0, 400), st.integers(0, 400))
def test_mcnemar_matches_statsmodels_exact(b: int, c: int) -> None:
    oracle = mcnemar([[10, b], [c, 10]], exact=True).pvalue
    assert stats.mcnemar_exact_p(b, c) == pytest.approx(oracle, rel=1e-9)


def test_mcnemar_without_discordant_pairs_is_one() -> None:
    assert stats.mcnemar_exact_p(0, 0) == 1.0


def test_balance_z_is_the_bias_monitor_figure() -> None:
    assert stats.balance_z(60, 100) == pytest.approx(2.0)
    assert stats.balance_z(0, 0) is None


# Label omnibus


@given(st.lists(counts, min_size=1, max_size=8))
def test_label_omnibus_matches_summed_pearson_chi2(pairs: list[tuple[int, int]]) -> None:
    # Each pair's z² equals its one-df Pearson χ² of (k2, n − k2) against n/2 each.
    chi2 = sum(sps.chisquare([k, n - k]).statistic for k, n in pairs)
    oracle = sps.chi2.sf(chi2, len(pairs))
    assert stats.label_omnibus_p(pairs) == pytest.approx(oracle, rel=1e-9, abs=1e-300)


def test_label_omnibus_skips_empty_pairs_and_counts_only_used_ones() -> None:
    z2 = (30 - 20) ** 2 / 10
    expected = sps.chi2.sf(z2, 1)
    assert stats.label_omnibus_p([(30, 40), (0, 0)]) == pytest.approx(expected)


def test_label_omnibus_without_data_is_none() -> None:
    assert stats.label_omnibus_p([]) is None
    assert stats.label_omnibus_p([(0, 0), (0, 0)]) is None


def test_label_omnibus_detects_preference_in_either_orientation() -> None:
    p = stats.label_omnibus_p([(80, 100), (20, 100)])
    assert p is not None
    assert p < 1e-6


# Holm


def _textbook_holm(raw: list[float]) -> list[float]:
    """adjusted p_(i) = max over j ≤ i of min(1, (m − j + 1)·p_(j)), in ascending raw order."""
    m = len(raw)
    order = sorted(range(m), key=lambda i: raw[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * raw[i]))
        adjusted[i] = running
    return adjusted


@given(st.lists(st.one_of(p_value, p_value, st.none()), max_size=30))
def test_holm_matches_the_textbook_definition_with_nones_kept_in_place(
    raw: list[float | None],
) -> None:
    adjusted = stats.holm(raw)
    assert [a is None for a in adjusted] == [r is None for r in raw]
    present = [r for r in raw if r is not None]
    got = [a for a in adjusted if a is not None]
    np.testing.assert_allclose(got, _textbook_holm(present), atol=1e-12)


def test_holm_matches_statsmodels_on_random_families_with_ties() -> None:
    # Few cases: statsmodels' multipletests runs gc.collect() on every call.
    rng = np.random.default_rng(0)
    families = [rng.uniform(size=m) ** 3 for m in (1, 2, 5, 17, 40)]
    families.append(np.array([0.01, 0.01, 0.04, 0.04, 0.5, 1.0, 0.0]))
    for raw in families:
        oracle = multipletests(raw, method="holm")[1]
        np.testing.assert_allclose(np.array(stats.holm(list(raw)), dtype=float), oracle, atol=1e-12)


@given(st.lists(p_value, min_size=1, max_size=30))
def test_holm_is_at_least_raw_capped_and_monotone(raw: list[float]) -> None:
    adjusted = [a for a in stats.holm(raw) if a is not None]
    assert all(r <= a <= 1.0 for r, a in zip(raw, adjusted, strict=True))
    by_raw = [a for _, a in sorted(zip(raw, adjusted, strict=True))]
    assert by_raw == sorted(by_raw)


def test_holm_of_empty_family_is_empty() -> None:
    assert stats.holm([]) == []
    assert stats.holm([None, None]) == [None, None]


# Spearman


@given(
    st.lists(
        st.tuples(st.integers(-5, 5), st.integers(-3, 3)),  # small ranges: many ties
        min_size=3,
        max_size=60,
    )
)
def test_spearman_matches_scipy_with_ties(points: list[tuple[int, int]]) -> None:
    rho, p = spearman(points)
    x, y = zip(*points, strict=True)
    if len(set(x)) == 1 or len(set(y)) == 1:
        assert (rho, p) == (None, None)
        return
    oracle = sps.spearmanr(x, y)
    assert rho is not None
    assert rho == pytest.approx(oracle.statistic, abs=1e-12)
    if abs(rho) == 1.0:
        # Exact ranks give p = 0; scipy's float ρ falls a hair short of ±1 (p ≈ 1e-8 at n = 3).
        assert (p, oracle.pvalue) == (0.0, pytest.approx(0.0, abs=1e-6))
        return
    assert p == pytest.approx(oracle.pvalue, rel=1e-9, abs=1e-300)


def spearman(points: list[tuple[int, int]]) -> tuple[float | None, float | None]:
    """`stats.spearman_from_ranks` fed as the report's SQL feeds it: sums of products of
    centred average ranks."""
    n = len(points)
    a, b = (sps.rankdata([p[i] for p in points]) - (n + 1) / 2 for i in (0, 1))
    return stats.spearman_from_ranks(n, float(a @ b), float(a @ a), float(b @ b))


def test_spearman_with_fewer_than_three_points_is_none() -> None:
    assert spearman([(1, 2), (2, 1)]) == (None, None)
    assert spearman([]) == (None, None)


def test_spearman_with_a_constant_variable_is_none() -> None:
    assert spearman([(1, 0), (2, 0), (3, 0), (4, 0)]) == (None, None)


# Cohen's kappa


@given(st.lists(st.tuples(st.sampled_from(LABELS), st.sampled_from(LABELS)), min_size=1))
def test_kappa_matches_sklearn(pairs: list[tuple[str, str]]) -> None:
    a = [p[0] for p in pairs]
    b = [p[1] for p in pairs]
    kappa = stats.cohen_kappa(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)  # sklearn's nan case
        oracle = cohen_kappa_score(a, b, labels=list(LABELS))
    if kappa is None:
        assert math.isnan(oracle) or len(set(a) | set(b)) == 1
    else:
        assert kappa == pytest.approx(oracle, abs=1e-12)


def test_kappa_of_a_judge_that_always_ties_against_itself_is_none() -> None:
    assert stats.cohen_kappa(["tie"] * 20, ["tie"] * 20) is None


def test_kappa_of_one_class_against_another_is_zero() -> None:
    assert stats.cohen_kappa(["A"] * 10, ["B"] * 10) == pytest.approx(0.0)


def test_kappa_of_no_pairs_is_none() -> None:
    assert stats.cohen_kappa([], []) is None


def test_kappa_rejects_unknown_labels() -> None:
    with pytest.raises(ValueError, match="labels outside"):
        stats.cohen_kappa(["A", "C"], ["A", "B"])


# Bootstrap


def test_bootstrap_mean_ci_agrees_with_scipy_percentile_bootstrap() -> None:
    values = np.random.default_rng(7).normal(3.0, 2.0, size=400)
    ci = stats.percentile_bootstrap_mean_ci(values.tolist(), rounds=4000)
    oracle = sps.bootstrap(
        (values,), np.mean, n_resamples=4000, method="percentile", random_state=1
    ).confidence_interval
    assert ci is not None
    # Different random streams: agreement up to Monte Carlo error (~0.01 here).
    np.testing.assert_allclose(ci, (oracle.low, oracle.high), atol=0.04)
    assert ci[0] < values.mean() < ci[1]


def test_bootstrap_mean_ci_is_reproducible_from_its_seed() -> None:
    values = list(np.random.default_rng(1).normal(size=50))
    first = stats.percentile_bootstrap_mean_ci(values, seed=3)
    assert first == stats.percentile_bootstrap_mean_ci(values, seed=3)
    assert first != stats.percentile_bootstrap_mean_ci(values, seed=4)


def test_bootstrap_of_counts_is_the_bootstrap_of_the_sample_they_count() -> None:
    """Self-preference's s_c − o_c take a few values: resampling their counts multinomially
    is resampling the expanded sample (scipy's bootstrap on it as the oracle)."""
    values, counts = [-0.5, 0.0, 0.25, 0.5, 1.0], [30, 220, 45, 80, 25]
    sample = np.repeat(values, counts)
    ci = stats.percentile_bootstrap_mean_ci_of_counts(values, counts, rounds=4000)
    oracle = sps.bootstrap(
        (sample,), np.mean, n_resamples=4000, method="percentile", random_state=1
    ).confidence_interval
    assert ci is not None
    np.testing.assert_allclose(ci, (oracle.low, oracle.high), atol=0.01)  # MC error ~0.003
    assert ci[0] < sample.mean() < ci[1]


def test_bootstrap_of_counts_ignores_their_order_and_how_they_are_split() -> None:
    of_counts = stats.percentile_bootstrap_mean_ci_of_counts
    first = of_counts([0.5, -1.0, 0.0, 0.3], [7, 3, 12, 5])
    assert first == of_counts([0.0, 0.3, 0.5, -1.0, 0.5], [12, 5, 4, 3, 3])
    assert first != of_counts([0.5, -1.0, 0.0, 0.3], [7, 3, 12, 5], seed=1)
    assert of_counts([0.25, 0.25], [3, 4]) == (0.25, 0.25)
    assert of_counts([0.25], [0]) is None
    assert of_counts([], []) is None


def test_bootstrap_mean_ci_of_constant_or_no_values() -> None:
    assert stats.percentile_bootstrap_mean_ci([0.25] * 10) == (0.25, 0.25)
    assert stats.percentile_bootstrap_mean_ci([]) is None


def test_bootstrap_blocks_do_not_change_the_draws(monkeypatch: pytest.MonkeyPatch) -> None:
    values = list(np.random.default_rng(2).normal(size=300))
    whole = stats.percentile_bootstrap_mean_ci(values, rounds=100)
    monkeypatch.setattr(stats, "_BOOTSTRAP_BLOCK_CELLS", 300 * 7)
    assert stats.percentile_bootstrap_mean_ci(values, rounds=100) == whole


def test_cluster_ratio_with_unit_clusters_equals_the_mean_bootstrap() -> None:
    hits = list(np.random.default_rng(5).integers(0, 2, size=120).astype(float))
    ratio = stats.cluster_bootstrap_ratio_ci(hits, [1.0] * len(hits), seed=9)
    assert ratio == stats.percentile_bootstrap_mean_ci(hits, seed=9)


def test_cluster_ratio_ci_is_close_to_the_delta_method_interval() -> None:
    rng = np.random.default_rng(11)
    calls = rng.integers(1, 5, size=500).astype(float)
    correct = rng.binomial(calls.astype(int), rng.uniform(0.4, 0.9, size=500)).astype(float)
    ratio = correct.sum() / calls.sum()
    # Linearized (delta-method) standard error of a ratio of cluster sums.
    resid = correct - ratio * calls
    se = math.sqrt((resid**2).sum()) / calls.sum()
    ci = stats.cluster_bootstrap_ratio_ci(correct.tolist(), calls.tolist(), rounds=2000)
    assert ci is not None
    np.testing.assert_allclose(ci, (ratio - 1.96 * se, ratio + 1.96 * se), atol=0.006)


def test_cluster_ratio_without_denominator_is_none() -> None:
    assert stats.cluster_bootstrap_ratio_ci([], []) is None
    assert stats.cluster_bootstrap_ratio_ci([0.0, 0.0], [0.0, 0.0]) is None


def test_cluster_ratio_drops_resamples_with_empty_denominator() -> None:
    ci = stats.cluster_bootstrap_ratio_ci([1.0, 0.0], [1.0, 0.0], rounds=200)
    assert ci == (1.0, 1.0)


# Tiers and flags


@pytest.mark.parametrize(
    ("unit", "bounds"),
    [
        ("decisive_calls", (20, 100, 500)),
        ("swap_pairs", (20, 100, 500)),
        ("comparisons", (30, 100, 500)),
        ("labelled", (30, 100, 300)),
        ("reviewer_scores", (12, 50, 200)),
        ("sessions", (10, 20, 50)),
    ],
)
def test_tier_boundaries_follow_the_table(
    unit: stats.TierUnit, bounds: tuple[int, int, int]
) -> None:
    preliminary, moderate, high = bounds
    assert stats.tier(unit, 0) == "insufficient"
    assert stats.tier(unit, preliminary - 1) == "insufficient"
    assert stats.tier(unit, preliminary) == "preliminary"
    assert stats.tier(unit, moderate - 1) == "preliminary"
    assert stats.tier(unit, moderate) == "moderate"
    assert stats.tier(unit, high - 1) == "moderate"
    assert stats.tier(unit, high) == "high"


@pytest.mark.parametrize(
    ("p_adjusted", "effect", "expected"),
    [
        (0.01, 0.06, True),
        (0.01, 0.05, True),  # the effect reaches the minimum
        (0.01, 0.04, False),  # tiny effect at a large n
        (0.05, 0.30, False),  # p must be strictly below 0.05
        (None, 0.30, False),
        (0.01, None, False),
    ],
)
def test_significance_needs_both_p_and_effect(
    p_adjusted: float | None, effect: float | None, expected: bool
) -> None:
    assert stats.significant(p_adjusted, effect, min_effect=0.05) is expected


@pytest.mark.parametrize(
    ("point", "ci", "expected"),
    [
        (0.65, (0.60, 0.69), "flag"),
        (0.75, (0.70, 0.82), "watch"),
        (0.85, (0.81, 0.89), None),
        (0.75, None, "watch"),
        (None, None, None),
        (0.80, (0.75, 0.85), None),  # at the floor is not below it
    ],
)
def test_floor_flag_uses_the_whole_ci_for_flags(
    point: float | None, ci: tuple[float, float] | None, expected: str | None
) -> None:
    assert stats.floor_flag(point, ci, floor=0.80) == expected


# Confidence calibration


confidences = st.lists(
    st.tuples(st.floats(0.0, 1.0, allow_nan=False), st.booleans()), min_size=1, max_size=80
)


@given(confidences)
def test_brier_matches_sklearn(rows: list[tuple[float, bool]]) -> None:
    conf = [r[0] for r in rows]
    correct = [r[1] for r in rows]
    oracle = brier_score_loss(correct, conf, pos_label=True)
    assert stats.brier(conf, correct) == pytest.approx(oracle, abs=1e-12)


def test_brier_and_confident_wrong_without_data_are_none() -> None:
    assert stats.brier([], []) is None
    assert stats.confident_wrong_rate([], []) is None


def test_confident_wrong_rate_counts_confidence_at_least_threshold() -> None:
    conf = [0.95, 0.9, 0.89, 0.99]
    correct = [False, False, False, True]
    assert stats.confident_wrong_rate(conf, correct) == pytest.approx(0.5)


def test_confidence_outside_unit_interval_is_rejected() -> None:
    with pytest.raises(ValueError, match="outside"):
        stats.brier([1.2], [True])


@given(confidences)
def test_reliability_deciles_match_exact_decimal_binning(rows: list[tuple[float, bool]]) -> None:
    conf = [r[0] for r in rows]
    correct = [r[1] for r in rows]
    table = stats.reliability_deciles(conf, correct)
    # Oracle: compare with the edges as written (the doubles nearest k/10), so 0.6 opens bin 6.
    bin_of = [min(9, max(k for k in range(10) if c >= k / 10)) for c in conf]
    assert [row["n"] for row in table] == [bin_of.count(b) for b in range(10)]
    for b, row in enumerate(table):
        members = [i for i, x in enumerate(bin_of) if x == b]
        if not members:
            assert row["mean_confidence"] is None
            assert row["accuracy"] is None
            continue
        assert row["mean_confidence"] == pytest.approx(np.mean([conf[i] for i in members]))
        assert row["accuracy"] == pytest.approx(np.mean([correct[i] for i in members]))


def test_reliability_edges_go_to_the_upper_bin_and_one_to_the_last() -> None:
    table = stats.reliability_deciles([0.0, 0.1, 0.3, 0.7, 0.9, 1.0], [True] * 6)
    assert [row["n"] for row in table] == [1, 1, 0, 1, 0, 0, 0, 1, 0, 2]
    assert (table[9]["lower"], table[9]["upper"]) == (0.9, 1.0)


# Swap consistency

_MAPPED_AB = {"first": "A", "second": "B", "tie": "tie"}
_MAPPED_BA = {"first": "B", "second": "A", "tie": "tie"}


@pytest.mark.parametrize(
    ("p1", "p2"), list(itertools.product(("first", "second", "tie"), repeat=2))
)
def test_pair_is_consistent_exactly_when_mapped_winners_agree(
    p1: stats.Pick, p2: stats.Pick
) -> None:
    same_winner = _MAPPED_AB[p1] == _MAPPED_BA[p2]
    assert (stats.pc_classify(p1, p2) == "consistent") is same_winner


@pytest.mark.parametrize(
    ("p1", "p2", "expected"),
    [
        ("first", "first", "primacy"),
        ("first", "tie", "primacy"),
        ("tie", "first", "primacy"),
        ("second", "second", "recency"),
        ("second", "tie", "recency"),
        ("tie", "second", "recency"),
        ("first", "second", "consistent"),
        ("second", "first", "consistent"),
        ("tie", "tie", "consistent"),
    ],
)
def test_pair_classes_follow_the_spec_table(p1: stats.Pick, p2: stats.Pick, expected: str) -> None:
    assert stats.pc_classify(p1, p2) == expected


def test_pair_class_rejects_unknown_picks() -> None:
    with pytest.raises(ValueError, match="unknown pick"):
        stats.pc_classify("first", "A")  # type: ignore[arg-type]
