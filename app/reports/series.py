"""The report's time series, from call cube rows and the observations' buckets part.

Buckets are UTC days, or UTC hours with `bucket=hour`. An hour is reported only where it reaches
tier `preliminary`: a judge's day is shown hour by hour when every hour of it with calls has ≥ 20
decisive calls, otherwise as one `day` row. Rows never overlap, so the series adds up to the
judge's totals. A swap pair belongs to the bucket of its first call.

Every rate has its Wilson CI (`<rate>_ci95`), shown with the rate. Judge-human accuracy
(`call_accuracy`, `verdict_accuracy`) counts the gold-labelled comparisons filed in the bucket of
the judge's first call on them, and is shown where they reach tier `preliminary`
(`human_agreement_tier`, labelled comparisons); a folded day sums its hours' counts.

Provider models are marked like versions: `provider_model_changed` when the bucket's models
differ from those of the judge's last bucket that reported any, or when it holds several; a
bucket whose provider reported no model changes nothing.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from app import stats
from app.ledger.callscope import Bucket
from app.reports.schemas import SeriesPoint

_CALL_COUNTS = ("calls", "failed", "design_parsed", "decisive", "first", "design_ties")
_ALL_CALLS = frozenset({"calls", "failed"})  # counted on placebo comparisons too
# `accuracy_by_bucket`'s columns, filed as counts named `gold_<column>`.
_GOLD_COUNTS = ("comparisons", "n", "k", "verdicts", "correct")
Key = tuple[str, datetime]  # (judge, bucket start)
ModelsByBucket = dict[Key, set[str]]  # provider models per (judge, day or hour start)


@dataclass
class Cell:
    """Counts of one judge in one bucket."""

    versions: set[int] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)

    def add(self, other: Cell) -> None:
        """Fold another bucket's counts into this one."""
        self.versions |= other.versions
        self.counts.update(other.counts)


def bucket_start(value: Any) -> datetime:
    """A bucket as either backend returns it (timestamp, text, or the number of its first hour
    since the epoch), as an aware UTC datetime."""
    if isinstance(value, int):
        return datetime.fromtimestamp(value * 3600, UTC)
    moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return moment.replace(tzinfo=UTC)


def cells(call_rows: Iterable[Any], bucket_rows: Iterable[Any]) -> dict[Key, Cell]:
    """Counts per (judge, bucket), summed in lists first: an hourly report files tens of
    thousands of rows, and a Counter update per row costs more than the sums."""
    versions: dict[tuple[str, Any], set[int]] = defaultdict(set)
    sums: dict[tuple[str, Any], list[int]] = {}
    width = len(_CALL_COUNTS)
    for row in call_rows:
        key = (row.judge, row.bucket)
        versions[key].add(row.version)
        # Placebo calls count in `calls` and the failure rate only, as in the sections.
        values = [
            getattr(row, name) if name in _ALL_CALLS or not row.placebo else 0
            for name in _CALL_COUNTS
        ]
        total = sums.get(key)
        sums[key] = values if total is None else [a + b for a, b in zip(total, values, strict=True)]
    for row in bucket_rows:
        if row.pairs:
            key = (row.judge, row.bucket)
            total = sums.setdefault(key, [0] * (width + 2))
            if len(total) == width:
                total += [0, 0]
            total[width] += row.pairs
            total[width + 1] += row.consistent
    table: dict[Key, Cell] = defaultdict(Cell)
    for (judge, bucket), total in sums.items():
        cell = table[(judge, bucket_start(bucket))]
        cell.versions |= versions.get((judge, bucket), set())
        cell.counts.update(dict(zip((*_CALL_COUNTS, "pairs", "consistent"), total, strict=False)))
    return table


def add_accuracy(table: dict[Key, Cell], accuracy_rows: Iterable[Any]) -> None:
    """File the gold-labelled comparisons' counts per (judge, bucket) beside the calls'."""
    for row in accuracy_rows:
        counts = table.setdefault((row.judge, bucket_start(row.bucket)), Cell()).counts
        counts.update({f"gold_{name}": int(getattr(row, name) or 0) for name in _GOLD_COUNTS})


def accuracy_fields(c: Counter[str]) -> dict[str, Any]:
    """The point's judge-human accuracy, withheld below tier preliminary."""
    level = stats.tier("labelled", c["gold_comparisons"])
    shown = level != "insufficient"
    n, k, verdicts, correct = (c[f"gold_{name}"] for name in ("n", "k", "verdicts", "correct"))
    return {
        "gold_comparisons": c["gold_comparisons"],
        "gold_calls": n,
        "call_accuracy": k / n if shown and n else None,
        "call_accuracy_ci95": _ci(k, n, shown),
        "gold_verdicts": verdicts,
        "verdict_accuracy": correct / verdicts if shown and verdicts else None,
        "verdict_accuracy_ci95": _ci(correct, verdicts, shown),
        "human_agreement_tier": level,
    }


def fold_sparse_hours(hours: dict[Key, Cell]) -> dict[tuple[str, datetime, Bucket], Cell]:
    """Keep a judge's day hourly when all its hours are preliminary, else fold it into the day."""
    days: dict[Key, list[tuple[datetime, Cell]]] = defaultdict(list)
    for (judge, hour), cell in hours.items():
        days[(judge, hour.replace(hour=0))].append((hour, cell))
    out: dict[tuple[str, datetime, Bucket], Cell] = {}
    for (judge, day), members in days.items():
        if all(
            stats.tier("decisive_calls", c.counts["decisive"]) != "insufficient" for _, c in members
        ):
            out.update({(judge, hour, "hour"): cell for hour, cell in members})
            continue
        total = Cell()
        for _, cell in members:
            total.add(cell)
        out[(judge, day, "day")] = total
    return out


@dataclass(frozen=True)
class Marks:
    """What changed in a bucket against the judge's previous ones."""

    version_changed: bool = False
    provider_models: tuple[str, ...] = ()
    provider_model_changed: bool = False


def _ci(k: int, n: int, shown: bool) -> stats.Interval | None:
    return stats.wilson_ci(k, n) if shown else None


def point(
    judge: str, bucket: datetime, granularity: Bucket, cell: Cell, marks: Marks
) -> SeriesPoint:
    """One row of the series, estimates withheld below tier preliminary."""
    c = cell.counts
    level = stats.tier("decisive_calls", c["decisive"])
    pair_level = stats.tier("swap_pairs", c["pairs"])
    shown, pairs_shown = level != "insufficient", pair_level != "insufficient"
    return SeriesPoint(
        bucket=bucket,
        granularity=granularity,
        judge=judge,
        version=max(cell.versions),
        versions=sorted(cell.versions),
        version_changed=marks.version_changed,
        provider_models=list(marks.provider_models),
        provider_model_changed=marks.provider_model_changed,
        n=c["decisive"],
        first_pick_rate=c["first"] / c["decisive"] if shown else None,
        first_pick_rate_ci95=_ci(c["first"], c["decisive"], shown),
        pairs=c["pairs"],
        position_consistency=c["consistent"] / c["pairs"] if pairs_shown else None,
        position_consistency_ci95=_ci(c["consistent"], c["pairs"], pairs_shown),
        consistency_tier=pair_level,
        tie_rate=c["design_ties"] / c["design_parsed"] if shown else None,
        tie_rate_ci95=_ci(c["design_ties"], c["design_parsed"], shown),
        calls=c["calls"],
        failure_rate=c["failed"] / c["calls"] if c["calls"] else None,
        failure_rate_ci95=stats.wilson_ci(c["failed"], c["calls"]),
        tier=level,
        **accuracy_fields(c),
    )


def models_in(
    models: ModelsByBucket, judge: str, start: datetime, granularity: Bucket, bucket: Bucket
) -> tuple[str, ...]:
    """The provider models of a point: its bucket's, or its hours' when hours were folded."""
    if granularity == bucket:
        return tuple(sorted(models.get((judge, start), ())))
    hours = (start + timedelta(hours=h) for h in range(24))
    return tuple(sorted(set().union(*(models.get((judge, hour), set()) for hour in hours))))


def build_series(
    call_rows: Iterable[Any],
    bucket_rows: Iterable[Any],
    bucket: Bucket,
    models: ModelsByBucket | None = None,
    accuracy_rows: Iterable[Any] = (),
) -> list[SeriesPoint]:
    """Series points in time order; a bucket is marked when the judge's versions, or the models
    its provider reported, changed. `accuracy_rows` are `labels.queries.accuracy_by_bucket`'s."""
    models = models or {}
    table = cells(call_rows, bucket_rows)
    add_accuracy(table, accuracy_rows)
    keyed = (
        fold_sparse_hours(table)
        if bucket == "hour"
        else {(judge, start, "day"): cell for (judge, start), cell in table.items()}
    )
    previous: dict[str, set[int]] = {}
    previous_models: dict[str, tuple[str, ...]] = {}
    points = []
    for (judge, start, granularity), cell in sorted(
        keyed.items(), key=lambda item: (item[0][1], item[0][0])
    ):
        if not cell.versions:  # pairs whose calls the cube no longer holds (purged): no point
            continue
        before = previous.get(judge)
        changed = len(cell.versions) > 1 or (before is not None and before != cell.versions)
        previous[judge] = cell.versions
        seen = models_in(models, judge, start, granularity, bucket)
        models_before = previous_models.get(judge)
        models_changed = len(seen) > 1 or (
            bool(seen) and models_before is not None and models_before != seen
        )
        if seen:
            previous_models[judge] = seen
        marks = Marks(changed, seen, models_changed)
        points.append(point(judge, start, granularity, cell, marks))
    return points
