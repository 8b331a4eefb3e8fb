"""Leaderboard math against choix (Bradley-Terry) and statsmodels (length-controlled GLM)."""

import math
import warnings

import choix
import numpy as np
import pytest
import statsmodels.api as sm
from scipy import special
from scipy.stats import spearmanr

from app.leaderboard import ratings
from app.leaderboard.ratings import Game


def simulate_games(
    strengths: list[float], n_games: int, seed: int = 0, tie_share: float = 0.1
) -> list[Game]:
    rng = np.random.default_rng(seed)
    games: list[Game] = []
    for _ in range(n_games):
        i, j = (int(m) for m in rng.choice(len(strengths), size=2, replace=False))
        if rng.random() < tie_share:
            games.append((i, j, 0.5))
        else:
            won = rng.random() < special.expit(strengths[i] - strengths[j])
            games.append((i, j, 1.0 if won else 0.0))
    return games


def choix_pairs(games: list[Game]) -> list[tuple[int, int]]:
    """Each decisive game twice (winner, loser) and each tie once in each direction."""
    data: list[tuple[int, int]] = []
    for i, j, y in games:
        if y == 1.0:
            data += [(i, j), (i, j)]
        elif y == 0.0:
            data += [(j, i), (j, i)]
        else:
            data += [(i, j), (j, i)]
    return data


def spec_gradient(n_models: int, games: list[Game], theta: np.ndarray, lam: float) -> np.ndarray:
    """Gradient of STATISTICS.md's objective, game by game, straight from the formula."""
    grad = lam * theta.copy()
    for i, j, y in games:
        residual = special.expit(theta[i] - theta[j]) - y
        grad[i] += residual
        grad[j] -= residual
    return grad


# Bradley-Terry


@pytest.mark.parametrize("lam", [ratings.LAMBDA, 0.5])
def test_bt_equals_choix_with_doubled_games_and_split_ties(lam: float) -> None:
    games = simulate_games([0.8, 0.3, 0.0, -0.2, -0.9, 1.5], n_games=600, seed=1, tie_share=0.2)
    theta = ratings.bradley_terry(6, games, lam=lam)
    # choix's objective is alpha·Σθ² + doubled data = 2·(spec objective) exactly when alpha = λ
    # (not 2λ: choix's code penalizes alpha·Σθ², not alpha/2·Σθ²).
    oracle = choix.opt_pairwise(6, choix_pairs(games), alpha=lam, tol=1e-10)
    np.testing.assert_allclose(theta, oracle - oracle.mean(), atol=1e-6)


def test_bt_solves_the_spec_objective_game_by_game() -> None:
    games = simulate_games([0.5, -0.5, 0.0, 1.0], n_games=300, seed=2)
    theta = ratings.bradley_terry(4, games)
    np.testing.assert_allclose(spec_gradient(4, games, theta, ratings.LAMBDA), 0.0, atol=1e-7)
    assert theta.mean() == pytest.approx(0.0, abs=1e-12)


def test_bt_recovers_generated_strengths_in_rank_order() -> None:
    truth = [1.2, 0.8, 0.4, 0.0, -0.4, -0.8, -1.2, 0.2]
    # Without ties: a tie share independent of strength would shrink every θ toward 0.
    games = simulate_games(truth, n_games=40_000, seed=3, tie_share=0.0)
    theta = ratings.bradley_terry(len(truth), games)
    assert spearmanr(theta, truth).statistic == pytest.approx(1.0)
    np.testing.assert_allclose(theta, np.array(truth) - np.mean(truth), atol=0.1)


def test_bt_keeps_an_unbeaten_model_finite() -> None:
    games: list[Game] = [(0, 1, 1.0)] * 500 + [(1, 2, 0.5)] * 50
    theta = ratings.bradley_terry(3, games)
    assert np.all(np.isfinite(theta))
    assert theta[0] == theta.max()
    np.testing.assert_allclose(spec_gradient(3, games, theta, ratings.LAMBDA), 0.0, atol=1e-7)


def test_bt_rejects_self_pairs_and_unknown_models() -> None:
    with pytest.raises(ValueError, match="self-pairs"):
        ratings.bradley_terry(2, [(1, 1, 1.0)])
    with pytest.raises(ValueError, match="out of range"):
        ratings.bradley_terry(2, [(0, 2, 1.0)])


def test_rating_scale_is_elo_like() -> None:
    assert ratings.rating(0.0) == 1000.0
    assert ratings.rating(math.log(10)) == pytest.approx(1400.0)


# Components


def test_largest_component_excludes_a_separate_island_and_an_idle_model() -> None:
    games: list[Game] = [(0, 1, 1.0), (1, 2, 0.0), (2, 0, 0.5), (3, 4, 1.0)]
    assert ratings.largest_connected_component(6, games) == {0, 1, 2}
    assert ratings.largest_connected_component(3, []) == set()


def test_leaderboard_nulls_disconnected_models_and_fits_only_the_component() -> None:
    main = simulate_games([0.5, 0.0, -0.5], n_games=200, seed=4)
    island: list[Game] = [(3, 4, 1.0)] * 5
    rows = ratings.leaderboard(6, main + island, rounds=50)
    alone = ratings.bradley_terry(3, main)
    for model in (0, 1, 2):
        assert rows[model]["reason"] is None
        assert rows[model]["theta"] == pytest.approx(alone[model], abs=1e-9)
        assert rows[model]["rating"] == pytest.approx(ratings.rating(alone[model]), abs=1e-6)
    for model in (3, 4, 5):
        assert rows[model] == {
            "model": model,
            "theta": None,
            "rating": None,
            "ci95": None,
            "reason": "disconnected",
        }


def test_leaderboard_without_games_has_only_disconnected_models() -> None:
    rows = ratings.leaderboard(2, [])
    assert [row["reason"] for row in rows] == ["disconnected", "disconnected"]


# Bootstrap


def test_bootstrap_cis_bracket_the_fit_and_none_outside_the_component() -> None:
    games = [*simulate_games([0.6, 0.1, -0.7], n_games=400, seed=5), (3, 4, 1.0)]
    cis = ratings.bootstrap_bt_ci(5, games, rounds=100)
    fitted = ratings.bradley_terry(3, games[:-1])
    for model in range(3):
        ci = cis[model]
        assert ci is not None
        assert ci[0] < ratings.rating(fitted[model]) < ci[1]
    assert cis[3:] == [None, None]


def test_bootstrap_matches_a_plain_resample_and_refit_loop() -> None:
    games = simulate_games([0.3, 0.0, -0.3, 0.6], n_games=120, seed=6)
    cis = ratings.bootstrap_bt_ci(4, games, rounds=20, seed=7)
    rng = np.random.default_rng(7)
    draws = []
    for _ in range(20):
        resample = [games[k] for k in rng.integers(0, len(games), size=len(games))]
        oracle = choix.opt_pairwise(4, choix_pairs(resample), alpha=ratings.LAMBDA, tol=1e-10)
        draws.append(1000 + ratings.ELO_SCALE * (oracle - oracle.mean()))
    low, high = np.percentile(np.array(draws), [2.5, 97.5], axis=0)
    expected = np.column_stack([low, high])
    np.testing.assert_allclose([ci for ci in cis if ci is not None], expected, atol=1e-3)


def test_bootstrap_without_games_has_no_intervals() -> None:
    assert ratings.bootstrap_bt_ci(3, []) == [None, None, None]


def test_bootstrap_is_reproducible_from_its_seed() -> None:
    games = simulate_games([0.2, -0.2, 0.0], n_games=120, seed=8)
    assert ratings.bootstrap_bt_ci(3, games, rounds=30) == ratings.bootstrap_bt_ci(
        3, games, rounds=30
    )


# Length-controlled win rate


def statsmodels_lc(y: np.ndarray, feature: np.ndarray) -> tuple[float, float]:
    design = np.column_stack([np.ones_like(y), feature])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns on non-integer binomial counts
        fit = sm.GLM(y, design, family=sm.families.Binomial()).fit(tol=1e-13)
    p = special.expit(fit.params[0])
    return 100 * p, 100 * p * (1 - p) * fit.bse[0]


def length_data(n: int, seed: int, length_effect: float) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    delta = rng.normal(0.0, 400.0, n)
    p = special.expit(0.2 + length_effect * np.tanh(delta / delta.std(ddof=1)))
    y = (rng.random(n) < p).astype(float)
    y[rng.random(n) < 0.15] = 0.5
    return y, delta


def test_lc_equals_statsmodels_binomial_glm_on_fractional_outcomes() -> None:
    y, delta = length_data(300, seed=9, length_effect=1.0)
    result = ratings.length_controlled_win_rate(y.tolist(), delta.tolist())
    lc, lc_se = statsmodels_lc(y, np.tanh(delta / np.std(delta, ddof=1)))
    assert result["reason"] is None
    assert result["lc"] == pytest.approx(lc, abs=1e-8)
    assert result["lc_se"] == pytest.approx(lc_se, abs=1e-8)


def test_raw_win_rate_and_its_standard_error_use_sample_sd() -> None:
    y, delta = length_data(120, seed=10, length_effect=0.3)
    result = ratings.length_controlled_win_rate(y.tolist(), delta.tolist())
    assert result["n"] == 120
    assert result["raw"] == pytest.approx(100 * y.mean())
    assert result["raw_se"] == pytest.approx(100 * y.std(ddof=1) / math.sqrt(120))


def test_lc_with_equal_lengths_is_the_raw_rate_and_matches_an_intercept_only_glm() -> None:
    y, _ = length_data(60, seed=11, length_effect=0.0)
    result = ratings.length_controlled_win_rate(y.tolist(), [0.0] * 60)
    lc, lc_se = statsmodels_lc(y, np.zeros_like(y))
    assert result["lc"] == pytest.approx(result["raw"])
    assert result["lc"] == pytest.approx(lc, abs=1e-8)
    assert result["lc_se"] == pytest.approx(lc_se, abs=1e-8)


def test_lc_warns_when_length_explains_much_of_the_win_rate() -> None:
    rng = np.random.default_rng(12)
    # The model is mostly longer and length wins: controlling for it pulls LC well below raw.
    delta = rng.normal(300.0, 300.0, 400)
    y = (rng.random(400) < special.expit(-0.5 + 2.5 * np.tanh(delta / delta.std(ddof=1)))).astype(
        float
    )
    result = ratings.length_controlled_win_rate(y.tolist(), delta.tolist())
    assert result["lc"] is not None
    assert result["raw"] is not None
    assert result["raw"] - result["lc"] > 10
    assert result["lc_warning"] is True


def test_lc_is_null_for_separation_when_all_outcomes_are_equal() -> None:
    result = ratings.length_controlled_win_rate([1.0] * 40, list(range(40)))
    assert result["lc"] is None
    assert result["lc_se"] is None
    assert result["reason"] == "separation"
    assert result["raw"] == 100.0


def test_lc_is_null_for_separation_when_length_splits_wins_from_losses() -> None:
    delta = [float(d) for d in range(-20, 20)]
    y = [1.0 if d > 0 else 0.0 for d in delta]
    result = ratings.length_controlled_win_rate(y, delta)
    assert result["lc"] is None
    assert result["reason"] == "separation"


def test_lc_with_one_tie_across_the_split_is_still_separated() -> None:
    delta = [float(d) for d in range(-20, 20)]
    y = [1.0 if d > 0 else (0.5 if d == 0 else 0.0) for d in delta]
    assert ratings.length_controlled_win_rate(y, delta)["reason"] == "separation"


def test_lc_needs_thirty_comparisons() -> None:
    y, delta = length_data(29, seed=13, length_effect=0.5)
    result = ratings.length_controlled_win_rate(y.tolist(), delta.tolist())
    assert result["lc"] is None
    assert result["reason"] == "insufficient_data"
    assert result["raw"] == pytest.approx(100 * y.mean())


def test_lc_without_comparisons_has_no_rates() -> None:
    result = ratings.length_controlled_win_rate([], [])
    assert result["n"] == 0
    assert result["raw"] is None
    assert result["reason"] == "insufficient_data"
