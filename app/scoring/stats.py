"""Pointwise-scoring statistics: reviewer offsets, position effects, length-score correlation.

Pure functions over plain values (STATISTICS.md "Pointwise scoring"). The reviewer model is
s = μ + α_item + β_reviewer + γ_position + ε with Σβ = 0 and Σγ = 0. Item effects are absorbed:
the normal equations need only sums over items (`DesignSums`, accumulable in SQL); the
cluster-robust covariance also needs each call's residuals, so it takes the score rows.

Over 500 lines because the reviewer model's estimator, its cluster-robust covariance and the
calibration tests all read the same design sums; apart, each would derive them again.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, TypedDict, TypeVar

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel
from scipy import stats
from scipy.sparse import coo_array
from scipy.sparse.csgraph import connected_components

from app.stats import Z95, Interval, Tier, percentile_bootstrap_mean_ci, tier

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.intp]
Level = TypeVar("Level", str, int)
Classification = Literal["harsh", "neutral", "generous"]
Band = Literal[
    "strong_positive", "moderate_positive", "weak", "moderate_negative", "strong_negative"
]


class ScoreRow(NamedTuple):
    """One stored score: item = (session, response), position 1-based, call that produced it."""

    item: str
    reviewer: str
    position: int
    score: float
    call: str


# Design: effect-coded reviewers and positions, item effects absorbed


@dataclass(frozen=True)
class DesignSums:
    """Sufficient sums for the absorbed normal equations, over indicator columns z.

    z stacks one indicator per reviewer, then one per position. Every field is a count or a
    score sum that SQL can accumulate (GROUP BY item, reviewer / item, position).
    """

    zz: FloatArray  # Σ z zᵀ over scores
    zs: FloatArray  # Σ z·s over scores
    item_n: FloatArray  # scores per item
    item_z: FloatArray  # per item, Σ z (counts per reviewer and per position)
    item_s: FloatArray  # per item, Σ s

    def absorbed(self) -> tuple[FloatArray, FloatArray]:
        """Σ z̃ z̃ᵀ and Σ z̃ s̃ after subtracting item means (Frisch-Waugh-Lovell)."""
        weighted = self.item_z / self.item_n[:, None]
        return self.zz - self.item_z.T @ weighted, self.zs - weighted.T @ self.item_s


def _sum_to_zero_contrast(levels: int) -> FloatArray:
    """Columns β₁..β_{L−1} of a sum-to-zero effect: level L carries −Σ of the others."""
    return np.vstack([np.eye(levels - 1), -np.ones((1, levels - 1))])


@dataclass(frozen=True)
class _Coded:
    """Score rows as integer codes."""

    item: IntArray
    reviewer: IntArray
    position: IntArray
    call: IntArray
    score: FloatArray
    reviewers: list[str]
    positions: list[int]
    n_items: int

    def indicators(self) -> FloatArray:
        z = np.zeros((len(self.score), len(self.reviewers) + len(self.positions)))
        rows = np.arange(len(self.score))
        z[rows, self.reviewer] = 1.0
        z[rows, len(self.reviewers) + self.position] = 1.0
        return z

    def design_sums(self) -> DesignSums:
        z = self.indicators()
        item_z = np.zeros((self.n_items, z.shape[1]))
        np.add.at(item_z, self.item, z)
        return DesignSums(
            zz=z.T @ z,
            zs=z.T @ self.score,
            item_n=np.bincount(self.item, minlength=self.n_items).astype(np.float64),
            item_z=item_z,
            item_s=np.bincount(self.item, self.score, self.n_items).astype(np.float64),
        )


def _index(values: list[Level]) -> tuple[IntArray, list[Level]]:
    """Integer codes of values and the sorted distinct levels they index."""
    levels = sorted(set(values))
    lookup = {level: k for k, level in enumerate(levels)}
    return np.array([lookup[v] for v in values], dtype=np.intp), levels


def _code(rows: Sequence[ScoreRow]) -> _Coded:
    item, items = _index([r.item for r in rows])
    reviewer, reviewers = _index([r.reviewer for r in rows])
    position, positions = _index([r.position for r in rows])
    call, _ = _index([r.call for r in rows])
    score = np.array([r.score for r in rows], dtype=np.float64)
    return _Coded(item, reviewer, position, call, score, reviewers, positions, len(items))


def informative_rows(rows: Sequence[ScoreRow]) -> list[ScoreRow]:
    """Scores of items that at least two distinct reviewers scored."""
    reviewers_of: dict[str, set[str]] = {}
    for row in rows:
        reviewers_of.setdefault(row.item, set()).add(row.reviewer)
    return [row for row in rows if len(reviewers_of[row.item]) >= 2]


def connected_rows(rows: Sequence[ScoreRow]) -> list[ScoreRow]:
    """Scores inside the largest connected component of the reviewer–item graph."""
    if not rows:
        return []
    coded = _code(rows)
    n_reviewers = len(coded.reviewers)
    size = n_reviewers + coded.n_items
    edges = (np.ones(len(rows)), (coded.reviewer, n_reviewers + coded.item))
    _, label = connected_components(coo_array(edges, shape=(size, size)), directed=False)
    largest = np.argmax(np.bincount(label))
    keep = label[coded.reviewer] == largest
    return [row for row, kept in zip(rows, keep, strict=True) if kept]


# Fit


@dataclass(frozen=True)
class AdditiveFit:
    """Reviewer and position effects (each summing to 0) with cluster-robust covariances."""

    reviewers: list[str]
    positions: list[int]
    reviewer_effect: FloatArray
    reviewer_cov: FloatArray
    position_effect: FloatArray | None  # None when positions are not identified
    position_cov: FloatArray | None
    position_p: float | None


def _contrast(n_reviewers: int, n_positions: int, with_positions: bool) -> FloatArray:
    """Maps free parameters to full indicator effects: reviewers, then positions."""
    reviewers = _sum_to_zero_contrast(n_reviewers)
    if not with_positions or n_positions < 2:
        return np.vstack([reviewers, np.zeros((n_positions, n_reviewers - 1))])
    positions = _sum_to_zero_contrast(n_positions)
    top = np.hstack([reviewers, np.zeros((n_reviewers, n_positions - 1))])
    return np.vstack([top, np.hstack([np.zeros((n_positions, n_reviewers - 1)), positions])])


def _solve(sums: DesignSums, contrast: FloatArray) -> tuple[FloatArray, FloatArray] | None:
    """Free parameters and the inverse normal matrix; None when they are not identified."""
    zz, zs = sums.absorbed()
    normal = contrast.T @ zz @ contrast
    if np.linalg.matrix_rank(normal) < normal.shape[0]:
        return None
    inverse = np.asarray(np.linalg.inv(normal), dtype=np.float64)
    return inverse @ (contrast.T @ zs), inverse


def _cluster_covariance(
    coded: _Coded, sums: DesignSums, contrast: FloatArray, params: FloatArray, inverse: FloatArray
) -> FloatArray:
    """CRV1 sandwich by call, with statsmodels' small-sample factor for the dummy model."""
    effects = contrast @ params
    z = coded.indicators()
    item_effect = (sums.item_s - sums.item_z @ effects) / sums.item_n
    residual = coded.score - z @ effects - item_effect[coded.item]
    # Within-item deviations of the regressors, in free-parameter coordinates.
    x_within = (z - (sums.item_z / sums.item_n[:, None])[coded.item]) @ contrast
    n_calls = int(coded.call.max()) + 1
    scores = np.zeros((n_calls, contrast.shape[1]))
    np.add.at(scores, coded.call, x_within * residual[:, None])
    n, k = len(coded.score), coded.n_items + contrast.shape[1]
    if n_calls < 2 or n <= k:
        return np.full((contrast.shape[1],) * 2, np.nan)
    factor = n_calls / (n_calls - 1) * (n - 1) / (n - k)
    covariance: FloatArray = factor * inverse @ (scores.T @ scores) @ inverse
    return covariance


def _wald_f_p(effect: FloatArray, covariance: FloatArray, df_denom: int) -> float | None:
    """p of the F-test that all effects are 0 (statsmodels' f_test under a cluster covariance)."""
    if effect.size == 0 or df_denom < 1 or not np.all(np.isfinite(covariance)):
        return None
    statistic = float(effect @ np.linalg.solve(covariance, effect)) / effect.size
    return float(stats.f.sf(statistic, effect.size, df_denom))


@dataclass(frozen=True)
class _Solution:
    contrast: FloatArray
    params: FloatArray
    inverse: FloatArray
    with_positions: bool


def _solve_design(sums: DesignSums, n_reviewers: int, n_positions: int) -> _Solution:
    # Positions confounded with items (each response always in one slot) are not identified;
    # the reviewers alone still are.
    for with_positions in (True, False) if n_positions >= 2 else (False,):
        contrast = _contrast(n_reviewers, n_positions, with_positions)
        solved = _solve(sums, contrast)
        if solved is not None:
            return _Solution(contrast, solved[0], solved[1], with_positions)
    raise ValueError("reviewer effects are not identified: pass connected, informative rows")


def effects_from_sums(
    sums: DesignSums, n_reviewers: int, n_positions: int
) -> tuple[FloatArray, FloatArray | None]:
    """Point estimates (β, γ) from per-item sums alone; γ is None when not identified."""
    solution = _solve_design(sums, n_reviewers, n_positions)
    full = solution.contrast @ solution.params
    return full[:n_reviewers], (full[n_reviewers:] if solution.with_positions else None)


def fit_additive_model(rows: Sequence[ScoreRow]) -> AdditiveFit:
    """Fit the additive model on connected, informative score rows."""
    coded = _code(rows)
    sums = coded.design_sums()
    n_reviewers = len(coded.reviewers)
    solution = _solve_design(sums, n_reviewers, len(coded.positions))
    contrast, params, with_positions = solution.contrast, solution.params, solution.with_positions
    free_cov = _cluster_covariance(coded, sums, contrast, params, solution.inverse)
    full, full_cov = contrast @ params, contrast @ free_cov @ contrast.T
    gamma, gamma_free = slice(n_reviewers, None), slice(n_reviewers - 1, None)
    n_calls = int(coded.call.max()) + 1
    return AdditiveFit(
        reviewers=coded.reviewers,
        positions=coded.positions,
        reviewer_effect=full[:n_reviewers],
        reviewer_cov=full_cov[:n_reviewers, :n_reviewers],
        position_effect=full[gamma] if with_positions else None,
        position_cov=full_cov[gamma, gamma] if with_positions else None,
        position_p=(
            _wald_f_p(params[gamma_free], free_cov[gamma_free, gamma_free], n_calls - 1)
            if with_positions
            else None
        ),
    )


# Reviewer calibration and position-score bias


class ReviewerOffset(TypedDict):
    """One reviewer's calibration; offset, CI and class are None with a reason."""

    reviewer: str
    n: int  # informative scores
    n_total: int
    raw_mean: float | None
    sd: float | None
    offset: float | None
    ci95: Interval | None
    z: float | None
    classification: Classification | None
    tier: Tier
    reason: Literal["disconnected_design", "insufficient_data"] | None


class PositionEffect(TypedDict):
    """γ_p of one display position."""

    position: int
    n: int
    effect: float | None
    ci95: Interval | None


class PositionScore(TypedDict):
    """Position-score bias: fitted γ with an F-test, and the raw variance of position means."""

    by_position: list[PositionEffect]
    position_p: float | None
    variance_of_position_means: float | None
    variance_flag: bool
    reason: Literal["not_identified"] | None


class ReviewerCalibration(TypedDict):
    """Reviewer offsets and position effects of one rubric."""

    reviewers: list[ReviewerOffset]
    position_score: PositionScore


def classify_offset(ci: Interval, margin: float) -> Classification:
    """Harsh when the whole CI is below −margin, generous when above +margin."""
    if ci[1] < -margin:
        return "harsh"
    if ci[0] > margin:
        return "generous"
    return "neutral"


def _interval(point: float, variance: float) -> Interval | None:
    if not math.isfinite(variance):
        return None
    half = Z95 * math.sqrt(variance)
    return point - half, point + half


def descriptive_z(effects: FloatArray) -> FloatArray | None:
    """(β − mean β)/sd(β), sd with ddof=1 as llm-council's statistics.stdev; None with < 3."""
    if effects.size < 3 or np.std(effects) == 0:
        return None
    z: FloatArray = (effects - effects.mean()) / np.std(effects, ddof=1)
    return z


def _reviewer_offset(
    reviewer: str,
    rows: Sequence[ScoreRow],
    n_informative: int,
    fit: AdditiveFit | None,
    margin: float,
) -> ReviewerOffset:
    scores = [r.score for r in rows if r.reviewer == reviewer]
    entry = ReviewerOffset(
        reviewer=reviewer,
        n=n_informative,
        n_total=len(scores),
        raw_mean=float(np.mean(scores)) if scores else None,
        sd=float(np.std(scores, ddof=1)) if len(scores) > 1 else None,
        offset=None,
        ci95=None,
        z=None,
        classification=None,
        tier=tier("reviewer_scores", n_informative),
        reason=None,
    )
    if fit is None or reviewer not in fit.reviewers:
        entry["reason"] = "insufficient_data" if n_informative == 0 else "disconnected_design"
    elif entry["tier"] == "insufficient":
        entry["reason"] = "insufficient_data"
    else:
        k = fit.reviewers.index(reviewer)
        offset = float(fit.reviewer_effect[k])
        entry["offset"], entry["ci95"] = offset, _interval(offset, fit.reviewer_cov[k, k])
        z = descriptive_z(fit.reviewer_effect)
        entry["z"] = None if z is None else float(z[k])
        ci = entry["ci95"]
        entry["classification"] = None if ci is None else classify_offset(ci, margin)
    return entry


def variance_of_position_means(rows: Sequence[ScoreRow]) -> float | None:
    """Sample variance (ddof=1, llm-council's) of the mean raw score per position."""
    by_position: dict[int, list[float]] = {}
    for row in rows:
        by_position.setdefault(row.position, []).append(row.score)
    if len(by_position) < 2:
        return None
    return float(np.var([np.mean(s) for s in by_position.values()], ddof=1))


def _position_score(
    rows: Sequence[ScoreRow],
    fitted_rows: Sequence[ScoreRow],
    fit: AdditiveFit | None,
    score_range: float,
) -> PositionScore:
    variance = variance_of_position_means(rows)
    result = PositionScore(
        by_position=[],
        position_p=None,
        variance_of_position_means=variance,
        variance_flag=variance is not None and variance > 0.5 * (score_range / 4) ** 2,
        reason=None,
    )
    if fit is None or fit.position_effect is None or fit.position_cov is None:
        result["reason"] = "not_identified"
        return result
    counts = np.bincount([r.position for r in fitted_rows])
    for k, position in enumerate(fit.positions):
        effect = float(fit.position_effect[k])
        result["by_position"].append(
            PositionEffect(
                position=position,
                n=int(counts[position]),
                effect=effect,
                ci95=_interval(effect, fit.position_cov[k, k]),
            )
        )
    result["position_p"] = fit.position_p
    return result


def reviewer_calibration(
    rows: Sequence[ScoreRow], rubric_min: float, rubric_max: float, margin: float | None = None
) -> ReviewerCalibration:
    """Offsets of every reviewer and position effects, from all scores of one rubric.

    margin is τ (FAIRPAIR_REVIEWER_MARGIN); by default 0.1 × (rubric max − rubric min).
    """
    tau = 0.1 * (rubric_max - rubric_min) if margin is None else margin
    informative = informative_rows(rows)
    fitted_rows = connected_rows(informative)
    fit = fit_additive_model(fitted_rows) if fitted_rows else None
    n_informative: dict[str, int] = {}
    for row in informative:
        n_informative[row.reviewer] = n_informative.get(row.reviewer, 0) + 1
    reviewers = [
        _reviewer_offset(name, rows, n_informative.get(name, 0), fit, tau)
        for name in sorted({r.reviewer for r in rows})
    ]
    position = _position_score(rows, fitted_rows, fit, rubric_max - rubric_min)
    return ReviewerCalibration(reviewers=reviewers, position_score=position)


def calibrated_score(score: float, offset: float) -> float:
    """Score with the reviewer's offset removed, s − β (not clipped to the rubric)."""
    return score - offset


# Length-score correlation


class PooledCorrelationRead(BaseModel):
    """Fisher-z pool of per-(reviewer, session) Pearson correlations of length and score."""

    sessions: int
    pooled_r: float | None
    ci95: Interval | None
    q: float | None
    i2: float | None
    heterogeneous: bool | None
    band: Band | None
    tier: Tier
    reason: Literal["insufficient_data"] | None


def session_correlation(lengths: Sequence[float], scores: Sequence[float]) -> float | None:
    """Pearson r of one (reviewer, session); None with < 4 responses or a constant variable."""
    x, y = np.asarray(lengths, dtype=np.float64), np.asarray(scores, dtype=np.float64)
    if x.size < 4 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])


def correlation_band(r: float) -> Band:
    """Verbal band of a correlation."""
    if r > 0.7:
        return "strong_positive"
    if r > 0.3:
        return "moderate_positive"
    if r > -0.3:
        return "weak"
    if r > -0.7:
        return "moderate_negative"
    return "strong_negative"


def fisher_pool(correlations: Sequence[tuple[float, int]]) -> PooledCorrelationRead:
    """Pool (r_i, n_i) pairs by Fisher z with weights n_i − 3; |r| = 1 is skipped."""
    used = [(r, n) for r, n in correlations if abs(r) < 1]
    k = len(used)
    result = PooledCorrelationRead(
        sessions=k,
        pooled_r=None,
        ci95=None,
        q=None,
        i2=None,
        heterogeneous=None,
        band=None,
        tier=tier("sessions", k),
        reason=None,
    )
    if result.tier == "insufficient":
        result.reason = "insufficient_data"
        return result
    z = np.arctanh([r for r, _ in used])
    w = np.array([n - 3.0 for _, n in used])
    z_bar = float(w @ z / w.sum())
    se = 1 / math.sqrt(w.sum())
    q = float(w @ (z - z_bar) ** 2)
    i2 = max(0.0, (q - (k - 1)) / q) if q > 0 else 0.0
    pooled = math.tanh(z_bar)
    result.pooled_r, result.band = pooled, correlation_band(pooled)
    result.ci95 = (math.tanh(z_bar - Z95 * se), math.tanh(z_bar + Z95 * se))
    result.q, result.i2, result.heterogeneous = q, i2, i2 > 0.5
    return result


# Length-normalized score


def length_normalized_score(
    score: float, length: int, rubric_min: float, target: int = 500
) -> float:
    """Score with the seed's length penalty (ratio = length/target), floored at rubric_min."""
    ratio = length / target
    if ratio > 2:
        score -= 0.1 * (ratio - 2)
    elif ratio < 0.3:
        score -= 0.5 * (0.3 - ratio)
    return max(rubric_min, score)


# Own-family score gap (STATISTICS.md "Self-preference", for scores; issue 22)


class FamilyScore(NamedTuple):
    """One score with the families the self-preference guard compares."""

    session: str
    response: int
    reviewer: str
    reviewer_family: str | None
    response_family: str | None
    score: float


@dataclass(frozen=True)
class OwnFamilyGap:
    """A reviewer's mean own-family gap over sessions, with its bootstrap CI."""

    n: int
    delta: float | None
    ci95: Interval | None
    significant: bool
    tier: Tier
    reason: Literal["no_audit_data", "insufficient_data"] | None


def _session_gap(scores: Sequence[FamilyScore], reviewer: str, family: str) -> float | None:
    """(own-family responses' mean d) − (other responses' mean d), where d = the reviewer's
    score minus the mean score of the neutral reviewers (conflicted on no response of the
    session); None unless both kinds of response have a neutral score."""
    families = {s.response_family for s in scores} - {None}
    neutral: dict[int, list[float]] = {}
    for s in scores:
        if s.reviewer_family is None or s.reviewer_family not in families:
            neutral.setdefault(s.response, []).append(s.score)
    own: list[float] = []
    other: list[float] = []
    for s in scores:
        if s.reviewer == reviewer and s.response in neutral:
            d = s.score - float(np.mean(neutral[s.response]))
            (own if s.response_family == family else other).append(d)
    if not own or not other:
        return None
    return float(np.mean(own) - np.mean(other))


def own_family_gaps(scores: Sequence[FamilyScore]) -> dict[str, list[float]]:
    """Per reviewer, one gap per session where it scored a response of its own family (in
    session order, so the bootstrap does not depend on the database's row order).

    The contrast with its other responses takes out the reviewer's general harshness, which
    the neutral reviewers' means alone would leave in."""
    by_session: dict[str, list[FamilyScore]] = {}
    for s in scores:
        by_session.setdefault(s.session, []).append(s)
    gaps: dict[str, list[float]] = {}
    for session in sorted(by_session):
        rows = by_session[session]
        conflicted: set[tuple[str, str]] = set()
        for s in rows:
            if s.reviewer_family is not None and s.reviewer_family == s.response_family:
                conflicted.add((s.reviewer, s.reviewer_family))
        for reviewer, family in sorted(conflicted):
            gap = _session_gap(rows, reviewer, family)
            if gap is not None:
                gaps.setdefault(reviewer, []).append(gap)
    return gaps


def own_family_gap(gaps: Sequence[float], margin: float) -> OwnFamilyGap:
    """Mean gap with a 95% percentile bootstrap over sessions (1,000 resamples, seed 0);
    significant when the CI excludes 0 and |delta| ≥ `margin` (rubric points, the reviewer
    classification's margin)."""
    n = len(gaps)
    level = tier("comparisons", n)
    if n == 0 or level == "insufficient":
        reason: Literal["no_audit_data", "insufficient_data"] = (
            "no_audit_data" if n == 0 else "insufficient_data"
        )
        return OwnFamilyGap(n, None, None, False, level, reason)
    delta = float(np.mean(gaps))
    ci = percentile_bootstrap_mean_ci(list(gaps), rounds=1000, seed=0)
    excludes_zero = ci is not None and (ci[0] > 0 or ci[1] < 0)
    return OwnFamilyGap(n, delta, ci, excludes_zero and abs(delta) >= margin, level, None)
