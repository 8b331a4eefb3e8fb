"""Prediction-powered inference for a mean (PPI++, Angelopoulos, Duchi and Zrnic, arXiv 2311.01453).

Plain arrays in, plain values out: no I/O, no ORM. A few human labels `y` on a uniform random
slice, the judge's outcome `yhat` on that slice and `yhat_unlabelled` on the rest:

    θ̂(λ) = λ·mean(yhat_unlabelled) + mean(y − λ·yhat)

is unbiased for the human mean for any fixed λ; the power-tuned λ (clipped to [0, 1]) makes its
variance at most the labels-only one (λ = 0) up to estimation error. These functions follow
ppi-python's `ppi_mean_pointestimate` and `ppi_mean_ci` with `lam=None` (its `_calc_lam_glm`,
`optim_mode="overall"`) to the letter, which tests/test_ppi.py checks to 1e-9; ppi-python itself
is only a test dependency. docs/STATISTICS.md "Human-anchored win rate" has the formulas.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.stats import Z95, Interval

Values = npt.ArrayLike


@dataclass(frozen=True)
class MeanEstimate:
    """A mean with its CLT interval: `half_width` is Z95 times the standard error."""

    estimate: float
    ci95: Interval
    half_width: float


@dataclass(frozen=True)
class AnchoredEstimate(MeanEstimate):
    """The PPI++ mean and the λ it used (0: labels only, 1: plain PPI)."""

    lam: float


def _array(values: Values) -> npt.NDArray[np.float64]:
    return np.asarray(values, dtype=np.float64).reshape(-1)


def _interval(estimate: float, se: float) -> MeanEstimate:
    half = Z95 * se
    return MeanEstimate(estimate, (estimate - half, estimate + half), half)


def clt_mean(values: Values) -> MeanEstimate | None:
    """Mean ± Z95·sd/√n, with the population sd (ddof 0) as ppi-python's λ = 0 uses; None when
    empty."""
    y = _array(values)
    if y.size == 0:
        return None
    return _interval(float(y.mean()), float(y.std()) / math.sqrt(y.size))


def power_tuned_lambda(y: Values, yhat: Values, yhat_unlabelled: Values) -> float:
    """PPI++'s variance-minimising λ for a mean, clipped to [0, 1]:
    cov(y, yhat) / ((1 + n/N)·var(yhat ∪ yhat_unlabelled)), the covariance over the labelled
    slice with ddof 0 and the variance over every prediction with ddof 1 (as `_calc_lam_glm`).
    0 when there is nothing to borrow: no unlabelled predictions or constant predictions."""
    y, yhat, rest = _array(y), _array(yhat), _array(yhat_unlabelled)
    n, big_n = y.size, rest.size
    if n == 0 or big_n == 0:
        return 0.0
    predictions = np.concatenate([yhat, rest])
    variance = float(predictions.var(ddof=1)) if predictions.size > 1 else 0.0
    if variance <= 0.0:
        return 0.0
    covariance = float(np.mean((y - y.mean()) * (yhat - yhat.mean())))
    return float(np.clip(covariance / ((1 + n / big_n) * variance), 0.0, 1.0))


def ppi_mean(
    y: Values, yhat: Values, yhat_unlabelled: Values, lam: float | None = None
) -> AnchoredEstimate | None:
    """The PPI++ estimate of the mean of `y` and its CLT interval (power-tuned λ unless given);
    None without labels."""
    y, yhat, rest = _array(y), _array(yhat), _array(yhat_unlabelled)
    if y.size == 0:
        return None
    if yhat.size != y.size:
        raise ValueError("y and yhat must pair up")
    lam = power_tuned_lambda(y, yhat, rest) if lam is None else lam
    if rest.size == 0:
        lam = 0.0  # nothing to impute from: the labels-only estimate
    rectifier = y - lam * yhat
    imputed_mean = float(rest.mean()) if rest.size else 0.0
    estimate = lam * imputed_mean + float(rectifier.mean())
    imputed_var = (lam * float(rest.std())) ** 2 / rest.size if rest.size else 0.0
    se = math.sqrt(imputed_var + float(rectifier.std()) ** 2 / y.size)
    interval = _interval(estimate, se)
    return AnchoredEstimate(interval.estimate, interval.ci95, interval.half_width, lam)


@dataclass(frozen=True)
class Moments:
    """What the anchored interval's width depends on: var(y), cov(y, yhat) (labelled slice,
    ddof 0), var(yhat) over every prediction (ddof 1), and the unlabelled count."""

    var_y: float
    cov: float
    var_yhat: float
    n_unlabelled: int

    @classmethod
    def of(cls, y: Values, yhat: Values, yhat_unlabelled: Values) -> Moments:
        """The moments of the data an estimate was made from."""
        y, yhat, rest = _array(y), _array(yhat), _array(yhat_unlabelled)
        every = np.concatenate([yhat, rest])
        return cls(
            var_y=float(y.var()),
            cov=float(np.mean((y - y.mean()) * (yhat - yhat.mean()))),
            var_yhat=float(every.var(ddof=1)) if every.size > 1 else 0.0,
            n_unlabelled=int(rest.size),
        )

    def half_width(self, n: int) -> float:
        """The anchored half-width with n labels at these moments, λ re-tuned for n."""
        big_n, var_yhat = self.n_unlabelled, self.var_yhat
        lam = 0.0
        if big_n > 0 and var_yhat > 0:
            lam = min(1.0, max(0.0, self.cov / ((1 + n / big_n) * var_yhat)))
        imputed = lam * lam * var_yhat / big_n if big_n > 0 else 0.0
        rectifier = max(0.0, self.var_y - 2 * lam * self.cov + lam * lam * var_yhat)
        return Z95 * math.sqrt(rectifier / n + imputed)


def more_labels_needed(moments: Moments, n_labelled: int, half_width: float) -> int:
    """The fewest uniform labels to add to `n_labelled` for the anchored half-width to reach
    `half_width`, at the current moments with the unlabelled pool held at its size: a planning
    figure, not a promise (the moments move as labels arrive).

    The width falls as n grows (each λ's variance does, so their minimum does), so a bisection
    finds the least n; λ = 0 bounds it by the labels-only n = var(y)·(Z95/half_width)²."""
    if n_labelled < 1:
        raise ValueError("the moments need at least one label")
    if moments.half_width(n_labelled) <= half_width:
        return 0
    low, high = n_labelled, max(n_labelled + 1, math.ceil(moments.var_y * (Z95 / half_width) ** 2))
    while moments.half_width(high) > half_width:  # rounding at the bound
        high *= 2
    while high - low > 1:  # half_width(low) > target >= half_width(high)
        middle = (low + high) // 2
        if moments.half_width(middle) <= half_width:
            high = middle
        else:
            low = middle
    return high - n_labelled
