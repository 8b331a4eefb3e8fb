"""Read-side SQL of the bias report: a few aggregates, grouped by judge, that every section reads.

Every query here counts stored judge calls within the shared scope of `app.ledger.callscope`
(filters, comparisons not folded yet ignored, audit calls counted for their judge); placebo
comparisons count only in the placebo section and are excluded from every other one.

Each statement is one pass over the calls (the big table), grouped so finely that each section is
a sum over its rows: `call_cube` (calls, versions, error kinds, position, placebo, label, the
series' calls) and `observation_parts` (one row per judge and comparison, read by the pairs, length
and self-preference parts). They return integer counts, never rates, so PostgreSQL and
SQLite give identical numbers; `app.reports.bias` turns them into estimates.

Over 500 lines because these are the report's statements over the calls themselves, which
`tests/reports/test_rollups.py` holds equal to the rollups' sums: they change together.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from sqlalchemy import (
    CTE,
    BigInteger,
    Boolean,
    ColumnElement,
    CompoundSelect,
    Float,
    Row,
    Select,
    String,
    and_,
    any_,
    case,
    cast,
    func,
    literal,
    literal_column,
    null,
    or_,
    select,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.ledger.callscope import (
    MAX_OBSERVATIONS,
    PARSED_DESIGN,
    ReportFilters,
    bucket_of,
    call_counts,
    call_sums,
    calls_query,
    fetch,
    length_class,
    observation_sums,
    of_origin,
    scope,
    tagged,
)
from app.ledger.models import Comparison, JudgeCall
from app.ledger.rollup_tables import NEUTRAL_COLUMNS, OBSERVATION_COLUMNS, JudgeObservation

_call = JudgeCall
_cmp = Comparison


# Calls


async def call_cube(session: AsyncSession, filters: ReportFilters) -> list[Row[Any]]:
    """Per judge, version, placebo, error kind, label pair and bucket: counts of every kind of
    call, straight from the calls."""
    query = calls_query(
        _call.judge_name.label("judge"),
        _call.judge_version.label("version"),
        _cmp.placebo.label("placebo"),
        _call.error_kind.label("error_kind"),
        _call.label_pair.label("label_pair"),
        bucket_of(session, _call.started_at, filters.bucket).label("bucket"),
        *call_counts(),
        *call_sums(),
        conditions=scope(filters, placebo="include"),
    )
    return await fetch(
        session,
        query.group_by(
            _call.judge_name,
            _call.judge_version,
            _cmp.placebo,
            _call.error_kind,
            _call.label_pair,
            literal_column("bucket"),
        ),
    )


# One observation per (judge, comparison)


def raw_observations(
    dialect: str, filters: ReportFilters, *conditions: ColumnElement[bool]
) -> Select[Any]:
    """`observation_sums` per (judge, comparison) off placebo, regrouped from the calls in the
    filters' scope (every judge, whatever the judge filters) and `conditions`."""
    return calls_query(
        _call.judge_name.label("judge"),
        _call.comparison_id.label("comparison_id"),
        *observation_sums(dialect),
        conditions=[*scope(filters, judges=False), PARSED_DESIGN, *conditions],
    ).group_by(_call.judge_name, _call.comparison_id)


def among(dialect: str, column: Any, ids: Select[Any] | CompoundSelect[Any]) -> Any:
    """`column IN (ids)` for a few ids. On PostgreSQL as `= ANY(ARRAY(ids))`: an index
    condition, where the IN would be a join, which (nested loops being off in the report's
    transaction) hashes the ids and scans the whole table."""
    if dialect == "postgresql":
        return column == any_(func.array(ids.scalar_subquery()))
    return column.in_(ids)


def straddling(filters: ReportFilters) -> Select[Any]:
    """Comparisons with an observation cut by the window's edges (calls on both sides). Calls
    of one comparison mostly lie within two hours: those are found among the observations that
    began within two hours before an edge, the rest by an index on the few spanning longer."""
    stored = JudgeObservation
    edges = [filters.since] if filters.until is None else [filters.since, filters.until]
    cut = [
        and_(
            stored.first_at < edge,
            stored.last_at >= edge,
            or_(
                stored.first_at >= edge - timedelta(hours=2),
                stored.last_hour > stored.first_hour + 1,
            ),
        )
        for edge in edges
    ]
    return select(stored.comparison_id).where(or_(*cut))


async def any_straddling(session: AsyncSession, filters: ReportFilters) -> bool:
    """Whether an observation is cut by the window's edges (then it is regrouped)."""
    found = await session.execute(straddling(filters).limit(1))
    return found.first() is not None


def stored_observations(
    dialect: str, filters: ReportFilters, with_straddling: bool
) -> Select[Any] | CompoundSelect[Any]:
    """The observations of the scope from `judge_observations`, kept in step as calls are
    written: those whose calls all lie in the window, plus, regrouped from the calls, every
    observation of a comparison with calls on both sides of a window's edge, if any."""
    stored = JudgeObservation  # the folded comparisons' observations
    conditions = [stored.first_at >= filters.since]
    if filters.until is not None:
        conditions.append(stored.last_at < filters.until)
    if filters.protocol is not None:
        conditions.append(stored.protocol == filters.protocol)
    conditions.extend(of_origin(stored.origin, filters.origin))
    conditions.extend(tagged(stored.comparison_id, filters.tags))
    table = stored.__table__.c
    columns = [table[name] for name in (*OBSERVATION_COLUMNS, *NEUTRAL_COLUMNS)]
    if not with_straddling:
        return select(*columns).where(*conditions)
    cut = straddling(filters)
    raw = raw_observations(dialect, filters, among(dialect, _call.comparison_id, cut))
    # A cut comparison's neutral judges are those in the window: looked up (NULL sums).
    unknown = [cast(null(), table[name].type).label(name) for name in NEUTRAL_COLUMNS]
    return union_all(
        select(*columns).where(*conditions, stored.comparison_id.not_in(cut)),
        raw.add_columns(*unknown),
    )


def observations(
    session: AsyncSession,
    filters: ReportFilters,
    *,
    stored: bool = True,
    with_straddling: bool = True,
) -> CTE:
    """Per (judge, comparison): `observation_sums`, the first call's bucket, and its length
    class. From `judge_observations` (`stored`) or regrouped from the calls.

    `eligible`: y_c ≠ 0 and |Δlen| ≥ max(30, 0.1·min(len A, len B)); `longer`: the longer
    response was favoured. Every judge is kept whatever the judge filters, because
    self-preference compares a judge with the others; the parts apply those filters.
    """
    dialect = session.get_bind().dialect.name
    base = (
        stored_observations(dialect, filters, with_straddling)
        if stored
        else raw_observations(dialect, filters)
    ).subquery()
    # A bucket is its first hour's number (`series.bucket_start`): integers group cheaply.
    bucket = base.c.first_hour if filters.bucket == "hour" else base.c.first_hour // 24 * 24
    eligible, longer = length_class(base.c.y_sum, base.c.delta, base.c.shorter)
    query = select(
        *base.c, eligible.label("eligible"), longer.label("longer"), bucket.label("bucket")
    )
    if stored:
        # Each part scans the table with its own filters: cheaper than writing ~400k wide rows
        # of a materialized CTE to a tuplestore (and to disk, past work_mem) to read them back.
        return query.cte("observations").prefix_with("NOT MATERIALIZED")
    # Computed once, read by every part of the statement.
    return query.cte("observations").prefix_with("MATERIALIZED")


# The columns every part of the observation statement returns, a typed NULL where a part has
# none (a UNION takes a column's type from its first part).
PART_COLUMNS: dict[str, Any] = {
    "bucket": BigInteger(),
    "p1": String(),
    "p2": String(),
    "eligible": Boolean(),
    "longer": Boolean(),
    "kept": Boolean(),
    "k_s": BigInteger(),
    "n_s": BigInteger(),
    "k_o": BigInteger(),
    "n_o": BigInteger(),
    "s_ab": Float(),
    "s_aa": Float(),
    "s_bb": Float(),
    "pairs": BigInteger(),
    "consistent": BigInteger(),
}


def _part(name: str, judge: Any, keys: dict[str, Any], n: Any = None) -> Select[Any]:
    """One part of the observation statement: counts (or the sums `n`) grouped by judge and
    `keys`, in the common column layout."""
    values = [
        keys[c] if c in keys else null() if kind is None else cast(null(), kind)
        for c, kind in PART_COLUMNS.items()
    ]
    return select(
        literal_column(f"'{name}'").label("part"),
        judge.label("judge"),
        *[v.label(c) for v, c in zip(values, PART_COLUMNS, strict=True)],
        (func.count() if n is None else n).label("n"),
    ).group_by(judge, *keys.values())


def _of_judges(obs: Any, filters: ReportFilters) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = []
    if filters.judge is not None:
        conditions.append(obs.c.judge == filters.judge)
    if filters.judge_version is not None:
        conditions.append(obs.c.version == filters.judge_version)
    return conditions


def observation_counts(obs: CTE, filters: ReportFilters) -> CTE:
    """Observations of the filtered judges per bucket, picks and length class: one scan, read
    by the pairs and length-class parts and by the recent-bucket bound."""
    keys = [obs.c[name] for name in ("judge", "bucket", "p1", "p2", "eligible", "longer")]
    return (
        select(*keys, func.count().label("n"))
        .where(*_of_judges(obs, filters))
        .group_by(*keys)
        .cte("observation_counts")
    )


def _summed(counts: CTE) -> Any:
    # PostgreSQL sums bigints into numerics; the counts stay integers.
    return cast(func.sum(counts.c.n), BigInteger)


def pairs_part(counts: CTE) -> Select[Any]:
    """Observations per judge and (AB pick, BA pick); p1/p2 are NULL where the comparison has
    no swap pair."""
    keys = {name: counts.c[name] for name in ("p1", "p2")}
    return _part("pairs", counts.c.judge, keys, _summed(counts))


def buckets_part(counts: CTE) -> Select[Any]:
    """Per judge and bucket: observations (`n`), swap pairs and consistent ones (the series,
    and the recent-bucket bound)."""
    c = counts.c
    swap = and_(c.p1.is_not(None), c.p2.is_not(None))
    consistent = or_(
        and_(c.p1 == "first", c.p2 == "second"),
        and_(c.p1 == "second", c.p2 == "first"),
        and_(c.p1 == "tie", c.p2 == "tie"),
    )
    sums = {
        "bucket": c.bucket,
        "pairs": cast(func.coalesce(func.sum(c.n).filter(swap), 0), BigInteger),
        "consistent": cast(func.coalesce(func.sum(c.n).filter(consistent), 0), BigInteger),
    }
    values = [
        sums[name] if name in sums else cast(null(), kind) for name, kind in PART_COLUMNS.items()
    ]
    return select(
        literal_column("'buckets'").label("part"),
        c.judge.label("judge"),
        *[v.label(name) for v, name in zip(values, PART_COLUMNS, strict=True)],
        _summed(counts).label("n"),
    ).group_by(c.judge, c.bucket)


def length_class_part(counts: CTE) -> Select[Any]:
    """Observations per judge and length class (`eligible`, `longer`)."""
    keys = {name: counts.c[name] for name in ("eligible", "longer")}
    return _part("length_class", counts.c.judge, keys, _summed(counts))


def most_recent(judge: Any, *order: Any) -> ColumnElement[bool]:
    """Whether a row is among its judge's MAX_OBSERVATIONS most recent ones."""
    rank = func.row_number().over(partition_by=judge, order_by=[o.desc() for o in order])
    return (rank <= MAX_OBSERVATIONS).label("kept")


def recent_buckets(counts: CTE) -> Any:
    """Per judge: the earliest bucket from which it has at most MAX_OBSERVATIONS observations
    (its first bucket when it has no more in all). A judge whose latest bucket alone has more
    gets no row. Sums over a few rows per judge and bucket: no sort of the observations."""
    per_bucket = (
        select(counts.c.judge, counts.c.bucket, _summed(counts).label("n"))
        .group_by(counts.c.judge, counts.c.bucket)
        .subquery("per_bucket")
    )
    newer = func.sum(per_bucket.c.n).over(
        partition_by=per_bucket.c.judge, order_by=per_bucket.c.bucket.desc()
    )
    running = select(per_bucket.c.judge, per_bucket.c.bucket, newer.label("newer")).subquery(
        "running"
    )
    return (
        select(running.c.judge, func.min(running.c.bucket).label("since"))
        .where(running.c.newer <= MAX_OBSERVATIONS)
        .group_by(running.c.judge)
        .cte("recent")
    )  # read twice, computed once


def recent_bounds(bucket_rows: list[Row[Any]]) -> dict[str, int | None]:
    """Per judge, `recent_buckets` computed from the buckets part's rows: the earliest bucket
    from which it has at most MAX_OBSERVATIONS observations; None when its latest bucket alone
    has more."""
    per_bucket: dict[str, dict[int, int]] = defaultdict(lambda: defaultdict(int))
    for row in bucket_rows:
        per_bucket[row.judge][row.bucket] += row.n
    bounds: dict[str, int | None] = {}
    for judge, buckets in per_bucket.items():
        newer, since = 0, None
        for bucket in sorted(buckets, reverse=True):
            newer += buckets[bucket]
            if newer > MAX_OBSERVATIONS:
                break
            since = bucket
        bounds[judge] = since
    return bounds


def recent_observations(obs: CTE, counts: CTE, filters: ReportFilters) -> Any:
    """(judge, Δlen, y_c) of at most MAX_OBSERVATIONS of each judge's most recent observations:
    whole buckets from the latest back while they fit, or, when the latest bucket alone is too
    large, exactly the most recent ones (ranking costs a sort). y_c = Σ outcome / calls."""
    recent = recent_buckets(counts)
    y = (cast(obs.c.y_sum, Float) / obs.c.y_n).label("y")
    by_bucket = (
        select(obs.c.judge, obs.c.delta, y)
        .join(recent, and_(recent.c.judge == obs.c.judge, obs.c.bucket >= recent.c.since))
        .where(*_of_judges(obs, filters))
    )
    too_large = (
        select(
            obs.c.judge,
            obs.c.delta,
            y,
            most_recent(obs.c.judge, obs.c.last_at, obs.c.comparison_id),
        )
        .where(*_of_judges(obs, filters), obs.c.judge.not_in(select(recent.c.judge)))
        .subquery("too_large")
    )
    by_rank = select(too_large.c.judge, too_large.c.delta, too_large.c.y).where(too_large.c.kept)
    return union_all(by_bucket, by_rank).subquery("recent_observations")


def _centred_ranks(freq: Any, value: str) -> Any:
    """Per judge and distinct value: its average rank (ties share the mean of their ranks),
    minus the mean rank (n + 1)/2, so that the sums of products stay small and exact."""
    counts = (
        select(freq.c.judge, freq.c[value], func.sum(freq.c.c).label("c"))
        .group_by(freq.c.judge, freq.c[value])
        .subquery(f"counts_{value}")
    )
    through = func.sum(counts.c.c).over(partition_by=counts.c.judge, order_by=counts.c[value])
    n = func.sum(counts.c.c).over(partition_by=counts.c.judge)
    rank = through - (counts.c.c - 1) / 2.0 - (n + 1) / 2.0
    return select(
        counts.c.judge, counts.c[value], counts.c.c, cast(rank, Float).label("r")
    ).subquery(f"ranks_{value}")


def length_frequencies(rows: Any) -> CTE:
    """Recent observations counted per judge and distinct (Δlen, y)."""
    return (
        select(rows.c.judge, rows.c.delta, rows.c.y, func.count().label("c"))
        .group_by(rows.c.judge, rows.c.delta, rows.c.y)
        .cte("freq")
    )  # read thrice


def length_part(obs: CTE, counts: CTE, filters: ReportFilters) -> Select[Any]:
    """Spearman's ρ of (Δlen, y_c) per judge over its recent observations."""
    return spearman_part(length_frequencies(recent_observations(obs, counts, filters)))


def spearman_part(freq: Any) -> Select[Any]:
    """Spearman's ρ of (Δlen, y_c) per judge from their frequencies (`freq`: judge, delta, y,
    c; a (Δlen, y) may come in several rows, with signed counts), as sums of centred average
    ranks a (of Δlen) and b (of y): n, Σ a·b, Σ a², Σ b² (ρ = Σab / √(Σa² Σb²), the Pearson
    correlation of the ranks). Computed here, so that no observation travels to Python.

    y takes a few values: their ranks are a small table, and Σ a·b = Σ_Δ a(Δ)·Σ_y c·b(y), so
    the observations are grouped by judge and Δlen only. Ranks are halves and their products
    quarters: every sum is exact, in any order."""
    b = _centred_ranks(freq, "y")
    per_delta = (
        select(
            freq.c.judge,
            freq.c.delta,
            func.sum(freq.c.c).label("c"),
            cast(func.sum(freq.c.c * b.c.r), Float).label("w"),
        )
        .join(b, and_(b.c.judge == freq.c.judge, b.c.y == freq.c.y))
        .group_by(freq.c.judge, freq.c.delta)
        .subquery("per_delta")
    )
    d = per_delta.c
    n = func.sum(d.c).over(partition_by=d.judge)
    through = func.sum(d.c).over(partition_by=d.judge, order_by=d.delta)
    a = cast(through - (d.c - 1) / 2.0 - (n + 1) / 2.0, Float)
    ranked = select(d.judge, d.c, d.w, a.label("a")).subquery("ranked")
    r = ranked.c
    by_delta = (
        select(
            r.judge,
            cast(func.sum(r.a * r.w), Float).label("s_ab"),
            cast(func.sum(r.c * r.a * r.a), Float).label("s_aa"),
            cast(func.sum(r.c), BigInteger).label("n"),
        )
        .group_by(r.judge)
        .subquery("by_delta")
    )
    by_y = (
        select(b.c.judge, cast(func.sum(b.c.c * b.c.r * b.c.r), Float).label("s_bb"))
        .group_by(b.c.judge)
        .subquery("by_y")
    )
    sums = {"s_ab": by_delta.c.s_ab, "s_aa": by_delta.c.s_aa, "s_bb": by_y.c.s_bb}
    values = [sums[c] if c in sums else cast(null(), kind) for c, kind in PART_COLUMNS.items()]
    return select(
        literal_column("'length'").label("part"),
        by_delta.c.judge.label("judge"),
        *[v.label(c) for v, c in zip(values, PART_COLUMNS, strict=True)],
        by_delta.c.n,
    ).join(by_y, by_y.c.judge == by_delta.c.judge)


def _pooled_others(obs: CTE) -> Any:
    """Per comparison with a conflicted judge: Σ decisive calls and Σ A picks of its neutral
    judges, grouped in one pass (for observations computed once, `MATERIALIZED`)."""
    return (
        select(
            obs.c.comparison_id,
            cast(func.sum(obs.c.n_dec), BigInteger).label("n_o"),
            cast(func.sum(obs.c.n_a), BigInteger).label("a_o"),
        )
        .where(
            obs.c.neutral == 1,
            obs.c.n_dec > 0,
            obs.c.comparison_id.in_(select(obs.c.comparison_id).where(obs.c.side.is_not(None))),
        )
        .group_by(obs.c.comparison_id)
        .subquery("others")
    )


def _conflicted(
    obs: CTE, filters: ReportFilters, *, correlated: bool, only: Sequence[str] = ()
) -> Any:
    """The judges' conflicted observations (`only` these judges' when given) with the neutral
    judges' sums on their comparison. `correlated`: looked up per conflicted observation (by
    index, a few per comparison) instead of grouping every neutral observation: for stored
    observations, where conflicted ones are found by a partial index."""
    mine = [obs.c.side.is_not(None), obs.c.n_dec > 0, *_of_judges(obs, filters)]
    if only:
        mine.append(obs.c.judge.in_(only))
    own = [obs.c.judge, obs.c.comparison_id, obs.c.side, obs.c.n_dec, obs.c.n_a, obs.c.last_at]
    if not correlated:
        others = _pooled_others(obs)
        return (
            select(*own, others.c.n_o, others.c.a_o)
            .join(others, others.c.comparison_id == obs.c.comparison_id)
            .where(*mine)
            .subquery("conflicted")
        )
    other = obs.alias("other")
    # The sums the fold kept on the observation hold when every neutral decisive call of the
    # comparison lies in the window (or there is none); else, or for a comparison regrouped
    # from its calls (NULL), they are looked up. CASE evaluates the lookup only then.
    in_window = [obs.c.neutral_first_at >= filters.since]
    if filters.until is not None:
        in_window.append(obs.c.neutral_last_at < filters.until)
    sums_hold = or_(obs.c.neutral_dec == 0, and_(*in_window))

    def pooled(name: str, stored: str) -> Any:
        looked_up = (
            select(cast(func.sum(other.c[name]), BigInteger))
            .where(
                other.c.comparison_id == obs.c.comparison_id,
                other.c.neutral == 1,
                other.c.n_dec > 0,
            )
            .scalar_subquery()
        )
        return case((sums_hold, obs.c[stored]), else_=looked_up)

    pooled_row = select(
        *own, pooled("n_dec", "neutral_dec").label("n_o"), pooled("n_a", "neutral_a").label("a_o")
    )
    # Materialized: the sums are read several times, each would be a lookup of its own.
    looked_up = pooled_row.where(*mine).cte("looked_up").prefix_with("MATERIALIZED")
    return select(looked_up).where(looked_up.c.n_o > 0).subquery("conflicted")


def self_preference_part(
    obs: CTE, filters: ReportFilters, *, correlated: bool = False, ranked: Sequence[str] = ()
) -> Select[Any]:
    """Frequencies of (k_s, n_s, k_o, n_o) per judge over the comparisons where it was
    conflicted, every one `kept`; or, for the `ranked` judges only, whether each is among the
    judge's most recent ones (`rank_self_preference`). o_c pools the decisive calls of the
    neutral judges (whatever the judge filters)."""
    mine = _conflicted(obs, filters, correlated=correlated, only=ranked)
    own_a = mine.c.side == "A"
    kept = (
        most_recent(mine.c.judge, mine.c.last_at, mine.c.comparison_id)
        if ranked
        else literal(True, Boolean).label("kept")
    )
    joined = select(
        mine.c.judge,
        case((own_a, mine.c.n_a), else_=mine.c.n_dec - mine.c.n_a).label("k_s"),
        mine.c.n_dec.label("n_s"),
        case((own_a, mine.c.a_o), else_=mine.c.n_o - mine.c.a_o).label("k_o"),
        mine.c.n_o,
        kept,
    ).subquery("joined")
    keys = {name: joined.c[name] for name in ("kept", "k_s", "n_s", "k_o", "n_o")}
    return _part("self", joined.c.judge, keys)


async def rank_self_preference(
    session: AsyncSession,
    rows: list[Row[Any]],
    obs: CTE,
    filters: ReportFilters,
    *,
    correlated: bool,
) -> list[Row[Any]]:
    """The observation statement's rows, with the self-preference part of every judge
    conflicted on more than MAX_OBSERVATIONS comparisons replaced by its ranked part (one more
    statement, `correlated` as for the first). Ranking sorts every conflicted observation: most
    reports need not pay for it."""
    conflicted: dict[str, int] = defaultdict(int)
    for row in rows:
        if row.part == "self":
            conflicted[row.judge] += row.n
    over = sorted(judge for judge, n in conflicted.items() if n > MAX_OBSERVATIONS)
    if not over:
        return rows
    ranked = self_preference_part(obs, filters, correlated=correlated, ranked=over)
    kept = [row for row in rows if row.part != "self" or row.judge not in over]
    return kept + list((await session.execute(ranked)).all())


async def observation_parts(
    session: AsyncSession, filters: ReportFilters, *, stored: bool = True
) -> list[Row[Any]]:
    """One statement, one pass over the observations: the pairs, length-class, length and
    self-preference parts."""
    cut = stored and await any_straddling(session, filters)
    obs = observations(session, filters, stored=stored, with_straddling=cut)
    counts = observation_counts(obs, filters)
    statement = union_all(
        pairs_part(counts),
        buckets_part(counts),
        length_class_part(counts),
        length_part(obs, counts, filters),
        self_preference_part(obs, filters, correlated=stored),
    )
    rows = list((await session.execute(statement)).all())
    return await rank_self_preference(session, rows, obs, filters, correlated=stored)
