"""The bias report's reading of the call rollups (`app.jobs.rollups`, written with the calls by
`app.comparisons.rollups`): the call cube of a window, its whole hours summed from `call_rollup`
(or `call_tag_rollup`), its partial hours and the calls of comparisons still running counted
from `judge_calls`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any, NamedTuple

from sqlalchemy import BigInteger, ColumnElement, Row, cast, func, literal_column, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.comparisons import callscope
from app.comparisons.callscope import CALL_COUNTS, Bucket, ReportFilters
from app.jobs.rollups import CallRollup, CallTagRollup
from app.reports import queries


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


def hour_start(hour: int) -> datetime:
    return datetime.fromtimestamp(hour * 3600, UTC)


def bucket_of_hour(session: AsyncSession, hour: Any, bucket: Bucket) -> ColumnElement[Any]:
    """`callscope.bucket_of` for an hour number: the same type and value as for its calls."""
    if session.get_bind().dialect.name == "postgresql":
        return func.date_trunc(
            literal_column(f"'{bucket}'"),
            func.timezone(literal_column("'UTC'"), func.to_timestamp(hour * 3600)),
        )
    pattern = "'%Y-%m-%d %H:00:00'" if bucket == "hour" else "'%Y-%m-%d 00:00:00'"
    return func.strftime(literal_column(pattern), hour * 3600, literal_column("'unixepoch'"))


async def rolled_up(
    session: AsyncSession, filters: ReportFilters, first: int, end: int | None
) -> list[Row[Any]]:
    """`call_rollup` summed per call-cube key over the hours [first, end); with one tag in the
    filters, `call_tag_rollup` under that tag."""
    r: Any = CallRollup if not filters.tags else CallTagRollup
    keys = [
        r.judge,
        r.version,
        r.placebo,
        func.nullif(r.error_kind, "").label("error_kind"),
        r.label_pair,
        bucket_of_hour(session, r.hour, filters.bucket).label("bucket"),
    ]
    conditions = [r.hour >= first]
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
    sums = [cast(func.sum(r.__table__.c[name]), BigInteger).label(name) for name in CALL_COUNTS]
    query = select(*keys, *sums).where(*conditions).group_by(*keys[:4], literal_column("bucket"))
    return await callscope.fetch(session, query.group_by(r.label_pair))


def merged(parts: Sequence[tuple[int, Sequence[Any]]]) -> list[CubeRow]:
    """Rows of several cubes added key by key, each with its sign; empty keys dropped. Both
    kinds of row put the six keys first and the counts after, in `CubeRow`'s order (read by
    position: an hourly report has tens of thousands of rows)."""
    table: dict[tuple[Any, ...], list[int]] = {}
    for sign, rows in parts:
        for row in rows:
            key = (row[0], row[1], bool(row[2]), row[3], row[4], row[5])
            counts = [sign * count for count in row[6:]]
            sums = table.get(key)
            if sums is None:
                table[key] = counts
            else:
                table[key] = [a + b for a, b in zip(sums, counts, strict=True)]
    return [CubeRow(*key, *sums) for key, sums in table.items() if sums[0]]


async def call_cube(session: AsyncSession, filters: ReportFilters) -> list[CubeRow]:
    """`queries.call_cube`: the window's whole hours from `call_rollup` (or, filtered by one
    tag, `call_tag_rollup`) minus the calls of running comparisons, which it already counts;
    its partial hours from the calls. Two tags or more count from the calls."""
    first = math.ceil(filters.since.timestamp() / 3600)
    end = None if filters.until is None else math.floor(filters.until.timestamp() / 3600)
    if len(filters.tags) > 1 or (end is not None and end <= first):
        return merged([(1, await queries.call_cube(session, filters))])
    whole = replace(
        filters, since=hour_start(first), until=None if end is None else hour_start(end)
    )
    parts = [
        (1, await rolled_up(session, filters, first, end)),
        (-1, await queries.call_cube(session, whole, running=True)),
    ]
    if filters.since < whole.since:
        parts.append((1, await queries.call_cube(session, replace(filters, until=whole.since))))
    if filters.until is not None and whole.until is not None and whole.until < filters.until:
        parts.append((1, await queries.call_cube(session, replace(filters, since=whole.until))))
    return merged(parts)
