"""Pointwise-scoring statistics against statsmodels' cluster-robust OLS and hand computations."""

import math
import statistics

import numpy as np
import pandas as pd  # type: ignore[import-untyped]  # no pandas-stubs in the dev extras
import pytest
import statsmodels.formula.api as smf
from scipy.stats import pearsonr

from app.scoring import stats as ss
from app.scoring.stats import ScoreRow

FORMULA = "score ~ C(item) + C(reviewer, Sum) + C(position, Sum)"


def simulate_panel(
    offsets: list[float],
    position_effects: list[float],
    sessions: int,
    seed: int = 0,
    skip: float = 0.2,
    shuffle: bool = True,
    prefix: str = "",
) -> list[ScoreRow]:
    """Sessions of len(position_effects) responses; each reviewer call scores a whole session."""
    rng = np.random.default_rng(seed)
    k = len(position_effects)
    rows: list[ScoreRow] = []
    for s in range(sessions):
        quality = rng.normal(3.0, 1.0, k)
        for r, offset in enumerate(offsets):
            if rng.random() < skip:
                continue
            order = rng.permutation(k) if shuffle else np.arange(k)
            for slot, response in enumerate(order):
                noise = rng.normal(0.0, 0.5)
                score = quality[response] + offset + position_effects[slot] + noise
                item, call = f"{prefix}s{s}-{response}", f"{prefix}c{s}-{r}"
                rows.append(ScoreRow(item, f"{prefix}r{r}", slot + 1, float(score), call))
    return rows


def statsmodels_fit(rows: list[ScoreRow], formula: str = FORMULA) -> object:
    frame = pd.DataFrame(rows)
    groups = pd.factorize(frame["call"])[0]
    return smf.ols(formula, frame).fit(cov_type="cluster", cov_kwds={"groups": groups})


def sum_coded_effects(result: object, factor: str) -> tuple[np.ndarray, np.ndarray]:
    """All levels' effects (the last one is minus the sum of the others) and their SEs."""
    names = list(result.model.exog_names)  # type: ignore[attr-defined]
    free = [i for i, name in enumerate(names) if name.startswith(f"C({factor}, Sum)")]
    contrast = np.zeros((len(free) + 1, len(names)))
    for row, column in enumerate(free):
        contrast[row, column] = 1.0
    contrast[-1, free] = -1.0
    params = np.asarray(result.params)  # type: ignore[attr-defined]
    covariance = np.asarray(result.cov_params())  # type: ignore[attr-defined]
    return contrast @ params, np.sqrt(np.diag(contrast @ covariance @ contrast.T))


# Additive reviewer model


def test_offsets_and_position_effects_equal_statsmodels_cluster_ols() -> None:
    rows = simulate_panel([0.5, -0.3, 0.1, -0.3, 0.0], [0.2, 0.0, -0.1, -0.1], sessions=25)
    fitted = ss.connected_rows(ss.informative_rows(rows))
    fit = ss.fit_additive_model(fitted)
    oracle = statsmodels_fit(fitted)
    offsets, offset_se = sum_coded_effects(oracle, "reviewer")
    np.testing.assert_allclose(fit.reviewer_effect, offsets, atol=1e-10)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.reviewer_cov)), offset_se, rtol=1e-8)
    gammas, gamma_se = sum_coded_effects(oracle, "position")
    assert fit.position_effect is not None
    assert fit.position_cov is not None
    np.testing.assert_allclose(fit.position_effect, gammas, atol=1e-10)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.position_cov)), gamma_se, rtol=1e-8)


def test_position_p_equals_statsmodels_f_test() -> None:
    rows = simulate_panel([0.3, -0.3, 0.0], [0.3, 0.0, -0.3], sessions=30, seed=1)
    fitted = ss.connected_rows(ss.informative_rows(rows))
    oracle = statsmodels_fit(fitted)
    names = list(oracle.model.exog_names)  # type: ignore[attr-defined]
    restriction = np.array(
        [[1.0 * (column == name) for column in names] for name in names if "position" in name]
    )
    expected = oracle.f_test(restriction).pvalue  # type: ignore[attr-defined]
    assert ss.fit_additive_model(fitted).position_p == pytest.approx(float(expected), rel=1e-8)


def test_report_ci_is_offset_plus_minus_normal_quantile_times_cluster_se() -> None:
    rows = simulate_panel([0.6, -0.6, 0.0], [0.0, 0.0, 0.0], sessions=40, seed=2)
    fitted = ss.connected_rows(ss.informative_rows(rows))
    oracle = statsmodels_fit(fitted)
    names = list(oracle.model.exog_names)  # type: ignore[attr-defined]
    first = next(k for k, n in enumerate(names) if n.startswith("C(reviewer, Sum)"))
    low, high = np.asarray(oracle.conf_int())[first]  # type: ignore[attr-defined]
    entry = ss.reviewer_calibration(rows, 1, 5)["reviewers"][0]
    assert entry["ci95"] == pytest.approx((low, high), abs=1e-9)


def test_positions_fixed_within_items_are_not_identified_but_offsets_still_fit() -> None:
    rows = simulate_panel([0.4, -0.2, -0.2], [0.3, 0.0, -0.3], sessions=30, seed=3, shuffle=False)
    fitted = ss.connected_rows(ss.informative_rows(rows))
    fit = ss.fit_additive_model(fitted)
    assert fit.position_effect is None
    offsets, offset_se = sum_coded_effects(
        statsmodels_fit(fitted, "score ~ C(item) + C(reviewer, Sum)"), "reviewer"
    )
    np.testing.assert_allclose(fit.reviewer_effect, offsets, atol=1e-10)
    np.testing.assert_allclose(np.sqrt(np.diag(fit.reviewer_cov)), offset_se, rtol=1e-8)
    report = ss.reviewer_calibration(rows, 1, 5)["position_score"]
    assert report["reason"] == "not_identified"
    assert report["by_position"] == []


def test_only_items_scored_by_two_reviewers_are_informative() -> None:
    rows = [
        ScoreRow("i1", "a", 1, 3.0, "c1"),
        ScoreRow("i1", "a", 1, 4.0, "c2"),  # same reviewer twice: still one reviewer
        ScoreRow("i2", "a", 1, 3.0, "c1"),
        ScoreRow("i2", "b", 2, 5.0, "c3"),
    ]
    assert ss.informative_rows(rows) == rows[2:]


# Reviewer report


def test_disconnected_reviewers_are_null_with_disconnected_design() -> None:
    main = simulate_panel([0.5, -0.5, 0.0], [0.0, 0.0, 0.0], sessions=20, seed=4, skip=0)
    island = simulate_panel([0.0, 0.0], [0.0, 0.0, 0.0], sessions=3, seed=5, skip=0, prefix="x")
    loner = [ScoreRow("solo", "lonely", 1, 4.0, "z")]
    report = {
        e["reviewer"]: e for e in ss.reviewer_calibration(main + island + loner, 1, 5)["reviewers"]
    }
    for name in ("xr0", "xr1"):
        assert report[name]["offset"] is None
        assert report[name]["reason"] == "disconnected_design"
        assert report[name]["n"] == 9
    assert report["lonely"]["reason"] == "insufficient_data"
    assert (report["lonely"]["n"], report["lonely"]["n_total"]) == (0, 1)
    alone = ss.fit_additive_model(ss.connected_rows(ss.informative_rows(main)))
    assert report["r0"]["offset"] == pytest.approx(alone.reviewer_effect[0])


def test_generous_harsh_and_neutral_reviewers_are_classified_by_their_ci() -> None:
    rows = simulate_panel([1.0, -1.0, 0.05, -0.05], [0.0, 0.0, 0.0], sessions=60, seed=6)
    by_name = {e["reviewer"]: e for e in ss.reviewer_calibration(rows, 1, 5)["reviewers"]}
    assert by_name["r0"]["classification"] == "generous"
    assert by_name["r1"]["classification"] == "harsh"
    assert by_name["r2"]["classification"] == "neutral"
    assert by_name["r3"]["classification"] == "neutral"
    assert by_name["r0"]["tier"] == "moderate"


def test_classification_uses_the_whole_ci_against_the_margin() -> None:
    assert ss.classify_offset((-0.9, -0.41), margin=0.4) == "harsh"
    assert ss.classify_offset((-0.9, -0.4), margin=0.4) == "neutral"
    assert ss.classify_offset((0.41, 0.9), margin=0.4) == "generous"
    assert ss.classify_offset((0.2, 0.9), margin=0.4) == "neutral"


def test_descriptive_z_matches_hand_computation_and_needs_three_reviewers() -> None:
    rows = simulate_panel([0.6, -0.2, -0.4], [0.0, 0.0], sessions=40, seed=7)
    entries = ss.reviewer_calibration(rows, 1, 5)["reviewers"]
    offsets = [e["offset"] for e in entries]
    assert all(o is not None for o in offsets)
    values = [float(o) for o in offsets if o is not None]
    sd = statistics.stdev(values)
    mean = statistics.mean(values)
    for entry, offset in zip(entries, values, strict=True):
        assert entry["z"] == pytest.approx((offset - mean) / sd)
    two = simulate_panel([0.5, -0.5], [0.0, 0.0], sessions=40, seed=8)
    assert all(e["z"] is None for e in ss.reviewer_calibration(two, 1, 5)["reviewers"])


def test_reviewer_with_few_informative_scores_gets_no_offset() -> None:
    rows = simulate_panel([0.2, -0.2], [0.0, 0.0], sessions=5, seed=9, skip=0)
    entries = ss.reviewer_calibration(rows, 1, 5)["reviewers"]
    assert [e["n"] for e in entries] == [10, 10]
    assert all(e["tier"] == "insufficient" for e in entries)
    assert all(e["reason"] == "insufficient_data" and e["offset"] is None for e in entries)


def test_raw_mean_and_sd_use_all_scores_of_the_reviewer() -> None:
    rows = simulate_panel([0.2, -0.2], [0.0, 0.0], sessions=10, seed=10)
    rows.append(ScoreRow("only-a", "r0", 1, 1.0, "extra"))
    entry = ss.reviewer_calibration(rows, 1, 5)["reviewers"][0]
    scores = [r.score for r in rows if r.reviewer == "r0"]
    assert entry["n_total"] == len(scores)
    assert entry["raw_mean"] == pytest.approx(statistics.mean(scores))
    assert entry["sd"] == pytest.approx(statistics.stdev(scores))


def test_no_scores_give_an_empty_report() -> None:
    report = ss.reviewer_calibration([], 1, 5)
    assert report["reviewers"] == []
    assert report["position_score"]["reason"] == "not_identified"


# Position-score bias


def test_variance_of_position_means_is_the_sample_variance_and_flags_above_threshold() -> None:
    rows = [
        ScoreRow("a", "r", 1, 5.0, "c"),
        ScoreRow("b", "r", 2, 3.0, "c"),
        ScoreRow("c", "r", 3, 1.0, "c"),
        ScoreRow("d", "s", 1, 4.0, "d"),
    ]
    expected = statistics.variance([4.5, 3.0, 1.0])
    assert ss.variance_of_position_means(rows) == pytest.approx(expected)
    # 0.5·((5 − 1)/4)² = 0.5: a variance of ~3.1 on a 1..5 rubric is flagged.
    assert ss.reviewer_calibration(rows, 1, 5)["position_score"]["variance_flag"] is True
    assert ss.variance_of_position_means(rows[:1]) is None


def test_position_effects_are_reported_per_position_with_counts() -> None:
    rows = simulate_panel([0.0, 0.0, 0.0], [0.5, 0.0, -0.5], sessions=40, seed=11)
    section = ss.reviewer_calibration(rows, 1, 5)["position_score"]
    effects = section["by_position"]
    assert [e["position"] for e in effects] == [1, 2, 3]
    assert sum(e["n"] for e in effects) == len(ss.informative_rows(rows))
    first = effects[0]
    assert first["ci95"] is not None
    assert first["ci95"][0] < 0.5 < first["ci95"][1]
    assert section["position_p"] is not None
    assert section["position_p"] < 1e-6


# Length-score correlation


def hand_pool(pairs: list[tuple[float, int]]) -> dict[str, float]:
    zs = [math.atanh(r) for r, _ in pairs]
    ws = [n - 3 for _, n in pairs]
    z_bar = sum(w * z for w, z in zip(ws, zs, strict=True)) / sum(ws)
    se = 1 / math.sqrt(sum(ws))
    q = sum(w * (z - z_bar) ** 2 for w, z in zip(ws, zs, strict=True))
    return {
        "r": math.tanh(z_bar),
        "low": math.tanh(z_bar - 1.959963984540054 * se),
        "high": math.tanh(z_bar + 1.959963984540054 * se),
        "q": q,
        "i2": max(0.0, (q - (len(pairs) - 1)) / q),
    }


def test_fisher_pool_matches_hand_computation() -> None:
    pairs = [
        (0.1, 8),
        (0.45, 12),
        (-0.2, 6),
        (0.6, 20),
        (0.3, 5),
        (0.05, 9),
        (0.5, 7),
        (0.25, 10),
        (0.35, 4),
        (0.4, 15),
    ]
    pooled = ss.fisher_pool(pairs)
    expected = hand_pool(pairs)
    assert pooled.sessions == 10
    assert pooled.pooled_r == pytest.approx(expected["r"])
    assert pooled.ci95 == pytest.approx((expected["low"], expected["high"]))
    assert pooled.q == pytest.approx(expected["q"])
    assert pooled.i2 == pytest.approx(expected["i2"])
    assert pooled.heterogeneous is (expected["i2"] > 0.5)
    assert pooled.band == ss.correlation_band(expected["r"])
    assert pooled.tier == "preliminary"


def test_fisher_pool_skips_perfect_correlations() -> None:
    pairs = [(0.5, 10)] * 10
    assert ss.fisher_pool([*pairs, (1.0, 30), (-1.0, 30)]) == ss.fisher_pool(pairs)


def test_identical_correlations_have_no_heterogeneity() -> None:
    pooled = ss.fisher_pool([(0.8, 10)] * 12)
    assert pooled.q == pytest.approx(0.0)
    assert pooled.i2 == 0.0
    assert pooled.heterogeneous is False
    assert pooled.pooled_r == pytest.approx(0.8)
    assert pooled.band == "strong_positive"


def test_opposite_correlations_are_heterogeneous() -> None:
    pooled = ss.fisher_pool([(0.8, 30), (-0.8, 30)] * 5)
    assert pooled.i2 is not None
    assert pooled.i2 > 0.9
    assert pooled.heterogeneous is True


def test_fewer_than_ten_sessions_give_no_pooled_estimate() -> None:
    pooled = ss.fisher_pool([(0.5, 10)] * 9)
    assert pooled.sessions == 9
    assert pooled.pooled_r is None
    assert pooled.reason == "insufficient_data"


@pytest.mark.parametrize(
    ("r", "band"),
    [
        (0.71, "strong_positive"),
        (0.7, "moderate_positive"),
        (0.31, "moderate_positive"),
        (0.3, "weak"),
        (-0.29, "weak"),
        (-0.3, "moderate_negative"),
        (-0.69, "moderate_negative"),
        (-0.7, "strong_negative"),
    ],
)
def test_correlation_bands_have_open_lower_bounds(r: float, band: str) -> None:
    assert ss.correlation_band(r) == band


def test_session_correlation_is_pearson_and_needs_four_varying_points() -> None:
    lengths = [100.0, 250.0, 400.0, 800.0, 120.0]
    scores = [2.0, 3.0, 3.0, 5.0, 4.0]
    assert ss.session_correlation(lengths, scores) == pytest.approx(
        pearsonr(lengths, scores).statistic
    )
    assert ss.session_correlation(lengths[:3], scores[:3]) is None
    assert ss.session_correlation(lengths, [3.0] * 5) is None


# Length-normalized score


@pytest.mark.parametrize(
    ("length", "expected"),
    [
        (500, 4.0),  # ratio 1: untouched
        (1000, 4.0),  # ratio 2: at the edge, untouched
        (1500, 3.9),  # ratio 3: 4 − 0.1·1
        (150, 4.0),  # ratio 0.3: untouched
        (50, 3.9),  # ratio 0.1: 4 − 0.5·0.2
        (0, 3.85),  # ratio 0: 4 − 0.5·0.3
    ],
)
def test_length_normalized_score_follows_the_seed_penalty(length: int, expected: float) -> None:
    assert ss.length_normalized_score(4.0, length, rubric_min=1) == pytest.approx(expected)


def test_length_normalized_score_is_floored_at_the_rubric_minimum() -> None:
    assert ss.length_normalized_score(1.05, 50_000, rubric_min=1) == 1.0


def test_length_normalized_score_honours_a_custom_target() -> None:
    assert ss.length_normalized_score(4.0, 3000, rubric_min=1, target=1000) == pytest.approx(3.9)


def test_calibrated_score_removes_the_offset_without_clipping() -> None:
    assert ss.calibrated_score(5.0, -0.5) == 5.5


def test_point_effects_need_only_per_item_sums_as_sql_would_group_them() -> None:
    rows = simulate_panel([0.4, -0.1, -0.3], [0.2, -0.2, 0.0], sessions=30, seed=12)
    fitted = ss.connected_rows(ss.informative_rows(rows))
    reviewers = sorted({r.reviewer for r in fitted})
    positions = sorted({r.position for r in fitted})
    items = sorted({r.item for r in fitted})
    width = len(reviewers) + len(positions)

    def columns(row: ScoreRow) -> tuple[int, int]:
        return reviewers.index(row.reviewer), len(reviewers) + positions.index(row.position)

    # The GROUP BY (reviewer, position) and GROUP BY (item, reviewer|position) sums.
    zz, zs = np.zeros((width, width)), np.zeros(width)
    item_n, item_z, item_s = (
        np.zeros(len(items)),
        np.zeros((len(items), width)),
        np.zeros(len(items)),
    )
    for row in fitted:
        r, p = columns(row)
        i = items.index(row.item)
        for a, b in ((r, r), (p, p), (r, p), (p, r)):
            zz[a, b] += 1
        zs[[r, p]] += row.score
        item_n[i] += 1
        item_z[i, [r, p]] += 1
        item_s[i] += row.score
    sums = ss.DesignSums(zz=zz, zs=zs, item_n=item_n, item_z=item_z, item_s=item_s)
    beta, gamma = ss.effects_from_sums(sums, len(reviewers), len(positions))
    fit = ss.fit_additive_model(fitted)
    np.testing.assert_allclose(beta, fit.reviewer_effect, atol=1e-12)
    assert gamma is not None
    assert fit.position_effect is not None
    np.testing.assert_allclose(gamma, fit.position_effect, atol=1e-12)
