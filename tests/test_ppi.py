"""The PPI++ mean (app/ppi.py) against ppi-python, a hand computation of λ, and its properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

from app import ppi
from app.stats import Z95

OUTCOMES = np.array([0.0, 0.5, 1.0])


def judged_slice(seed: int, n: int, big_n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Win/tie/loss outcomes: humans, a judge that agrees with them 70% of the time, and the
    judge alone on the rest."""
    rng = np.random.default_rng(seed)
    y = rng.choice(OUTCOMES, size=n, p=[0.35, 0.15, 0.5])
    agree = rng.random(n) < 0.7
    yhat = np.where(agree, y, rng.choice(OUTCOMES, size=n))
    rest = rng.choice(OUTCOMES, size=big_n, p=[0.3, 0.2, 0.5])
    return y, yhat, rest


@pytest.mark.parametrize(("seed", "n", "big_n"), [(0, 40, 400), (1, 150, 2000), (2, 31, 31)])
def test_the_anchored_mean_and_interval_equal_ppi_python_with_power_tuning(
    seed: int, n: int, big_n: int
) -> None:
    y, yhat, rest = judged_slice(seed, n, big_n)
    ours = ppi.ppi_mean(y, yhat, rest)
    assert ours is not None
    point = float(np.asarray(ppi_mean_pointestimate(y, yhat, rest, lam=None)).item())
    low, high = (float(np.asarray(v).item()) for v in ppi_mean_ci(y, yhat, rest, alpha=0.05))
    assert ours.estimate == pytest.approx(point, abs=1e-9)
    assert ours.ci95[0] == pytest.approx(low, abs=1e-9)
    assert ours.ci95[1] == pytest.approx(high, abs=1e-9)


def test_continuous_predictions_match_ppi_python_too() -> None:
    rng = np.random.default_rng(7)
    y = rng.normal(size=60)
    yhat = 0.8 * y + rng.normal(scale=0.5, size=60)
    rest = rng.normal(size=500)
    ours = ppi.ppi_mean(y, yhat, rest)
    assert ours is not None
    low, high = (float(np.asarray(v).item()) for v in ppi_mean_ci(y, yhat, rest, alpha=0.05))
    assert ours.ci95 == pytest.approx((low, high), abs=1e-9)


def test_lambda_by_hand() -> None:
    # n = 4 labelled, N = 4 unlabelled.
    y = [1.0, 0.0, 1.0, 0.5]
    yhat = [1.0, 0.0, 0.5, 0.5]
    rest = [1.0, 1.0, 0.0, 0.5]
    # mean y = 0.625, mean yhat = 0.5; cov (ddof 0) = (0.375·0.5 + (−0.625)(−0.5) + 0 + 0)/4
    # = 0.125. The eight predictions: three 1s, two 0s, three ½s, mean 0.5625; squared
    # deviations 3·0.4375² + 2·0.5625² + 3·0.0625² = 1.21875, var (ddof 1) = 1.21875/7.
    # λ = 0.125 / ((1 + 4/4)·1.21875/7) = 0.875/2.4375 = 14/39.
    lam = 14 / 39
    assert ppi.power_tuned_lambda(y, yhat, rest) == pytest.approx(lam, abs=1e-12)
    estimate = ppi.ppi_mean(y, yhat, rest)
    assert estimate is not None
    # θ̂ = λ·mean(rest) + mean(y) − λ·mean(yhat) = 0.625 + λ·(0.625 − 0.5).
    assert estimate.lam == pytest.approx(lam, abs=1e-12)
    assert estimate.estimate == pytest.approx(0.625 + lam * 0.125, abs=1e-12)


def test_lambda_clips_to_the_unit_interval() -> None:
    y = [0.0, 1.0, 0.0, 1.0]
    assert ppi.power_tuned_lambda(y, [1.0, 0.0, 1.0, 0.0], [0.0, 1.0]) == 0.0  # anti-correlated
    # A perfect judge on a huge pool wants λ → 1/(1 + n/N) ≈ 1; never more.
    assert 0.99 < ppi.power_tuned_lambda(y, y, [0.0, 1.0] * 5000) <= 1.0


def test_lambda_zero_is_the_labels_only_interval() -> None:
    y, yhat, rest = judged_slice(3, 50, 500)
    anchored = ppi.ppi_mean(y, yhat, rest, lam=0.0)
    human = ppi.clt_mean(y)
    assert anchored is not None
    assert human is not None
    assert anchored.estimate == pytest.approx(human.estimate)
    assert anchored.ci95 == pytest.approx(human.ci95)


def test_without_unlabelled_predictions_the_estimate_is_the_labels_alone() -> None:
    y, yhat, _ = judged_slice(4, 40, 0)
    anchored, human = ppi.ppi_mean(y, yhat, []), ppi.clt_mean(y)
    assert anchored is not None
    assert human is not None
    assert anchored.lam == 0.0
    assert anchored.ci95 == pytest.approx(human.ci95)


def test_a_constant_judge_borrows_nothing() -> None:
    y, _, _ = judged_slice(5, 40, 0)
    assert ppi.power_tuned_lambda(y, np.ones(40), np.ones(100)) == 0.0


def test_no_labels_give_no_estimate() -> None:
    assert ppi.ppi_mean([], [], [1.0, 0.0]) is None
    assert ppi.clt_mean([]) is None


def test_the_anchored_interval_is_not_wider_than_the_human_one_across_seeds() -> None:
    """Power tuning can only lose to λ = 0 by the error in its estimated moments."""
    ratios = []
    for seed in range(200):
        y, yhat, rest = judged_slice(seed, 60, 600)
        anchored, human = ppi.ppi_mean(y, yhat, rest), ppi.clt_mean(y)
        assert anchored is not None
        assert human is not None
        ratios.append(anchored.half_width / human.half_width)
    assert max(ratios) < 1.02
    assert float(np.median(ratios)) < 0.9  # a 70%-agreeing judge does help


def test_more_labels_needed_reaches_the_target_and_no_fewer_do() -> None:
    y, yhat, rest = judged_slice(6, 50, 1000)
    moments = ppi.Moments.of(y, yhat, rest)
    for target in (0.05, 0.02):
        more = ppi.more_labels_needed(moments, 50, target)
        assert moments.half_width(50 + more) <= target < moments.half_width(50 + more - 1)


def test_more_labels_with_a_useless_judge_is_the_labels_only_count() -> None:
    moments = ppi.Moments(var_y=0.25, cov=0.0, var_yhat=0.25, n_unlabelled=1000)
    # λ = 0: half-width Z95·0.5/√n ≤ 0.05 ⇔ n ≥ (Z95·10)² = 384.1…
    assert ppi.more_labels_needed(moments, 100, 0.05) == math.ceil((Z95 * 10) ** 2) - 100
    assert ppi.more_labels_needed(moments, 1000, 0.05) == 0
