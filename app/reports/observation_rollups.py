"""The bias report's reading of the observation rollups (`app.ledger.rollup_tables`, moved
with each fold by `app.ledger.fold`): the pairs, length-class and length parts of a window.

`observation_rollup` and `length_rollup` (or, for a report filtered by one tag, the same per tag:
`observation_tag_rollup`, `length_tag_rollup`) count the observations whose calls all lie in the
window's whole hours (first hour ≥ the first whole hour, last hour < the end's). What they miss
or count wrongly is corrected from `judge_observations`, row by row, with a sign: +1 for the
window's observations that began in its partial first hour or ended in its partial last hour;
−1 for those counted in the whole hours but of a comparison cut by an edge;
+1 for the observations of a cut comparison regrouped from its calls. Those are few, and found
through indexes. The report then reads a few thousand rollup rows instead of every observation.

Self-preference still reads `judge_observations`: its conflicted observations (a few percent,
through a partial index), which carry the neutral judges' sums (`queries._conflicted`). So do
reports filtered by two tags or more (the rollups hold one) and a judge whose latest bucket
alone holds more than `MAX_OBSERVATIONS` (its recent ones are ranked).
"""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

from sqlalchemy import (
    CTE,
    BigInteger,
    ColumnElement,
    Float,
    Row,
    and_,
    cast,
    func,
    literal,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.ledger.callscope import ReportFilters, length_class, of_origin, tagged
from app.ledger.models import JudgeCall
from app.ledger.rollup_tables import (
    OBSERVATION_COLUMNS,
    JudgeObservation,
    LengthRollup,
    LengthTagRollup,
    ObservationRollup,
    ObservationTagRollup,
)
from app.reports import queries
from app.reports.rollups import hour_start

_obs = JudgeObservation


class Window:
    """A report window cut into the whole hours [first, end) that the rollups sum, and the
    conditions on stored observations that the corrections use."""

    def __init__(self, filters: ReportFilters, cut: bool) -> None:
        self.filters = filters
        self.cut = cut
        self.first = math.ceil(filters.since.timestamp() / 3600)
        until = filters.until
        self.end = None if until is None else math.floor(until.timestamp() / 3600)

    @property
    def empty(self) -> bool:
        """No whole hour in the window: the rollups have nothing to give."""
        return self.end is not None and self.end <= self.first

    def rollup(self, untagged: Any, per_tag: Any) -> Any:
        """The rollup the window sums: per tag when the filters name one."""
        return per_tag if self.filters.tags else untagged

    def whole(self, table: Any) -> list[ColumnElement[bool]]:
        """Rows of a rollup (or observations) counted in the whole hours, under the filters."""
        conditions = [table.first_hour >= self.first]
        if self.end is not None:
            conditions.append(table.last_hour < self.end)
        f = self.filters
        if f.protocol is not None:
            conditions.append(table.protocol == f.protocol)
        return [*conditions, *of_origin(table.origin, f.origin), *self.tags(table)]

    def tags(self, table: Any) -> list[ColumnElement[bool]]:
        """The tag filter (one tag at most) on a rollup per tag or on stored observations."""
        if table is _obs:
            return tagged(_obs.comparison_id, self.filters.tags)
        return [and_(table.tag_key == k, table.tag_value == v) for k, v in self.filters.tags]

    def judges(self, table: Any) -> list[ColumnElement[bool]]:
        """The judge filters (the rollups' parts apply them; self-preference does not)."""
        conditions: list[ColumnElement[bool]] = []
        if self.filters.judge is not None:
            conditions.append(table.judge == self.filters.judge)
        if self.filters.judge_version is not None:
            conditions.append(table.version == self.filters.judge_version)
        return conditions

    def corrections(self, dialect: str) -> Any:
        """Signed observations to add to the rollups' whole hours (module docstring)."""
        f, cut = self.filters, queries.straddling(self.filters)
        edge = [and_(_obs.first_at >= f.since, _obs.first_at < hour_start(self.first))]
        in_window = [_obs.first_at >= f.since]
        if self.end is not None and f.until is not None:
            end = hour_start(self.end)
            in_window.append(_obs.last_at < f.until)
            # Began within 2 h of the edge, or spans hours (partial index): as `straddling`.
            near = or_(
                _obs.first_at >= end - timedelta(hours=2), _obs.last_hour > _obs.first_hour + 1
            )
            edge.append(and_(_obs.first_hour >= self.first, _obs.last_at >= end, near))
        if f.protocol is not None:
            in_window.append(_obs.protocol == f.protocol)
        in_window.extend(of_origin(_obs.origin, f.origin))
        in_window.extend(self.tags(_obs))
        columns = [_obs.__table__.c[name] for name in OBSERVATION_COLUMNS]
        parts = [
            select(*columns, literal(1).label("sign")).where(
                *in_window, or_(*edge), *([_obs.comparison_id.not_in(cut)] if self.cut else [])
            ),
        ]
        if self.cut:
            parts.append(
                select(*columns, literal(-1).label("sign")).where(
                    *self.whole(_obs), queries.among(dialect, _obs.comparison_id, cut)
                )
            )
            ids = queries.among(dialect, JudgeCall.comparison_id, cut)
            raw = queries.raw_observations(dialect, f, ids)
            parts.append(raw.add_columns(literal(1).label("sign")))
        return union_all(*parts).subquery("corrections")


def _bucket(first_hour: Any, filters: ReportFilters) -> Any:
    # A bucket is its first hour's number (`series.bucket_start`), as in `queries.observations`.
    return first_hour if filters.bucket == "hour" else first_hour // 24 * 24


def observation_counts(window: Window, dialect: str) -> CTE:
    """`queries.observation_counts` from `observation_rollup` and the corrections."""
    r, f = window.rollup(ObservationRollup, ObservationTagRollup), window.filters
    rolled = select(
        r.judge,
        _bucket(r.first_hour, f).label("bucket"),
        func.nullif(r.p1, "").label("p1"),
        func.nullif(r.p2, "").label("p2"),
        r.eligible,
        r.longer,
        r.n,
    ).where(*window.whole(r), *window.judges(r))
    c = window.corrections(dialect)
    eligible, longer = length_class(c.c.y_sum, c.c.delta, c.c.shorter)
    corrected = select(
        c.c.judge,
        _bucket(c.c.first_hour, f).label("bucket"),
        c.c.p1,
        c.c.p2,
        eligible.label("eligible"),
        longer.label("longer"),
        c.c.sign.label("n"),
    ).where(*window.judges(c.c))
    rows = union_all(rolled, corrected).subquery("signed")
    keys = [rows.c[name] for name in ("judge", "bucket", "p1", "p2", "eligible", "longer")]
    n = cast(func.sum(rows.c.n), BigInteger)
    return select(*keys, n.label("n")).group_by(*keys).having(n != 0).cte("observation_counts")


def length_frequencies(window: Window, dialect: str, bounds: dict[str, int]) -> CTE:
    """`queries.length_frequencies` of each judge's observations from its bucket bound on,
    from `length_rollup` and the corrections."""
    r = window.rollup(LengthRollup, LengthTagRollup)

    def recent(table: Any) -> ColumnElement[bool]:
        # Bounds are bucket starts: a bucket is at or after one when its first hour is.
        return or_(*[and_(table.judge == j, table.first_hour >= b) for j, b in bounds.items()])

    # A range of the rollup's key per judge: with the count in the key's index (PostgreSQL:
    # INCLUDE), each is an index-only scan, where an OR of them would read the table's pages.
    rolled = [
        select(r.judge, r.delta, (cast(r.y_sum, Float) / r.y_n).label("y"), r.n.label("c")).where(
            *window.whole(r), *window.judges(r), r.judge == judge, r.first_hour >= bound
        )
        for judge, bound in bounds.items()
    ]
    c = window.corrections(dialect)
    corrected = select(
        c.c.judge, c.c.delta, (cast(c.c.y_sum, Float) / c.c.y_n).label("y"), c.c.sign
    ).where(*window.judges(c.c), recent(c.c))
    rows = union_all(*rolled, corrected).subquery("signed_lengths")
    keys = [rows.c.judge, rows.c.delta, rows.c.y]
    count = cast(func.sum(rows.c.c), BigInteger)
    return select(*keys, count.label("c")).group_by(*keys).having(count != 0).cte("freq")


async def observation_parts(session: AsyncSession, filters: ReportFilters) -> list[Row[Any]]:
    """`queries.observation_parts` from the rollups where they can give it: two statements
    (the pairs, buckets, length-class and self-preference parts, then the length part, whose
    recent buckets the first one's buckets bound)."""
    dialect = session.get_bind().dialect.name
    if len(filters.tags) > 1:
        return await queries.observation_parts(session, filters)
    window = Window(filters, await queries.any_straddling(session, filters))
    if window.empty:
        return await queries.observation_parts(session, filters)
    counts = observation_counts(window, dialect)
    obs = queries.observations(session, filters, with_straddling=window.cut)
    first = union_all(
        queries.pairs_part(counts),
        queries.buckets_part(counts),
        queries.length_class_part(counts),
        queries.self_preference_part(obs, filters, correlated=True),
    )
    rows = list((await session.execute(first)).all())
    rows = await queries.rank_self_preference(session, rows, obs, filters, correlated=True)
    bounds = queries.recent_bounds([row for row in rows if row.part == "buckets"])
    if None in bounds.values():
        return await queries.observation_parts(session, filters)
    if not bounds:
        return rows
    freq = length_frequencies(window, dialect, {j: b for j, b in bounds.items() if b is not None})
    return rows + list((await session.execute(queries.spearman_part(freq))).all())
