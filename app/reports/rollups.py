"""The bias report's reading of the call rollups (`app.ledger.rollup_tables`, written with the
calls by `app.ledger.fold`): the call cube of a window, its whole hours summed from `call_rollup`
(or `call_tag_rollup`), its partial hours counted from `judge_calls` (both of the folded
comparisons only).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, Literal, NamedTuple

from sqlalchemy import BigInteger, Row, cast, func, null, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.ledger import callscope
from app.ledger.callscope import CALL_COUNTS, CALL_SUMS, ReportFilters, of_origin
from app.ledger.rollup_tables import CallRollup, CallTagRollup
from app.reports import queries
from app.reports.series import bucket_start


class CubeRow(NamedTuple):
    """One row of `queries.call_cube`, merged from the rollup and the calls."""

    judge: str
    version: int
    placebo: bool
    error_kind: str | None
    label_pair: str
    bucket: Any
    calls: int
    failed: int
    design: int
    parsed: int
    ties: int
    design_parsed: int
    decisive: int
    first: int
    design_ties: int
    second_label: int
    tokens_in: int
    tokens_out: int
    reasoning_tokens: int


def hour_start(hour: int) -> datetime:
    return datetime.fromtimestamp(hour * 3600, UTC)


Shape = Literal["sections", "series"]


async def rolled_up(
    session: AsyncSession, filters: ReportFilters, first: int, end: int | None, shape: Shape
) -> list[Row[Any]]:
    """`call_rollup` summed over the hours [first, end) (with one tag in the filters,
    `call_tag_rollup` under that tag), in the cube's layout: per judge, version, placebo,
    error kind and label pair for the sections (no bucket); per judge, version, placebo and
    bucket for the series; of the filters' origin (both, summed, for `all`)."""
    r: Any = CallRollup if not filters.tags else CallTagRollup
    # A bucket is its first hour's number (`series.bucket_start`): integers file cheaply.
    bucket = r.hour if filters.bucket == "hour" else r.hour // 24 * 24
    series = shape == "series"
    keys = [
        r.judge,
        r.version,
        r.placebo,
        (null() if series else func.nullif(r.error_kind, "")).label("error_kind"),
        (null() if series else r.label_pair).label("label_pair"),
        (bucket if series else null()).label("bucket"),
    ]
    grouped = [*keys[:3], bucket] if series else [*keys[:3], r.error_kind, r.label_pair]
    conditions = [r.hour >= first]
    conditions += of_origin(r.origin, filters.origin)
    if filters.tags:
        ((key, value),) = filters.tags
        conditions += [r.tag_key == key, r.tag_value == value]
    if end is not None:
        conditions.append(r.hour < end)
    if filters.judge is not None:
        conditions.append(r.judge == filters.judge)
    if filters.judge_version is not None:
        conditions.append(r.version == filters.judge_version)
    if filters.protocol is not None:
        conditions.append(r.protocol == filters.protocol)
    # PostgreSQL sums bigints into numerics; the counts stay integers.
    sums = [
        cast(func.sum(r.__table__.c[name]), BigInteger).label(name)
        for name in (*CALL_COUNTS, *CALL_SUMS)
    ]
    query = select(*keys, *sums).where(*conditions).group_by(*grouped)
    return await callscope.fetch(session, query)


def hour_number(bucket: Any) -> int:
    """A bucket as `queries.call_cube` returns it (timestamp or text) as its first hour's
    number, as the rollups give it."""
    return int(bucket_start(bucket).timestamp()) // 3600


def _section_key(row: Any) -> tuple[Any, ...] | None:
    return (row[0], row[1], bool(row[2]), row[3], row[4], None)


def _series_key(row: Any) -> tuple[Any, ...] | None:
    bucket = row[5] if isinstance(row[5], int) else hour_number(row[5])
    return (row[0], row[1], bool(row[2]), None, None, bucket)


KEYS: dict[Shape, Callable[[Any], tuple[Any, ...] | None]] = {
    "sections": _section_key,
    "series": _series_key,
}


def merged(parts: Sequence[tuple[int, Sequence[Any]]], shape: Shape) -> list[CubeRow]:
    """Rows of several cubes added key by key in one shape, each with its sign; empty keys
    dropped. Every row puts the six keys first and the counts after, in `CubeRow`'s order
    (read by position: an hourly series has thousands of rows)."""
    key_of = KEYS[shape]
    table: dict[tuple[Any, ...], list[int]] = {}
    for sign, rows in parts:
        for row in rows:
            key = key_of(row)
            if key is None:
                continue
            counts = [sign * count for count in row[6:]]
            sums = table.get(key)
            if sums is None:
                table[key] = counts
            else:
                table[key] = [a + b for a, b in zip(sums, counts, strict=True)]
    return [CubeRow(*key, *sums) for key, sums in table.items() if sums[0]]


class Cubes(NamedTuple):
    """The call cube in the two shapes the report reads."""

    sections: list[CubeRow]  # per judge, version, placebo, error kind, label pair
    series: list[CubeRow]  # per judge, version, placebo and bucket (an hour number)

    @classmethod
    def of(cls, parts: Sequence[tuple[int, Sequence[Any]]]) -> Cubes:
        """Both shapes of signed full cube rows (`queries.call_cube`)."""
        return cls(merged(parts, "sections"), merged(parts, "series"))


async def call_cube(session: AsyncSession, filters: ReportFilters) -> Cubes:
    """`queries.call_cube` in both shapes: the window's whole hours from `call_rollup` (or,
    filtered by one tag, `call_tag_rollup`), its partial hours from the calls (both of the
    folded comparisons). Two tags or more count from the calls."""
    first = math.ceil(filters.since.timestamp() / 3600)
    end = None if filters.until is None else math.floor(filters.until.timestamp() / 3600)
    if len(filters.tags) > 1 or (end is not None and end <= first):
        return Cubes.of([(1, await queries.call_cube(session, filters))])
    whole = replace(
        filters, since=hour_start(first), until=None if end is None else hour_start(end)
    )
    raw = []
    if filters.since < whole.since:
        raw.append((1, await queries.call_cube(session, replace(filters, until=whole.since))))
    if filters.until is not None and whole.until is not None and whole.until < filters.until:
        raw.append((1, await queries.call_cube(session, replace(filters, since=whole.until))))
    shapes: tuple[Shape, Shape] = ("sections", "series")
    return Cubes(
        *[
            merged([(1, await rolled_up(session, filters, first, end, shape)), *raw], shape)
            for shape in shapes
        ]
    )
