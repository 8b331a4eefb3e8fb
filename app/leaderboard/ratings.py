"""Leaderboard math: Bradley-Terry ratings, their bootstrap CIs, length-controlled win rates.

Pure functions over plain values (STATISTICS.md "Leaderboard"). A game is (i, j, y): models i and
j by index, y ∈ [0, 1] the outcome for i (1 won, ½ tie, 0 lost).
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt
from scipy import optimize, special
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

Game = tuple[int, int, float]
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]

LAMBDA = 0.01
ELO_SCALE = 400 / math.log(10)
LC_MIN_COMPARISONS = 30
LC_WARNING_POINTS = 10.0


# Bradley-Terry


@dataclass(frozen=True)
class PairTable:
    """Games folded onto unordered model pairs, since the likelihood only needs pair totals."""

    lo: IntArray  # per pair: the lower model index
    hi: IntArray  # per pair: the higher model index
    pair_of_game: IntArray  # per game: its pair
    credit_lo: FloatArray  # per game: the outcome for the pair's lower model

    def totals(self, multiplicity: FloatArray | None = None) -> tuple[FloatArray, FloatArray]:
        """Credit won by lo and by hi on each pair, each game counted `multiplicity` times."""
        weight = np.ones_like(self.credit_lo) if multiplicity is None else multiplicity
        size = len(self.lo)
        wins_lo = np.bincount(self.pair_of_game, weight * self.credit_lo, size)
        wins_hi = np.bincount(self.pair_of_game, weight * (1.0 - self.credit_lo), size)
        return wins_lo.astype(np.float64), wins_hi.astype(np.float64)


def pair_table(n_models: int, games: Sequence[Game]) -> PairTable:
    table = np.asarray(games, dtype=np.float64).reshape(-1, 3)
    i, j, y = table[:, 0].astype(np.intp), table[:, 1].astype(np.intp), table[:, 2]
    if np.any(i == j):
        raise ValueError("self-pairs are not games")
    if table.size and (min(i.min(), j.min()) < 0 or max(i.max(), j.max()) >= n_models):
        raise ValueError("model index out of range")
    if np.any((y < 0) | (y > 1)):
        raise ValueError("outcomes must lie in [0, 1]")
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    keys, pair_of_game = np.unique(lo * n_models + hi, return_inverse=True)
    credit_lo = np.where(i == lo, y, 1.0 - y)
    return PairTable(keys // n_models, keys % n_models, pair_of_game.ravel(), credit_lo)


def fit_pairs(
    n_models: int,
    pairs: PairTable,
    wins: tuple[FloatArray, FloatArray],
    lam: float,
    start: FloatArray | None = None,
) -> FloatArray:
    wins_lo, wins_hi = wins
    played = wins_lo + wins_hi

    def objective(theta: FloatArray) -> tuple[float, FloatArray]:
        diff = theta[pairs.lo] - theta[pairs.hi]
        nll = wins_lo @ np.logaddexp(0.0, -diff) + wins_hi @ np.logaddexp(0.0, diff)
        slope = played * special.expit(diff) - wins_lo  # d nll / d diff
        grad = np.bincount(pairs.lo, slope, n_models) - np.bincount(pairs.hi, slope, n_models)
        return float(nll + lam / 2 * theta @ theta), grad + lam * theta

    def hessian(theta: FloatArray) -> FloatArray:
        return pair_hessian(n_models, pairs.lo, pairs.hi, played, theta, lam)

    x0 = np.zeros(n_models) if start is None else start
    # An exact-Hessian trust region takes ~6 steps; L-BFGS-B needs several times more calls
    # and its tiny BLAS calls slow down badly under a multi-threaded OpenBLAS.
    result = optimize.minimize(
        objective, x0, jac=True, hess=hessian, method="trust-exact", options={"gtol": 1e-9}
    )
    theta = np.asarray(result.x, dtype=np.float64)
    centred: FloatArray = theta - theta.mean()
    return centred


def pair_hessian(
    n_models: int, lo: IntArray, hi: IntArray, played: FloatArray, theta: FloatArray, lam: float
) -> FloatArray:
    """The penalized negative log-likelihood's Hessian at θ: a weighted graph Laplacian plus
    λ·I, positive definite, so the objective is convex."""
    p = special.expit(theta[lo] - theta[hi])
    cells = lo * n_models + hi
    weight = np.bincount(cells, played * p * (1 - p), n_models * n_models)
    coupling = weight.reshape(n_models, n_models)
    coupling = coupling + coupling.T
    hessian: FloatArray = np.diag(coupling.sum(axis=1) + lam) - coupling
    return hessian


def bradley_terry(n_models: int, games: Sequence[Game], lam: float = LAMBDA) -> FloatArray:
    """Penalized Bradley-Terry strengths θ (mean 0) of all n_models from the games.

    Fit a connected set of models (see largest_connected_component): across components only
    the penalty ties the strengths together.
    """
    pairs = pair_table(n_models, games)
    return fit_pairs(n_models, pairs, pairs.totals(), lam)


def rating(theta: float) -> float:
    """Elo-scale rating 1000 + 400·θ/ln 10."""
    return 1000 + ELO_SCALE * theta


def largest_connected_component(n_models: int, games: Sequence[Game]) -> set[int]:
    """Models of the largest connected part of the comparison graph (empty without games)."""
    if not games:
        return set()
    i = np.array([g[0] for g in games], dtype=np.intp)
    j = np.array([g[1] for g in games], dtype=np.intp)
    graph = coo_array((np.ones(len(games)), (i, j)), shape=(n_models, n_models))
    _, label = connected_components(graph, directed=False)
    # Ties in size go to the component holding the lowest model index (argmax takes the first).
    sizes = np.bincount(label)
    return {int(m) for m in np.flatnonzero(label == np.argmax(sizes))}


def restrict(games: Sequence[Game], members: list[int]) -> list[Game]:
    """Games among members, with model indices renumbered 0..len(members)-1."""
    index = {model: k for k, model in enumerate(members)}
    return [(index[i], index[j], y) for i, j, y in games if i in index and j in index]


def component_strengths(
    n_models: int, games: Sequence[Game], lam: float = LAMBDA
) -> tuple[list[int], FloatArray]:
    """The largest connected component's models (sorted) and their strengths θ (mean 0), in
    that order: the models a leaderboard rates. ([], empty) without games."""
    members = sorted(largest_connected_component(n_models, games))
    if not members:
        return [], np.zeros(0)
    return members, bradley_terry(len(members), restrict(games, members), lam)


def bootstrap_bt_ci(
    n_models: int,
    games: Sequence[Game],
    rounds: int = 200,
    seed: int = 0,
    lam: float = LAMBDA,
) -> list[tuple[float, float] | None]:
    """Percentile 95% rating CIs, resampling games; None outside the largest component."""
    members = sorted(largest_connected_component(n_models, games))
    if not members:
        return [None] * n_models
    sub_games = restrict(games, members)
    pairs = pair_table(len(members), sub_games)
    theta_hat = fit_pairs(len(members), pairs, pairs.totals(), lam)
    rng = np.random.default_rng(seed)
    thetas = np.empty((rounds, len(members)))
    for r in range(rounds):
        drawn = rng.integers(0, len(sub_games), size=len(sub_games))
        multiplicity = np.bincount(drawn, minlength=len(sub_games)).astype(np.float64)
        # Warm start from the full fit: resamples land close to it.
        wins = pairs.totals(multiplicity)
        thetas[r] = fit_pairs(len(members), pairs, wins, lam, theta_hat)
    low, high = np.percentile(thetas, [2.5, 97.5], axis=0)
    cis: list[tuple[float, float] | None] = [None] * n_models
    for k, model in enumerate(members):
        cis[model] = (rating(float(low[k])), rating(float(high[k])))
    return cis


class ModelRating(TypedDict):
    """One leaderboard row; rating and CI are None with reason "disconnected"."""

    model: int
    theta: float | None
    rating: float | None
    ci95: tuple[float, float] | None
    reason: Literal["disconnected"] | None


def leaderboard(
    n_models: int,
    games: Sequence[Game],
    rounds: int = 200,
    seed: int = 0,
    lam: float = LAMBDA,
) -> list[ModelRating]:
    """Ratings with bootstrap CIs for the largest component; other models null, "disconnected"."""
    members, theta = component_strengths(n_models, games, lam)
    rows = [
        ModelRating(model=m, theta=None, rating=None, ci95=None, reason="disconnected")
        for m in range(n_models)
    ]
    if not members:
        return rows
    cis = bootstrap_bt_ci(n_models, games, rounds, seed, lam)
    for k, model in enumerate(members):
        rows[model] = ModelRating(
            model=model,
            theta=float(theta[k]),
            rating=rating(float(theta[k])),
            ci95=cis[model],
            reason=None,
        )
    return rows


# Length-controlled win rate


class LengthControlled(TypedDict):
    """Length-controlled and raw win rates of a model against a baseline, in percent."""

    n: int
    lc: float | None
    lc_se: float | None
    raw: float | None
    raw_se: float | None
    lc_warning: bool
    reason: Literal["insufficient_data", "separation"] | None


def _length_feature(delta_len: FloatArray) -> FloatArray:
    """tanh(Δ/sd(Δ)), sd with ddof=1 as AlpacaEval's pandas .std(); 0 when sd = 0."""
    sd = float(np.std(delta_len, ddof=1)) if delta_len.size > 1 else 0.0
    if sd == 0:
        return np.zeros_like(delta_len)
    return np.tanh(delta_len / sd)


def _is_separated(y: FloatArray, feature: FloatArray) -> bool:
    """Whether the binomial MLE fails to exist: all y equal, or wins and losses split by feature.

    A fractional y counts as a win where y > 0 and as a loss where y < 1.
    """
    wins, losses = feature[y > 0], feature[y < 1]
    if wins.size == 0 or losses.size == 0:
        return True
    if np.ptp(feature) == 0:
        return False
    return bool(losses.max() <= wins.min() or wins.max() <= losses.min())


def _logistic_glm(y: FloatArray, design: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Binomial GLM (logit link, scale 1) by Newton-IRLS: coefficients and their covariance."""
    beta = np.zeros(design.shape[1])
    for _ in range(100):
        mu = special.expit(design @ beta)
        information = design.T @ (design * (mu * (1 - mu))[:, None])
        step = np.linalg.solve(information, design.T @ (y - mu))
        beta += step
        if np.max(np.abs(step)) < 1e-12:
            break
    mu = special.expit(design @ beta)
    information = design.T @ (design * (mu * (1 - mu))[:, None])
    return beta, np.linalg.inv(information)


def length_controlled_win_rate(y: Sequence[float], delta_len: Sequence[float]) -> LengthControlled:
    """AlpacaEval-2.0-style length-controlled win rate (no instruction term) and the raw rate.

    y = 1 when the model won (½ tie), Δ = len(model) − len(baseline). raw_se uses sd with ddof=1.
    """
    outcome = np.asarray(y, dtype=np.float64)
    delta = np.asarray(delta_len, dtype=np.float64)
    if outcome.shape != delta.shape:
        raise ValueError("y and delta_len differ in length")
    n = int(outcome.size)
    result = LengthControlled(
        n=n, lc=None, lc_se=None, raw=None, raw_se=None, lc_warning=False, reason=None
    )
    if n:
        result["raw"] = 100 * float(outcome.mean())
        result["raw_se"] = 100 * float(np.std(outcome, ddof=1)) / math.sqrt(n) if n > 1 else None
    feature = _length_feature(delta)
    if n < LC_MIN_COMPARISONS:
        result["reason"] = "insufficient_data"
    elif _is_separated(outcome, feature):
        result["reason"] = "separation"
    else:
        _fill_length_controlled(result, outcome, feature)
    return result


def _fill_length_controlled(result: LengthControlled, y: FloatArray, feature: FloatArray) -> None:
    # A zero feature column would make the information matrix singular; it adds nothing.
    columns = [np.ones_like(y)] + ([feature] if np.any(feature) else [])
    beta, covariance = _logistic_glm(y, np.column_stack(columns))
    p = float(special.expit(beta[0]))
    lc = 100 * p
    result["lc"] = lc
    result["lc_se"] = 100 * p * (1 - p) * math.sqrt(covariance[0, 0])
    result["lc_warning"] = abs(lc - 100 * float(y.mean())) > LC_WARNING_POINTS
