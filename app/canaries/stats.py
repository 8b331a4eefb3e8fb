"""Drift statistics of canary runs: one run's figures per judge, and paired tests between two runs.

Pure: plain values in, plain dataclasses out (the API maps them to its schemas); no I/O, no ORM.
A run's figures follow STATISTICS.md where the figure already exists there (call and verdict
accuracy, position consistency, first-pick rate). Two runs are compared on the items present in
both, so every test is paired: each item is its own control, and a change of items cannot pass for
a change of judge. Every paired test is a two-sided exact binomial test of `c` units that moved one
way against `b` that moved the other (McNemar's exact test when the units are the cells of a paired
2×2 table); Holm adjusts the judge's tests together, and `drift` needs p_adjusted < 0.05 and an
effect of at least the minimum effect, as every other flag of the report.
"""

import dataclasses
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from app import stats
from app.stats import Interval

Winner = Literal["A", "B", "tie"]
TestName = Literal[
    "verdict_accuracy", "position_consistency", "verdict_direction", "first_pick_rate"
]

# The call-accuracy and first-pick bootstraps: as the report's call_accuracy (STATISTICS.md).
BOOTSTRAP_ROUNDS = 1000
BOOTSTRAP_SEED = 0
# Paired bootstrap draws are made in blocks of about this many cells to bound memory.
_BLOCK_CELLS = 2_000_000


@dataclass(frozen=True)
class ItemResult:
    """One judge's results on one canary item in one run."""

    item: str
    gold: Winner | None
    # Mapped winner of round 0 (shown AB) and round 1 (shown BA); None for a failed call.
    winners: tuple[Winner | None, Winner | None]
    # Display-slot pick of round 0 and round 1; None for a failed call.
    picks: tuple[stats.Pick | None, stats.Pick | None]
    # The debiased per-comparison winner; None when the judge has no result.
    verdict: Winner | None


@dataclass(frozen=True)
class Rate:
    """k of n, the rate (None when n = 0) and its 95% CI."""

    k: int
    n: int
    value: float | None
    ci95: Interval | None


@dataclass(frozen=True)
class RunFigures:
    """One judge's figures in one canary run."""

    n_items: int
    # Labelled items with at least one parsed design call: the clusters of call_accuracy's CI.
    n_labelled_items: int
    call_accuracy: Rate  # over parsed design calls on labelled items; cluster-bootstrap CI
    verdict_accuracy: Rate  # over labelled items with a verdict; Wilson CI
    position_consistency: Rate  # over swap pairs (both calls parsed); Wilson CI
    first_pick_rate: Rate  # over decisive design calls; Wilson CI


@dataclass(frozen=True)
class PairedTest:
    """One paired test between the previous and the current run on the same items.

    `b` units moved one way and `c` the other (for the McNemar tests b = good before and bad now,
    c = bad before and good now); `p_value` is the two-sided exact binomial test of c against b + c
    (1.0 when b + c = 0). `difference` is current − previous, `effect` its absolute value.
    """

    name: TestName
    n: int
    b: int
    c: int
    p_value: float
    p_adjusted: float
    effect: float | None
    difference: float | None
    ci95: Interval | None
    significant: bool


@dataclass(frozen=True)
class Drift:
    """The paired comparison of two runs of one judge on the items both runs have."""

    n_items: int
    # Items with the same verdict in both runs / items with a verdict in both runs; Wilson CI.
    verdict_agreement: Rate
    tests: list[PairedTest]
    drift: bool


# One run


def _rate(k: int, n: int) -> Rate:
    return Rate(k=k, n=n, value=k / n if n else None, ci95=stats.wilson_ci(k, n))


def _parsed(item: ItemResult) -> list[Winner]:
    return [w for w in item.winners if w is not None]


def _decisive(item: ItemResult) -> list[stats.Pick]:
    return [p for p in item.picks if p in ("first", "second")]


def _is_swap_pair(item: ItemResult) -> bool:
    return None not in item.winners


def _is_consistent(item: ItemResult) -> bool:
    return _is_swap_pair(item) and item.winners[0] == item.winners[1]


def _call_accuracy(items: Sequence[ItemResult]) -> tuple[Rate, int]:
    """Σ correct calls / Σ parsed calls over labelled items; CI by cluster bootstrap over items."""
    # Sorted by item so the seeded bootstrap does not depend on the order the caller passed.
    clusters = sorted(
        (item.item, sum(w == item.gold for w in parsed), len(parsed))
        for item in items
        if item.gold is not None and (parsed := _parsed(item))
    )
    hits = sum(k for _, k, _ in clusters)
    calls = sum(n for *_, n in clusters)
    ci = stats.cluster_bootstrap_ratio_ci(
        [k for _, k, _ in clusters],
        [n for *_, n in clusters],
        rounds=BOOTSTRAP_ROUNDS,
        seed=BOOTSTRAP_SEED,
    )
    rate = Rate(k=hits, n=calls, value=hits / calls if calls else None, ci95=ci)
    return rate, len(clusters)


def summarize(items: Sequence[ItemResult]) -> RunFigures:
    """One judge's accuracy, position consistency and first-pick rate in one canary run."""
    call_accuracy, n_labelled = _call_accuracy(items)
    judged = [i for i in items if i.gold is not None and i.verdict is not None]
    pairs = [i for i in items if _is_swap_pair(i)]
    decisive = [p for i in items for p in _decisive(i)]
    return RunFigures(
        n_items=len(items),
        n_labelled_items=n_labelled,
        call_accuracy=call_accuracy,
        verdict_accuracy=_rate(sum(i.verdict == i.gold for i in judged), len(judged)),
        position_consistency=_rate(sum(map(_is_consistent, pairs)), len(pairs)),
        first_pick_rate=_rate(decisive.count("first"), len(decisive)),
    )


# Two runs

Pair = tuple[ItemResult, ItemResult]


def _paired_items(previous: Sequence[ItemResult], current: Sequence[ItemResult]) -> list[Pair]:
    """The items present in both runs, as (previous, current), sorted by item."""
    before, now = _by_item(previous), _by_item(current)
    return [(before[key], now[key]) for key in sorted(before.keys() & now.keys())]


def _by_item(items: Sequence[ItemResult]) -> dict[str, ItemResult]:
    by_item = {item.item: item for item in items}
    if len(by_item) != len(items):
        raise ValueError("a run lists an item more than once")
    return by_item


def newcombe_paired_ci(a: int, b: int, c: int, d: int) -> Interval | None:
    """Newcombe's (1998, method 10) square-and-add 95% CI of the paired difference (c − b)/n.

    The table is rows = previous (good, bad), columns = current (good, bad): a = good in both,
    b = good → bad, c = bad → good, d = bad in both. It combines the Wilson intervals of the two
    marginal rates with their correlation; unlike the Wald interval it stays informative when
    b = c = 0 and near 0 or 1, which small canaries and accurate judges reach. None when n = 0.
    """
    n = a + b + c + d
    if n == 0:
        return None
    before, now = (a + b) / n, (a + c) / n
    low_before, high_before = stats.wilson_ci(a + b, n) or (0.0, 0.0)
    low_now, high_now = stats.wilson_ci(a + c, n) or (0.0, 0.0)
    phi = _newcombe_phi(a, b, c, d)
    # The difference now − before: its lower end takes now's lower and before's upper distance.
    down_now, up_before = now - low_now, high_before - before
    up_now, down_before = high_now - now, before - low_before
    low = (now - before) - math.sqrt(down_now**2 + up_before**2 - 2 * phi * down_now * up_before)
    high = (now - before) + math.sqrt(up_now**2 + down_before**2 - 2 * phi * up_now * down_before)
    return max(-1.0, low), min(1.0, high)


def _newcombe_phi(a: int, b: int, c: int, d: int) -> float:
    """Newcombe's correlation of the two marginal rates, with his continuity adjustment."""
    margins = (a + b) * (c + d) * (a + c) * (b + d)
    if margins == 0:
        return 0.0
    cross = a * d - b * c
    n = a + b + c + d
    if cross > n / 2:
        return (cross - n / 2) / math.sqrt(margins)
    return min(cross, 0) / math.sqrt(margins)


@dataclass(frozen=True)
class _Counts:
    """A paired test before Holm: its counts, difference and CI."""

    name: TestName
    n: int
    b: int
    c: int
    difference: float | None
    ci95: Interval | None


def _mcnemar(name: TestName, states: Sequence[tuple[bool, bool]]) -> _Counts:
    """McNemar on per-item (previous, current) states, True being the good one."""
    a = sum(1 for s in states if s == (True, True))
    b = sum(1 for s in states if s == (True, False))
    c = sum(1 for s in states if s == (False, True))
    n = len(states)
    ci = newcombe_paired_ci(a, b, c, n - a - b - c)
    return _Counts(name, n, b, c, (c - b) / n if n else None, ci)


def _accuracy_states(pairs: Sequence[Pair]) -> list[tuple[bool, bool]]:
    """Verdict correctness on labelled items with a verdict in both runs.

    Both verdicts are held against the current gold, so a relabelled item cannot pass for drift.
    """
    return [
        (before.verdict == now.gold, now.verdict == now.gold)
        for before, now in pairs
        if now.gold is not None and before.verdict is not None and now.verdict is not None
    ]


def _consistency_states(pairs: Sequence[Pair]) -> list[tuple[bool, bool]]:
    """Swap consistency on items with both calls parsed in both runs."""
    return [
        (_is_consistent(before), _is_consistent(now))
        for before, now in pairs
        if _is_swap_pair(before) and _is_swap_pair(now)
    ]


def _direction_states(pairs: Sequence[Pair]) -> list[tuple[bool, bool]]:
    """Whether the verdict is A, on items with a decisive (A or B) verdict in both runs.

    Its discordant items are the verdicts that flipped: b = A → B, c = B → A, so the exact test of
    c against b is the binomial test on discordant verdicts and (c − b)/n the change in A's share.
    """
    return [
        (before.verdict == "A", now.verdict == "A")
        for before, now in pairs
        if before.verdict in ("A", "B") and now.verdict in ("A", "B")
    ]


def _verdict_agreement(pairs: Sequence[Pair]) -> Rate:
    both = [
        (b.verdict, n.verdict) for b, n in pairs if b.verdict is not None and n.verdict is not None
    ]
    return _rate(sum(1 for before, now in both if before == now), len(both))


def _first_pick_counts(pairs: Sequence[Pair]) -> _Counts:
    """Sign test on items whose first-pick share (of decisive design calls) rose or fell.

    Items count when they have a decisive design call in both runs. The difference is the change in
    the first-pick rate pooled over those items' decisive calls, with a paired cluster-bootstrap CI
    (the two calls of an item are not independent, so a per-call interval would be too narrow).
    """
    # Columns: first picks and decisive calls, previous then current; one row per item.
    rows = [_first_pick_row(before, now) for before, now in pairs]
    table = np.array([r for r in rows if r[1] and r[3]], dtype=np.float64).reshape(-1, 4)
    if not len(table):
        return _Counts("first_pick_rate", 0, 0, 0, None, None)
    change = table[:, 2] / table[:, 3] - table[:, 0] / table[:, 1]
    return _Counts(
        "first_pick_rate",
        n=len(table),
        b=int((change < 0).sum()),
        c=int((change > 0).sum()),
        difference=_first_pick_change(table),
        ci95=_paired_bootstrap_ci(table, _first_pick_change_rows),
    )


def _first_pick_row(before: ItemResult, now: ItemResult) -> tuple[int, int, int, int]:
    decisive_before, decisive_now = _decisive(before), _decisive(now)
    return (
        decisive_before.count("first"),
        len(decisive_before),
        decisive_now.count("first"),
        len(decisive_now),
    )


def _first_pick_change(table: npt.NDArray[np.float64]) -> float:
    first_before, decisive_before, first_now, decisive_now = table.sum(axis=0)
    return float(first_now / decisive_now - first_before / decisive_before)


def _first_pick_change_rows(sums: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """The change in pooled first-pick rate per bootstrap round (rows of column sums)."""
    result: npt.NDArray[np.float64] = sums[:, 2] / sums[:, 3] - sums[:, 0] / sums[:, 1]
    return result


def _paired_bootstrap_ci(
    table: npt.NDArray[np.float64],
    statistic: Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]],
) -> Interval:
    """95% percentile interval of a statistic of column sums, resampling items (rows) whole."""
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    n = len(table)
    block = max(1, _BLOCK_CELLS // n)
    estimates = []
    for start in range(0, BOOTSTRAP_ROUNDS, block):
        idx = rng.integers(0, n, size=(min(block, BOOTSTRAP_ROUNDS - start), n))
        estimates.append(statistic(table[idx].sum(axis=1)))
    low, high = np.percentile(np.concatenate(estimates), [2.5, 97.5])
    return float(low), float(high)


def _tested(counts: _Counts, p_adjusted: float, min_effect: float) -> PairedTest:
    effect = abs(counts.difference) if counts.difference is not None else None
    return PairedTest(
        **dataclasses.asdict(counts),
        p_value=stats.mcnemar_exact_p(counts.b, counts.c),
        p_adjusted=p_adjusted,
        effect=effect,
        significant=stats.significant(p_adjusted, effect, min_effect),
    )


def _family(pairs: Sequence[Pair]) -> list[_Counts]:
    return [
        _mcnemar("verdict_accuracy", _accuracy_states(pairs)),
        _mcnemar("position_consistency", _consistency_states(pairs)),
        _mcnemar("verdict_direction", _direction_states(pairs)),
        _first_pick_counts(pairs),
    ]


def compare_runs(
    previous: Sequence[ItemResult], current: Sequence[ItemResult], min_effect: float
) -> Drift:
    """Paired tests of one judge's current run against its previous run, on the items of both."""
    drift, _ = compare_with(current, previous, None, min_effect)
    assert drift is not None
    return drift


def compare_with(
    current: Sequence[ItemResult],
    previous: Sequence[ItemResult] | None,
    baseline: Sequence[ItemResult] | None,
    min_effect: float,
) -> tuple[Drift | None, Drift | None]:
    """Paired tests of one judge's current run against its previous run and its baseline run
    (each None when there is none to compare with), Holm-adjusted together: looking twice must
    not double the chance of a false flag. The previous run sees a sudden change, the baseline a
    slow one whose steps are each too small to flag."""
    compared = [
        _paired_items(before, current) if before is not None else None
        for before in (previous, baseline)
    ]
    families = [_family(pairs) if pairs is not None else [] for pairs in compared]
    # A test without discordant units has p = 1 and stays in the family, as in the report.
    adjusted = iter(stats.holm([stats.mcnemar_exact_p(t.b, t.c) for f in families for t in f]))
    drifts: list[Drift | None] = []
    for pairs, family in zip(compared, families, strict=True):
        if pairs is None:
            drifts.append(None)
            continue
        tested = [(t, next(adjusted)) for t in family]
        tests = [_tested(t, p, min_effect) for t, p in tested if p is not None]
        drifts.append(
            Drift(
                n_items=len(pairs),
                verdict_agreement=_verdict_agreement(pairs),
                tests=tests,
                drift=any(t.significant for t in tests),
            )
        )
    return drifts[0], drifts[1]


# Tiers: a canary's figures count items, calls and swap pairs of a few hundred items at most;
# below STATISTICS.md's lower bound for the unit the estimate is withheld (counts stay).
FIGURE_UNITS: dict[str, stats.TierUnit] = {
    "call_accuracy": "labelled",  # counted in labelled items (the bootstrap's clusters)
    "verdict_accuracy": "labelled",
    "position_consistency": "swap_pairs",
    "first_pick_rate": "decisive_calls",
}


def figure_tier(name: str, n: int) -> stats.Tier:
    """The evidence tier of a canary figure that counts n of its unit."""
    return stats.tier(FIGURE_UNITS[name], n)
