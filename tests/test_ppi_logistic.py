"""PPI++ logistic regression and Bradley-Terry (app/ppi.py) against ppi-python's
`ppi_logistic_pointestimate` / `ppi_logistic_ci`, grouped rows against expanded ones, and the
data on which no estimate exists."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from ppi_py import ppi_logistic_ci, ppi_logistic_pointestimate

from app import ppi

Array = np.ndarray
ORACLE_ATOL = 2e-8


def logistic_data(seed: int, n: int, big_n: int, agree: float) -> tuple[Array, ...]:
    """Covariates, human outcomes, a judge that agrees with them `agree` of the time, and the
    judge alone on the rest."""
    rng = np.random.default_rng(seed)
    beta = np.array([0.8, -0.5, 0.3])
    x, x_rest = rng.normal(size=(n, 3)), rng.normal(size=(big_n, 3))
    y = (rng.random(n) < 1 / (1 + np.exp(-x @ beta))).astype(float)
    yhat = np.where(rng.random(n) < agree, y, 1 - y)
    yhat_rest = (rng.random(big_n) < 1 / (1 + np.exp(-x_rest @ beta))).astype(float)
    return x, y, yhat, x_rest, yhat_rest


def ours(x: Array, y: Array, yhat: Array, x_rest: Array, yhat_rest: Array) -> ppi.LogisticEstimate:
    """app/ppi.py on ungrouped rows."""
    return ppi.ppi_logistic(
        ppi.Rows(x, yhat, np.ones(len(y)), y), ppi.Rows(x_rest, yhat_rest, np.ones(len(yhat_rest)))
    )


def reference(
    x: Array, y: Array, yhat: Array, x_rest: Array, yhat_rest: Array
) -> tuple[Array, ...]:
    """ppi-python's point estimate and 95% interval, power-tuned."""
    point = ppi_logistic_pointestimate(x, y, yhat, x_rest, yhat_rest)
    low, high = ppi_logistic_ci(x, y, yhat, x_rest, yhat_rest, alpha=0.05)
    return np.asarray(point), np.asarray(low), np.asarray(high)


@pytest.mark.parametrize(("seed", "n", "big_n"), [(0, 150, 600), (1, 300, 3000), (2, 80, 80)])
def test_the_logistic_estimate_and_interval_equal_ppi_python(seed: int, n: int, big_n: int) -> None:
    data = logistic_data(seed, n, big_n, agree=0.9)
    fit = ours(*data)
    point, low, high = reference(*data)
    # ppi-python's fit starts from scikit-learn's and stops where scipy's L-BFGS-B does, which
    # moves by a few 1e-9 between machines (6.8e-9 on one CI run, under 1e-9 on others); ours
    # solves to a gradient of ~1e-17. Agreement to 2e-8 is the oracle's own precision.
    np.testing.assert_allclose(fit.theta, point, atol=ORACLE_ATOL, rtol=0)
    np.testing.assert_allclose(fit.ci95[0], low, atol=ORACLE_ATOL, rtol=0)
    np.testing.assert_allclose(fit.ci95[1], high, atol=ORACLE_ATOL, rtol=0)
    assert 0 < fit.lam <= 1


def bt_games(
    seed: int, models: int, n: int, big_n: int
) -> tuple[list[ppi.LabelledGame], list[ppi.JudgedGame]]:
    """Decisive games between `models` models of strengths 0, 0.4, 0.8, ...: humans by the
    strengths, a judge that agrees 90% of the time, and the judge alone on the rest."""
    rng = np.random.default_rng(seed)
    strength = 0.4 * np.arange(models)

    def game() -> tuple[int, int, float]:
        i, j = rng.choice(models, size=2, replace=False)
        won = rng.random() < 1 / (1 + np.exp(strength[j] - strength[i]))
        return int(i), int(j), float(won)

    labelled: list[ppi.LabelledGame] = []
    for _ in range(n):
        i, j, y = game()
        labelled.append((i, j, y, y if rng.random() < 0.9 else 1 - y, 1))
    rest: list[ppi.JudgedGame] = [(i, j, y, 1) for i, j, y in (game() for _ in range(big_n))]
    return labelled, rest


def test_bradley_terry_is_ppi_python_on_the_pairwise_design() -> None:
    models = 4
    labelled, rest = bt_games(3, models, 200, 1500)
    fit = ppi.ppi_bradley_terry(models, labelled, rest)

    def design(games: Sequence[tuple[Any, ...]]) -> Array:
        x = np.zeros((len(games), models))
        for row, game in enumerate(games):
            x[row, game[0]], x[row, game[1]] = 1.0, -1.0
        return x[:, 1:]

    point, low, high = reference(
        design(labelled),
        np.array([g[2] for g in labelled]),
        np.array([g[3] for g in labelled]),
        design(rest),
        np.array([g[2] for g in rest]),
    )
    full = np.concatenate([[0.0], point])
    # Here ppi-python's L-BFGS-B stops on its ftol (1e-15) with a gradient of ~3e-10, its
    # coefficients ~6e-9 from the minimiser Newton reaches (gradient ~1e-17): 1e-8 is the
    # closest agreement it permits on this design.
    np.testing.assert_allclose(fit.theta, full - full.mean(), atol=1e-8, rtol=0)
    # Model 0's interval is of a contrast; model 1's minus the mean shift has ppi-python's width.
    centre = np.concatenate([[0.0], (low + high) / 2])
    np.testing.assert_allclose(
        [(a + b) / 2 for a, b in fit.ci95], centre - centre.mean(), atol=1e-8, rtol=0
    )
    assert abs(fit.theta[3] - fit.theta[0] - 1.2) < 0.5  # the true gap, roughly


def test_grouped_rows_equal_expanded_rows() -> None:
    labelled, rest = bt_games(4, 3, 120, 900)
    grouped = Counter((i, j, y, yhat) for i, j, y, yhat, _ in labelled)
    grouped_rest = Counter((i, j, yhat) for i, j, yhat, _ in rest)
    expanded = ppi.ppi_bradley_terry(3, labelled, rest)
    counted = ppi.ppi_bradley_terry(
        3,
        [(i, j, y, yhat, c) for (i, j, y, yhat), c in grouped.items()],
        [(i, j, yhat, c) for (i, j, yhat), c in grouped_rest.items()],
    )
    assert len(grouped) < 30 < len(labelled)
    np.testing.assert_allclose(counted.theta, expanded.theta, atol=1e-9, rtol=0)
    np.testing.assert_allclose(counted.ci95, expanded.ci95, atol=1e-9, rtol=0)
    assert counted.lam == pytest.approx(expanded.lam, abs=1e-9)


def test_data_without_a_minimiser_raise_rather_than_run_off() -> None:
    # The judge's outcomes on the rest are separated by x: the rectified loss at λ = 1 falls
    # towards 0 as θ grows and has no minimiser (ppi-python's optimiser runs off; so would
    # Newton, for its bounded number of steps).
    x = np.array([[-1.0], [1.0]] * 20)
    y = np.array([0.0, 1.0] * 20)
    with pytest.raises(ValueError, match="no minimiser"):
        ours(x, y, y, x, y)
