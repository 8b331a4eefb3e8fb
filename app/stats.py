"""Statistics shared by every section of the bias report.

Plain numbers in, plain values out: no I/O, no ORM. Each function returns ``None`` where the
estimate is undefined (no data, a constant variable), so callers can map it to ``null`` with a
reason. The exact definitions are in the spec's STATISTICS.md.
"""

import math
from collections.abc import Iterator, Sequence
from typing import Literal, TypedDict

import numpy as np
import numpy.typing as npt
from scipy import stats

# The exact normal quantile rather than 1.96, so the Wilson interval matches statsmodels.
Z95 = 1.959963984540054

Pick = Literal["first", "second", "tie"]
PairClass = Literal["consistent", "primacy", "recency"]
Tier = Literal["insufficient", "preliminary", "moderate", "high"]
TierUnit = Literal[
    "decisive_calls",
    "swap_pairs",
    "comparisons",
    "labelled",
    "reviewer_scores",
    "sessions",
    "calls",
]
Interval = tuple[float, float]

# Lower bounds of preliminary, moderate and high, per unit (STATISTICS.md "Tiers").
TIER_THRESHOLDS: dict[TierUnit, tuple[int, int, int]] = {
    "decisive_calls": (20, 100, 500),
    "swap_pairs": (20, 100, 500),
    "comparisons": (30, 100, 500),
    "labelled": (30, 100, 300),
    "reviewer_scores": (12, 50, 200),
    "sessions": (10, 20, 50),
    # Not in STATISTICS.md's table: the failure share of all calls, with the decisive calls' bounds.
    "calls": (20, 100, 500),
}

# Bootstrap index matrices are drawn in blocks of about this many cells to bound memory.
_BOOTSTRAP_BLOCK_CELLS = 2_000_000


# Proportions and exact tests


def wilson_ci(k: float, n: float, z: float = Z95) -> Interval | None:
    """Wilson score interval for k successes in n trials; None when n = 0. Fractional counts
    are an effective sample size (a design effect divided out: the judge card's items)."""
    if n == 0:
        return None
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # The ends are exactly 0 and 1 at k = 0 and k = n; rounding would leave them a hair off.
    low = 0.0 if k == 0 else float(centre - half)
    high = 1.0 if k == n else float(centre + half)
    return low, high


def binom_two_sided_p(k: int, n: int, p: float = 0.5) -> float | None:
    """Exact two-sided binomial p-value (scipy's binomtest); None when n = 0."""
    if n == 0:
        return None
    return float(stats.binomtest(k, n, p).pvalue)


def mcnemar_exact_p(b: int, c: int) -> float:
    """McNemar's exact test: two-sided binomial test of b discordant pairs against c.

    With no discordant pairs there is no evidence of an asymmetry, so the p-value is 1.0 (as in
    statsmodels' exact McNemar test) and the judge stays in the Holm family.
    """
    if b + c == 0:
        return 1.0
    return float(stats.binomtest(b, b + c, 0.5).pvalue)


def balance_z(k: int, n: int) -> float | None:
    """Descriptive z = (k − n/2)/√(n/4) of k picks out of n against a fair coin."""
    if n == 0:
        return None
    return (k - n / 2) / math.sqrt(n / 4)


def label_omnibus_p(counts: Sequence[tuple[int, int]]) -> float | None:
    """χ² omnibus over label pairs, each (second-label picks, decisive calls); K = pairs used."""
    zs = [z for k, n in counts if (z := balance_z(k, n)) is not None]
    if not zs:
        return None
    return float(stats.chi2.sf(sum(z * z for z in zs), len(zs)))


def holm(p_values: Sequence[float | None]) -> list[float | None]:
    """Holm step-down adjustment; Nones keep their place and are left out of the family."""
    present = [i for i, p in enumerate(p_values) if p is not None]
    raw = np.array([p_values[i] for i in present], dtype=np.float64)
    order = np.argsort(raw, kind="stable")
    m = len(raw)
    stepped = (m - np.arange(m)) * raw[order]
    # Step-down: an adjusted p-value is never below the one of a smaller raw p-value.
    adjusted_sorted = np.minimum(np.maximum.accumulate(stepped), 1.0)
    adjusted: list[float | None] = [None] * len(p_values)
    for rank, position in enumerate(order):
        adjusted[present[position]] = float(adjusted_sorted[rank])
    return adjusted


def benjamini_yekutieli(
    p_values: Sequence[float], q: float = 0.05
) -> tuple[list[bool], list[float]]:
    """The Benjamini-Yekutieli step-up procedure (FDR ≤ q under any dependence): which hypotheses
    are rejected, and the adjusted p-values, as `statsmodels.stats.multitest.multipletests(p,
    q, "fdr_by")`: reject the k smallest where k is the largest rank with
    p_(k) ≤ k·q / (m·H_m), H_m = 1 + 1/2 + … + 1/m."""
    m = len(p_values)
    if m == 0:
        return [], []
    harmonic = math.fsum(1.0 / k for k in range(1, m + 1))
    order = sorted(range(m), key=lambda k: p_values[k])
    rejected = [False] * m
    last = max(
        (rank for rank, k in enumerate(order, start=1) if p_values[k] <= rank * q / (m * harmonic)),
        default=0,
    )
    for k in order[:last]:
        rejected[k] = True
    adjusted = [1.0] * m
    running = 1.0
    for rank in range(m, 0, -1):
        k = order[rank - 1]
        running = min(running, p_values[k] * m * harmonic / rank)
        adjusted[k] = min(1.0, running)
    return rejected, adjusted


def t_test_below_p(values: Sequence[float], bound: float) -> float:
    """One-sided one-sample t-test of H0: mean ≥ bound against H1: mean < bound: its p-value, as
    `scipy.stats.ttest_1samp(values, bound, alternative="less").pvalue`, but 1.0 (never a
    rejection) where scipy's is NaN: with no spread and the mean exactly at the bound. With no
    spread the mean below the bound is certain (0.0) and above it hopeless (1.0), as scipy's.
    Needs two values or more."""
    n = len(values)
    if n < 2:
        raise ValueError("a t-test needs two values or more")
    mean = math.fsum(values) / n
    sd = math.sqrt(math.fsum((x - mean) ** 2 for x in values) / (n - 1))
    if sd == 0.0:
        return 0.0 if mean < bound else 1.0
    return float(stats.t.cdf((mean - bound) / (sd / math.sqrt(n)), n - 1))


# Correlation and agreement


def spearman_from_ranks(
    n: int, s_ab: float, s_aa: float, s_bb: float
) -> tuple[float | None, float | None]:
    """Spearman ρ and its two-sided p (as `scipy.stats.spearmanr`: t with n − 2 degrees of
    freedom) from the sums of products of centred average ranks; (None, None) with < 3 points
    or a constant variable."""
    if n < 3 or s_aa <= 0 or s_bb <= 0:
        return None, None
    rho = min(1.0, max(-1.0, s_ab / math.sqrt(s_aa * s_bb)))
    if abs(rho) == 1.0:
        return rho, 0.0
    t = rho * math.sqrt((n - 2) / ((rho + 1.0) * (1.0 - rho)))
    return rho, float(2 * stats.t.sf(abs(t), n - 2))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b between two scorings of the same items (ties corrected, as
    `scipy.stats.kendalltau`'s default): (P − Q) / √((P + Q + Tx)(P + Q + Ty)), with P and Q the
    concordant and discordant pairs and Tx, Ty those tied on one side only. None with fewer than
    two items or when either side is all tied. Quadratic: for rankings of a few dozen models."""
    if len(x) != len(y):
        raise ValueError("x and y must have the same length")
    concordant = discordant = tied_x = tied_y = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            dx, dy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                tied_x += 1
            elif dy == 0:
                tied_y += 1
            elif dx == dy:
                concordant += 1
            else:
                discordant += 1
    decided = concordant + discordant
    denominator = math.sqrt((decided + tied_x) * (decided + tied_y))
    return (concordant - discordant) / denominator if denominator > 0 else None


def cohen_kappa(
    a: Sequence[str], b: Sequence[str], labels: Sequence[str] = ("A", "B", "tie")
) -> float | None:
    """Unweighted Cohen's κ (as sklearn); None with no data or when expected agreement is 1."""
    if len(a) != len(b):
        raise ValueError("a and b differ in length")
    if not a:
        return None
    index = {label: i for i, label in enumerate(labels)}
    if unknown := (set(a) | set(b)) - index.keys():
        raise ValueError(f"labels outside {tuple(labels)}: {sorted(unknown)}")
    confusion = np.zeros((len(labels), len(labels)))
    np.add.at(confusion, ([index[v] for v in a], [index[v] for v in b]), 1.0)
    confusion /= len(a)
    observed = float(np.trace(confusion))
    expected = float(confusion.sum(axis=1) @ confusion.sum(axis=0))
    if np.isclose(expected, 1.0, rtol=0.0, atol=1e-12):
        return None
    return (observed - expected) / (1.0 - expected)


# Bootstrap


def _bootstrap_index_blocks(n: int, rounds: int, seed: int) -> Iterator[npt.NDArray[np.intp]]:
    """Resampling indices (rows = rounds), drawn block by block from one seeded generator."""
    rng = np.random.default_rng(seed)
    block = max(1, _BOOTSTRAP_BLOCK_CELLS // n)
    for start in range(0, rounds, block):
        yield rng.integers(0, n, size=(min(block, rounds - start), n))


def _percentile_interval(estimates: npt.NDArray[np.float64]) -> Interval | None:
    finite = estimates[np.isfinite(estimates)]
    if finite.size == 0:
        return None
    low, high = np.percentile(finite, [2.5, 97.5])
    return float(low), float(high)


def percentile_bootstrap_mean_ci(
    values: Sequence[float], rounds: int = 1000, seed: int = 0
) -> Interval | None:
    """95% percentile-bootstrap interval of a mean; None without values."""
    data = np.asarray(values, dtype=np.float64)
    if data.size == 0:
        return None
    means = [data[idx].mean(axis=1) for idx in _bootstrap_index_blocks(data.size, rounds, seed)]
    return _percentile_interval(np.concatenate(means))


def percentile_bootstrap_mean_ci_of_counts(
    values: Sequence[float], counts: Sequence[int], rounds: int = 1000, seed: int = 0
) -> Interval | None:
    """`percentile_bootstrap_mean_ci` of a sample given as its distinct values and how often
    each occurs. A resample draws how many times it takes each value (multinomially), which is
    the same resampling with replacement, at the cost of the distinct values instead of the
    sample's size. The values are merged and sorted first: the draws never depend on the
    order they came in."""
    distinct, at = np.unique(np.asarray(values, dtype=np.float64), return_inverse=True)
    weights = np.bincount(at, weights=np.asarray(counts, dtype=np.float64), minlength=distinct.size)
    n = int(weights.sum())
    if n == 0:
        return None
    taken = np.random.default_rng(seed).multinomial(n, weights / n, size=rounds)
    return _percentile_interval(taken @ distinct / n)


def cluster_bootstrap_ratio_ci(
    numerators: Sequence[float], denominators: Sequence[float], rounds: int = 1000, seed: int = 0
) -> Interval | None:
    """95% percentile interval of Σnum/Σden, resampling clusters (one entry each) with replacement.

    Resamples whose denominator sums to 0 are dropped; None without clusters or denominators.
    """
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    if num.shape != den.shape:
        raise ValueError("numerators and denominators differ in length")
    if num.size == 0 or den.sum() == 0:
        return None
    ratios = []
    for idx in _bootstrap_index_blocks(num.size, rounds, seed):
        den_sums = den[idx].sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios.append(np.where(den_sums > 0, num[idx].sum(axis=1) / den_sums, np.nan))
    return _percentile_interval(np.concatenate(ratios))


# Tiers and flags


def tier(unit: TierUnit, n: int) -> Tier:
    """Evidence tier of a figure that counts n of the given unit."""
    preliminary, moderate, high = TIER_THRESHOLDS[unit]
    if n >= high:
        return "high"
    if n >= moderate:
        return "moderate"
    if n >= preliminary:
        return "preliminary"
    return "insufficient"


def significant(
    p_adjusted: float | None, effect: float | None, min_effect: float, alpha: float = 0.05
) -> bool:
    """A bias is significant when p_adjusted < alpha and the effect reaches min_effect."""
    if p_adjusted is None or effect is None:
        return False
    return p_adjusted < alpha and effect >= min_effect


def floor_flag(
    point: float | None, ci: Interval | None, floor: float
) -> Literal["flag", "watch"] | None:
    """Flag when the whole CI is below the floor, watch when only the point estimate is.

    The tier rule (no flag below `moderate`) is the caller's: it knows the tier.
    """
    if point is None:
        return None
    if ci is not None and ci[1] < floor:
        return "flag"
    if point < floor:
        return "watch"
    return None


# Confidence calibration


class ReliabilityBin(TypedDict):
    """One decile of the reliability table; means are None for an empty bin."""

    lower: float
    upper: float
    n: int
    mean_confidence: float | None
    accuracy: float | None


def _confidence_arrays(
    conf: Sequence[float], correct: Sequence[bool]
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    c = np.asarray(conf, dtype=np.float64)
    hit = np.asarray(correct, dtype=np.float64)
    if c.shape != hit.shape:
        raise ValueError("conf and correct differ in length")
    if c.size and (c.min() < 0.0 or c.max() > 1.0):
        raise ValueError("confidence outside [0, 1]")
    return c, hit


def brier(conf: Sequence[float], correct: Sequence[bool]) -> float | None:
    """Brier score of confidences against 0/1 correctness; None without data."""
    c, hit = _confidence_arrays(conf, correct)
    if c.size == 0:
        return None
    return float(np.mean((c - hit) ** 2))


def confident_wrong_rate(
    conf: Sequence[float], correct: Sequence[bool], threshold: float = 0.9
) -> float | None:
    """Share of calls that were wrong with confidence ≥ threshold; None without data."""
    c, hit = _confidence_arrays(conf, correct)
    if c.size == 0:
        return None
    return float(np.mean((c >= threshold) & (hit == 0)))


def reliability_deciles(conf: Sequence[float], correct: Sequence[bool]) -> list[ReliabilityBin]:
    """All ten confidence deciles [0, 0.1), [0.1, 0.2), ..., [0.9, 1.0], empty ones included."""
    c, hit = _confidence_arrays(conf, correct)
    edges = np.round(np.arange(1, 10) / 10, 1)
    # side="right" puts a confidence equal to an edge in the upper bin; 1.0 falls in the last.
    bins = np.searchsorted(edges, c, side="right")
    table: list[ReliabilityBin] = []
    for b in range(10):
        members = bins == b
        n = int(members.sum())
        table.append(
            ReliabilityBin(
                lower=b / 10,
                upper=(b + 1) / 10,
                n=n,
                mean_confidence=float(c[members].mean()) if n else None,
                accuracy=float(hit[members].mean()) if n else None,
            )
        )
    return table


# Swap consistency

_PICKS = frozenset({"first", "second", "tie"})
_PRIMACY: frozenset[tuple[Pick, Pick]] = frozenset(
    {("first", "first"), ("first", "tie"), ("tie", "first")}
)
_RECENCY: frozenset[tuple[Pick, Pick]] = frozenset(
    {("second", "second"), ("second", "tie"), ("tie", "second")}
)


def pc_classify(p1: Pick, p2: Pick) -> PairClass:
    """Class of a swap pair from the picks of its AB call (p1) and its BA call (p2)."""
    if p1 not in _PICKS or p2 not in _PICKS:
        raise ValueError(f"unknown pick in {(p1, p2)}")
    if (p1, p2) in _PRIMACY:
        return "primacy"
    if (p1, p2) in _RECENCY:
        return "recency"
    # The rest, (first, second), (second, first), (tie, tie), name the same mapped winner.
    return "consistent"
