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


# PPI++ for logistic regression (an M-estimator), and Bradley-Terry on its pairwise design


Matrix = npt.NDArray[np.float64]
NEWTON_STEPS = 100  # Newton converges in a handful; the bound is for hostile data


@dataclass(frozen=True)
class Rows:
    """Distinct rows of a logistic design, each `count` times: covariates `x` (one row per
    distinct row), outcome `y` (None for unlabelled rows) and the judge's `yhat`."""

    x: Matrix
    yhat: npt.NDArray[np.float64]
    count: npt.NDArray[np.float64]
    y: npt.NDArray[np.float64] | None = None

    @property
    def n(self) -> float:
        """How many observations the rows stand for."""
        return float(self.count.sum())


@dataclass(frozen=True)
class LogisticEstimate:
    """PPI++ logistic coefficients, their covariance (Σ̂/n) and interval, and the λs used."""

    theta: npt.NDArray[np.float64]  # the point estimate (λ tuned at the λ = 1 fit)
    interval_theta: npt.NDArray[np.float64]  # the interval's centre (λ re-tuned there)
    covariance: Matrix
    lam: float  # the interval's λ
    point_lam: float

    @property
    def ci95(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        """Per coefficient: centre ∓ Z95·se."""
        se = np.sqrt(np.diag(self.covariance))
        return self.interval_theta - Z95 * se, self.interval_theta + Z95 * se


def _expit(z: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    return np.asarray(0.5 * (1.0 + np.tanh(0.5 * z)), dtype=np.float64)


def _loss(theta: npt.NDArray[np.float64], labelled: Rows, rest: Rows, lam: float) -> float:
    """PPI's rectified logistic loss (ppi-python's `rectified_logistic_loss`)."""
    assert labelled.y is not None

    def mean_loss(rows: Rows, outcome: npt.NDArray[np.float64]) -> float:
        z = rows.x @ theta
        return float(np.sum(rows.count * (np.logaddexp(0.0, z) - outcome * z)) / rows.n)

    imputed = lam * mean_loss(rest, rest.yhat) if rest.n else 0.0
    return imputed - lam * mean_loss(labelled, labelled.yhat) + mean_loss(labelled, labelled.y)


def _fit(labelled: Rows, rest: Rows, lam: float) -> npt.NDArray[np.float64]:
    """The rectified loss's minimiser by damped Newton. Its Hessian, λ/N·ΣH_unlabelled +
    (1 − λ)/n·ΣH_labelled, does not depend on the outcomes and is positive for λ in [0, 1], so
    Newton converges to machine precision where a quasi-Newton method stops at its tolerance."""
    assert labelled.y is not None
    theta = np.zeros(labelled.x.shape[1])
    for _ in range(NEWTON_STEPS):
        mu, mu_rest = _expit(labelled.x @ theta), _expit(rest.x @ theta)
        grad = labelled.x.T @ (labelled.count * ((1 - lam) * mu + lam * labelled.yhat - labelled.y))
        hess = (labelled.x.T * (labelled.count * mu * (1 - mu))) @ labelled.x * (1 - lam)
        grad, hess = grad / labelled.n, hess / labelled.n
        if rest.n:
            grad += lam / rest.n * rest.x.T @ (rest.count * (mu_rest - rest.yhat))
            hess += lam / rest.n * (rest.x.T * (rest.count * mu_rest * (1 - mu_rest))) @ rest.x
        try:
            step = np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:  # the curvature vanished: θ ran off
            break
        start, t = _loss(theta, labelled, rest, lam), 1.0
        while t > 1e-10 and _loss(theta - t * step, labelled, rest, lam) > start + 1e-15:
            t /= 2
        theta = theta - t * step
        if float(np.max(np.abs(t * step))) < 1e-13:
            return theta
    # With a judge that errs much on the labelled slice the rectified loss can fall without end
    # (its linear correction outweighs the imputed loss's growth): no estimate, said so.
    raise ValueError("the rectified loss has no minimiser on these data")


@dataclass(frozen=True)
class _Stats:
    grads: Matrix  # per distinct labelled row: x(μ − y)
    grads_hat: Matrix  # x(μ − ŷ)
    grads_rest: Matrix  # per distinct unlabelled row: x(μ − ŷ)
    inv_hessian: Matrix


def _stats(theta: npt.NDArray[np.float64], labelled: Rows, rest: Rows, lam: float) -> _Stats:
    """ppi-python's `_logistic_get_stats`: the Hessian over every row (over the labelled ones
    only when λ = 0) at θ, and the per-row gradients."""
    assert labelled.y is not None
    mu, mu_rest = _expit(labelled.x @ theta), _expit(rest.x @ theta)
    hess = (labelled.x.T * (labelled.count * mu * (1 - mu))) @ labelled.x
    if lam != 0:
        hess = hess + (rest.x.T * (rest.count * mu_rest * (1 - mu_rest))) @ rest.x
        hess /= labelled.n + rest.n
    else:
        hess /= labelled.n
    return _Stats(
        grads=labelled.x * (mu - labelled.y)[:, None],
        grads_hat=labelled.x * (mu - labelled.yhat)[:, None],
        grads_rest=rest.x * (mu_rest - rest.yhat)[:, None],
        inv_hessian=np.asarray(np.linalg.inv(hess), dtype=np.float64),
    )


def _cov(rows: Matrix, counts: npt.NDArray[np.float64]) -> Matrix:
    """np.cov (ddof 1) of rows repeated `counts` times."""
    d = rows.shape[1]
    return np.asarray(np.cov(rows.T, fweights=counts.astype(np.int64)), dtype=np.float64).reshape(
        d, d
    )


def _glm_lambda(stats: _Stats, labelled: Rows, rest: Rows) -> float:
    """ppi-python's `_calc_lam_glm` (`optim_mode="overall"`, all coordinates, clipped)."""
    n, big_n, w = labelled.n, rest.n, labelled.count[:, None]
    centred = stats.grads - np.sum(w * stats.grads, axis=0) / n
    centred_hat = stats.grads_hat - np.sum(w * stats.grads_hat, axis=0) / n
    cov_grads = ((w * centred).T @ centred_hat + (w * centred_hat).T @ centred) / n
    var_hat = _cov(
        np.concatenate([stats.grads_hat, stats.grads_rest]),
        np.concatenate([labelled.count, rest.count]),
    )
    inv = stats.inv_hessian
    denominator = 2 * (1 + n / big_n) * float(np.trace(inv @ var_hat @ inv))
    if denominator <= 0:
        return 0.0
    return float(np.clip(float(np.trace(inv @ cov_grads @ inv)) / denominator, 0.0, 1.0))


def ppi_logistic(labelled: Rows, rest: Rows) -> LogisticEstimate:
    """PPI++ logistic regression with power tuning, as ppi-python's `ppi_logistic_pointestimate`
    and `ppi_logistic_ci` with `lam=None` compute them: the point estimate refits at the λ tuned
    at the λ = 1 fit; the interval re-tunes λ at that point estimate and refits once more. Needs
    unlabelled rows; raises numpy's LinAlgError when the design does not identify θ."""
    point_lam = _glm_lambda(_stats(_fit(labelled, rest, 1.0), labelled, rest, 1.0), labelled, rest)
    theta = _fit(labelled, rest, point_lam)
    lam = _glm_lambda(_stats(theta, labelled, rest, 1.0), labelled, rest)
    centre = _fit(labelled, rest, lam)
    stats = _stats(centre, labelled, rest, lam)
    var_rest = _cov(lam * stats.grads_rest, rest.count)
    var = _cov(stats.grads - lam * stats.grads_hat, labelled.count)
    sigma = stats.inv_hessian @ (labelled.n / rest.n * var_rest + var) @ stats.inv_hessian
    return LogisticEstimate(theta, centre, sigma / labelled.n, lam, point_lam)


@dataclass(frozen=True)
class AnchoredRatings:
    """PPI++ Bradley-Terry strengths, centred to mean 0, and their CLT intervals."""

    theta: list[float]
    ci95: list[Interval]
    lam: float


# A comparison of models i and j: (i, j, y, ŷ, count) labelled, (i, j, ŷ, count) not; y and ŷ
# are 1 when i won, ½ for a tie, 0 when j won.
LabelledGame = tuple[int, int, float, float, int]
JudgedGame = tuple[int, int, float, int]


def _pairwise(models: int, pairs: list[tuple[int, int]]) -> Matrix:
    """Bradley-Terry's logistic design: +1 for i, −1 for j, model 0's column dropped (θ₀ = 0
    identifies the fit; the strengths are centred afterwards)."""
    x = np.zeros((len(pairs), models))
    for row, (i, j) in enumerate(pairs):
        x[row, i] += 1.0
        x[row, j] -= 1.0
    return x[:, 1:]


def ppi_bradley_terry(
    models: int, labelled: list[LabelledGame], rest: list[JudgedGame]
) -> AnchoredRatings:
    """Bradley-Terry by PPI++ logistic regression (`ppi_logistic`) on the pairwise design:
    unpenalised, every model connected. Raises ValueError (or numpy's LinAlgError) when the
    data do not identify the strengths."""
    if models < 2 or not labelled or not rest:
        raise ValueError("needs two models, labelled and unlabelled comparisons")
    fit = ppi_logistic(
        Rows(
            _pairwise(models, [(g[0], g[1]) for g in labelled]),
            np.array([g[3] for g in labelled]),
            np.array([g[4] for g in labelled], dtype=np.float64),
            np.array([g[2] for g in labelled]),
        ),
        Rows(
            _pairwise(models, [(g[0], g[1]) for g in rest]),
            np.array([g[2] for g in rest]),
            np.array([g[3] for g in rest], dtype=np.float64),
        ),
    )
    # θ = C·P·β: P puts θ₀ = 0 back, C centres; the covariance follows the same map.
    embed = np.vstack([np.zeros((1, models - 1)), np.eye(models - 1)])
    centre = np.eye(models) - 1.0 / models
    to_theta = centre @ embed
    se = np.sqrt(np.diag(to_theta @ fit.covariance @ to_theta.T))
    middle = to_theta @ fit.interval_theta
    return AnchoredRatings(
        theta=[float(v) for v in to_theta @ fit.theta],
        ci95=[(float(m - Z95 * e), float(m + Z95 * e)) for m, e in zip(middle, se, strict=True)],
        lam=fit.lam,
    )
