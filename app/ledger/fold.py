"""Rollups of judge calls, folded once per comparison after it stopped running.

Regrouping a million calls takes the bias report seconds, so tables hold the groupings
(`app.ledger.rollup_tables`):

- `call_rollup`: `callscope.call_counts` per judge, version, placebo, protocol, error kind, label
  pair, UTC hour and the comparison's origin (`traffic`, `canary`: the report reads one or
  both). The report sums it over the window's whole hours and counts the calls of the partial
  hours at its edges from `judge_calls` (`app.reports.rollups`).
- `judge_observations`: `callscope.observation_sums` per (judge, non-placebo comparison), read by
  the report's `queries.stored_observations`, and the observation rollups moved with it; on the
  conflicted ones, the neutral judges' sums on the same comparison (`fold_neutral_sums`).

The write path stores calls as plain INSERTs. The folder (`app.ledger.folder`) folds all
the calls of comparisons that stopped running and marks them `folded`, in one transaction, so
that a comparison is in the rollups exactly when it is marked, and the report counts exactly the
folded comparisons (`callscope.scope`). Each fold is one `INSERT … SELECT … ON CONFLICT DO UPDATE`
adding the new calls' sums, its rows in key order, so two folders never wait for each other's
rows in opposite orders (no deadlock). Writers that bypass the job kernel (bulk loads, COPY) call
`rebuild`; a purge, and a comparison reopened to run again, `unfold` it.

Every fold carries the comparisons' `origin` as a key (`judge_observations` as a column: it is a
constant of the comparison, so it never moves). `origin=False` builds the statements as they were
before that column existed, for the migrations that ran them then.

Over 500 lines because the fold, its undoing (`unfold`) and its recomputation (`rebuild`) are
one set of statements over four rollups and two dialects: kept side by side, what one writes
the others undo or recompute.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, NamedTuple

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Dialect,
    Executable,
    Select,
    String,
    and_,
    any_,
    bindparam,
    case,
    cast,
    delete,
    func,
    literal,
    select,
    text,
    true,
    tuple_,
    union_all,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.dialects.postgresql import Insert
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession
from sqlalchemy.sql.dml import Update

from app.jobs.models import UNFINISHED
from app.ledger import callscope
from app.ledger.callscope import NOT_CACHED, PARSED_DESIGN
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from app.ledger.rollup_tables import (
    NEUTRAL_COLUMNS,
    OBSERVATION_COLUMNS,
    CallRollup,
    CallTagRollup,
    JudgeObservation,
    LengthKeys,
    LengthRollup,
    LengthTagRollup,
    ObservationRollup,
    ObservationTagRollup,
    TagKeys,
)

CUBE_KEYS = (
    "judge",
    "version",
    "placebo",
    "protocol",
    "error_kind",
    "label_pair",
    "hour",
    "origin",
)
_call, _cmp = JudgeCall, Comparison


def _known(names: tuple[str, ...], origin: bool) -> tuple[str, ...]:
    """The names, without `origin` for a schema that has no such column yet."""
    return names if origin else tuple(name for name in names if name != "origin")


def _insert(dialect: str) -> Callable[[Any], Insert]:
    # Both dialects' inserts offer the same on_conflict_do_update; typed as PostgreSQL's.
    return postgresql.insert if dialect == "postgresql" else sqlite.insert  # type: ignore[return-value]


def fold_cube(
    dialect: str,
    calls: ColumnElement[bool],
    sign: int = 1,
    *,
    tagged: bool = False,
    origin: bool = True,
    sums: bool = True,
) -> Insert:
    """Add (or with sign −1, subtract) the counts of the selected calls to `call_rollup`, or
    (`tagged`) to `call_tag_rollup` under each tag of their comparison, with their token sums
    (`sums=False`: for the migrations that ran before the cube had them)."""
    keys: list[Any] = [
        _call.judge_name,
        _call.judge_version,
        _cmp.placebo,
        _call.protocol,
        func.coalesce(_call.error_kind, ""),
        _call.label_pair,
        callscope.hour_of(dialect, _call.started_at),
        *([_cmp.origin] if origin else []),
    ]
    totals = [*callscope.call_counts(), *(callscope.call_sums() if sums else ())]
    counts = [
        column if sign == 1 else (sign * column.element).label(column.name) for column in totals
    ]
    summed = tuple(column.name for column in totals)
    table: Any = CallRollup
    names = _known(CUBE_KEYS, origin)
    rows = callscope.calls_query(*keys, *counts, conditions=[calls])
    if tagged:
        keys = [ComparisonTag.key, ComparisonTag.value, *keys]
        rows = callscope.calls_query(*keys, *counts, conditions=[calls]).join(
            ComparisonTag, ComparisonTag.comparison_id == _call.comparison_id
        )
        table, names = CallTagRollup, ("tag_key", "tag_value", *names)
    rows = rows.group_by(*keys).order_by(*keys)
    insert = _insert(dialect)(table).from_select([*names, *summed], rows)
    return insert.on_conflict_do_update(
        index_elements=list(names),
        set_={name: table.__table__.c[name] + insert.excluded[name] for name in summed},
    )


def fold_cubes(dialect: str, calls: ColumnElement[bool], *, sums: bool = True) -> Insert:
    """PostgreSQL: both cubes' folds in one statement (the tagged one as a WITH)."""
    return fold_cube(dialect, calls, sums=sums).add_cte(
        fold_cube(dialect, calls, tagged=True, sums=sums).cte("tag_counts")
    )


def fold_observations(
    dialect: str, calls: ColumnElement[bool], *, track: bool = True, origin: bool = True
) -> Insert:
    """Fold the selected calls into their (judge, comparison) rows of `judge_observations`;
    `track` keeps an updated row's former keys in its `prev_*` columns for `fold_moves`."""
    keys = [_call.judge_name, _call.comparison_id]
    rows = (
        callscope.calls_query(
            *keys,
            *callscope.observation_sums(dialect, origin=origin),
            conditions=[calls, PARSED_DESIGN, _cmp.placebo.is_(False)],
        )
        .group_by(*keys)
        .order_by(*keys)
    )
    columns = list(_known(OBSERVATION_COLUMNS, origin))
    insert = _insert(dialect)(JudgeObservation).from_select(columns, rows)
    old, new = JudgeObservation.__table__.c, insert.excluded
    return insert.on_conflict_do_update(
        index_elements=["judge", "comparison_id"],
        set_={
            **{name: old[name] + new[name] for name in ("y_sum", "y_n", "n_dec", "n_a")},
            # One call per (comparison, judge, round): a pick is set once.
            "p1": func.coalesce(old.p1, new.p1),
            "p2": func.coalesce(old.p2, new.p2),
            "version": case((new.version > old.version, new.version), else_=old.version),
            "first_at": case((new.first_at < old.first_at, new.first_at), else_=old.first_at),
            "last_at": case((new.last_at > old.last_at, new.last_at), else_=old.last_at),
            "first_hour": case((new.first_at < old.first_at, new.first_hour), else_=old.first_hour),
            "last_hour": case((new.last_at > old.last_at, new.last_hour), else_=old.last_hour),
            **({f"prev_{name}": old[name] for name in _TRACKED} if track else {}),
        },
    )


# What an observation's rollup keys depend on, kept as it was before a fold (`prev_*`).
_TRACKED = ("y_n", "y_sum", "version", "p1", "p2", "first_hour", "last_hour")
_MOVING = (*_TRACKED, "judge", "comparison_id", "protocol", "origin", "delta", "shorter")
# The observation rollups, and the same per tag; migrations before the tags' name the first.
OBSERVATION_ROLLUPS = (ObservationRollup, LengthRollup)
TAG_ROLLUPS = (ObservationTagRollup, LengthTagRollup)
MOVE_ROLLUPS = (*OBSERVATION_ROLLUPS, *TAG_ROLLUPS)
# What `fold_moves` reads of a folded observation.
_FOLDED = (*OBSERVATION_COLUMNS, *(f"prev_{name}" for name in _TRACKED))


def _signed_keys(table: type[Any], s: Any, prev: bool, origin: bool = True) -> list[Any]:
    """An observation's keys in one observation rollup, as it is (`prev=False`) or as it was
    before the fold that last changed it (its origin never changes)."""

    def c(name: str) -> Any:
        return s.c[f"prev_{name}" if prev else name]

    values = {
        "tag_key": ComparisonTag.key,  # joined by `fold_moves` for a rollup per tag
        "tag_value": ComparisonTag.value,
        "judge": s.c.judge,
        "first_hour": c("first_hour"),
        "last_hour": c("last_hour"),
        "version": c("version"),
        "protocol": s.c.protocol,
        **({"origin": s.c.origin} if origin else {}),
    }
    if issubclass(table, LengthKeys):
        values.update(delta=s.c.delta, y_sum=c("y_sum"), y_n=c("y_n"))
    else:
        eligible, longer = callscope.length_class(c("y_sum"), s.c.delta, s.c.shorter)
        values.update(
            p1=func.coalesce(c("p1"), ""),
            p2=func.coalesce(c("p2"), ""),
            eligible=eligible,
            longer=longer,
        )
    # By name, in the table's key order (the order the rows are locked in).
    return [values[name].label(name) for name in _key_names(table, origin)]


def _columns(*names: str) -> list[Any]:
    """Columns of `judge_observations` by name: the migrations that run these statements
    know only the columns that existed then."""
    return [JudgeObservation.__table__.c[name] for name in names]


def _key_names(table: type[Any], origin: bool) -> tuple[str, ...]:
    return _known(tuple(column.name for column in table.__table__.primary_key), origin)


def fold_moves(
    dialect: str,
    table: type[Any],
    folded: Any,
    *,
    sign: int = 1,
    moving: bool = True,
    origin: bool = True,
) -> Insert:
    """Move each folded observation (`folded`: rows with `judge_observations`' columns, just
    folded) in `table` from the keys it had before its fold (if it existed) to its keys now:
    −1 and +1, netted per key, in key order; counts left at 0 stay (a read sums them). Not
    `moving`: add the observations as they are, times `sign` (−1 before deleting them)."""
    keys = list(_key_names(table, origin))

    def signed(prev: bool, n: int) -> Select[Any]:
        query = select(*_signed_keys(table, folded, prev, origin), literal(n).label("n"))
        if issubclass(table, TagKeys):  # once under each tag of its comparison
            tags = ComparisonTag.comparison_id == folded.c.comparison_id
            return query.join_from(folded, ComparisonTag, tags)
        return query

    now = signed(False, sign)
    before = signed(True, -sign).where(folded.c.prev_y_n > 0)
    moves = (union_all(now, before) if moving else now).subquery("moves")
    grouped = [moves.c[name] for name in keys]
    total = cast(func.sum(moves.c.n), BigInteger)
    rows = select(*grouped, total).group_by(*grouped).having(total != 0).order_by(*grouped)
    insert = _insert(dialect)(table).from_select([*keys, "n"], rows)
    return insert.on_conflict_do_update(
        index_elements=keys, set_={"n": table.__table__.c.n + insert.excluded.n}
    )


def _folded_keys(calls: ColumnElement[bool]) -> ColumnElement[bool]:
    """The observations that `fold_observations` of these calls writes."""
    keys = callscope.calls_query(
        _call.judge_name,
        _call.comparison_id,
        conditions=[calls, PARSED_DESIGN, _cmp.placebo.is_(False)],
    )
    return tuple_(JudgeObservation.judge, JudgeObservation.comparison_id).in_(keys)


def fold_neutral_sums(observations: ColumnElement[bool]) -> Update:
    """Write NEUTRAL_COLUMNS on the selected conflicted observations from the neutral judges'
    observations of the same comparison (0 decisive calls when none has one). Run after the
    comparison's observations are all folded: a comparison is folded whole, once."""
    mine = JudgeObservation
    other = JudgeObservation.__table__.alias("neutral")

    def pooled(value: Any) -> Any:
        return (
            select(value)
            .where(
                other.c.comparison_id == mine.comparison_id,
                other.c.neutral == 1,
                other.c.n_dec > 0,
            )
            .scalar_subquery()
        )

    values = (
        func.coalesce(func.sum(other.c.n_dec), 0),
        func.coalesce(func.sum(other.c.n_a), 0),
        func.min(other.c.first_at),
        func.max(other.c.last_at),
    )
    return (
        update(mine)
        .where(mine.side.is_not(None), observations)
        .values({name: pooled(value) for name, value in zip(NEUTRAL_COLUMNS, values, strict=True)})
    )


def fold_observations_moving(
    dialect: str, calls: ColumnElement[bool], rollups: tuple[type[Any], ...] = MOVE_ROLLUPS
) -> Insert:
    """PostgreSQL: `fold_observations` and the observation rollups' `fold_moves` in one
    statement: the folded rows, as `RETURNING` gives them, feed the moves."""
    table = JudgeObservation.__table__.c
    folded = (
        fold_observations(dialect, calls)
        .returning(*[table[name] for name in _MOVING], *[table[f"prev_{n}"] for n in _TRACKED])
        .cte("folded")
    )
    *first, last = (fold_moves(dialect, rollup, folded) for rollup in rollups)
    return last.add_cte(*(moves.cte(f"moves_{i}") for i, moves in enumerate(first)))


@cache
def _fold_new(dialect: str) -> tuple[Executable, ...]:
    ids: Any = bindparam("ids", expanding=True)
    neutral = fold_neutral_sums(JudgeObservation.comparison_id.in_(ids))
    return *fold_statements(dialect, _cmp.id.in_(ids)), neutral


def fold_statements(
    dialect: str,
    calls: ColumnElement[bool],
    rollups: tuple[type[Any], ...] = MOVE_ROLLUPS,
    *,
    current: bool = True,
) -> tuple[Executable, ...]:
    """The statements that fold the calls `calls` selects (a condition on calls joined to their
    comparison), in their order; `rollups`: the observation rollups the schema has; `current`:
    leave cached calls out and fold token sums (False: as the migrations before issue 39 ran
    them, on a schema with neither)."""
    if current:
        calls = and_(calls, NOT_CACHED)
    if dialect == "postgresql":
        both = fold_cubes(dialect, calls, sums=current)
        return fold_observations_moving(dialect, calls, rollups), both
    # SQLite has no INSERT in a WITH: the moves read the rows the fold just wrote.
    folded = select(*_columns(*_FOLDED)).where(_folded_keys(calls)).subquery("folded")
    moves = [fold_moves(dialect, rollup, folded) for rollup in rollups]
    cubes = (
        fold_cube(dialect, calls, sums=current),
        fold_cube(dialect, calls, tagged=True, sums=current),
    )
    return fold_observations(dialect, calls), *moves, *cubes


class _DriverStatement(NamedTuple):
    """A fold rendered once to the driver's SQL, with its parameters in the driver's order."""

    sql: str
    names: tuple[str, ...]
    values: dict[str, Any]

    def parameters(self, ids: list[str]) -> tuple[Any, ...]:
        return tuple(ids if name == "ids" else self.values[name] for name in self.names)


@lru_cache(maxsize=4)  # one dialect per engine; tests make many engines
def _fold_new_rendered(dialect: Dialect) -> tuple[_DriverStatement, ...]:
    """`_fold_new` for PostgreSQL, rendered to SQL strings once.

    Through `Connection.execute` each execution walks both large statements for their cache
    key, and the expanding IN re-renders their SQL for every count of ids; `= ANY(array)` keeps
    one SQL string, which the driver runs as a prepared statement. The statements are the same,
    so the folded sums are too.
    """
    ids = bindparam("ids", [], type_=postgresql.ARRAY(String))
    calls = and_(_cmp.id == any_(ids), NOT_CACHED)
    statements = (
        fold_observations_moving("postgresql", calls),
        fold_cubes("postgresql", calls),
        fold_neutral_sums(JudgeObservation.comparison_id == any_(ids)),
    )
    rendered = []
    for statement in statements:
        compiled = statement.compile(dialect=dialect, compile_kwargs={"render_postcompile": True})
        values = compiled.params
        rendered.append(
            _DriverStatement(
                compiled.string,
                tuple(compiled.positiontup or ()),
                {k: v for k, v in values.items() if k != "ids"},
            )
        )
    return tuple(rendered)


async def fold_comparisons(connection: AsyncConnection, ids: list[str]) -> None:
    """Fold every call of these comparisons, by id, into the rollups (observations and their
    two rollups first, then the cube, then the neutral judges' sums on the conflicted
    observations), in the connection's transaction: three statements on PostgreSQL. Only the
    folder calls it (`fold_pending`), once per comparison."""
    dialect = connection.dialect
    if dialect.name == "postgresql" and dialect.positional:
        for statement in _fold_new_rendered(dialect):
            await connection.exec_driver_sql(statement.sql, statement.parameters(ids))
        return
    for folding in _fold_new(dialect.name):
        await connection.execute(folding, {"ids": ids})


async def fold_pending(session: AsyncSession, limit: int, *, skip_locked: bool = True) -> int:
    """Fold up to `limit` comparisons that stopped running and are not folded yet, and mark
    them folded, in the session's transaction; how many. Rows another folder holds are
    skipped (it folds them), or with `skip_locked=False` waited for (and then found folded),
    so folders in several processes never fold one twice."""
    ids = sorted(await session.scalars(claim_pending(limit, skip_locked)))
    if ids:
        await fold_comparisons(await session.connection(), ids)
    return len(ids)


def claim_pending(limit: int, skip_locked: bool) -> Update:
    """Mark up to `limit` comparisons that stopped running folded, returning their ids: one
    statement, read and written under the write lock. SQLite has no row locks: a folder that
    read the pending ids before another's fold committed, and wrote after it, folded the same
    comparisons twice (a report counted the calls twice, seen once in CI on the embedded
    default). PostgreSQL locks the rows in the subquery as `pending_comparisons` says."""
    pending = pending_comparisons(limit, skip_locked)
    claim = update(_cmp).where(_cmp.id.in_(pending), ~_cmp.folded).values(folded=True)
    # No ORM objects of these rows are loaded to bring up to date: skip looking for them.
    return claim.returning(_cmp.id).execution_options(synchronize_session=False)


def pending_comparisons(limit: int, skip_locked: bool) -> Select[str]:
    """The ids of up to `limit` comparisons that stopped running and are not folded yet,
    locked, through the partial index of the unfolded ones."""
    # `NOT folded`, as the index says it: PostgreSQL does not match `folded IS FALSE` to it.
    return (
        select(_cmp.id)
        .where(~_cmp.folded, _cmp.status.not_in(UNFINISHED))
        .order_by(_cmp.id)
        .limit(limit)
        .with_for_update(skip_locked=skip_locked)
    )


def _counted(origin: bool) -> ColumnElement[bool]:
    """The calls a rebuild folds: those of folded comparisons made to the judge (every call, for
    the schemas before comparisons had an origin, when every stored call was folded as it was
    written and none was an answer from the judge-call cache)."""
    return and_(_cmp.folded.expression, NOT_CACHED) if origin else true()


def rebuild_statements(dialect: str, *, origin: bool = True) -> list[Executable]:
    """Recompute `call_rollup` and `judge_observations` from the calls of folded comparisons
    (what the migration that made them ran, `origin=False`: it knows no later column)."""
    return [
        delete(CallRollup),
        delete(JudgeObservation),
        fold_observations(dialect, _counted(origin), track=False, origin=origin),
        fold_cube(dialect, _counted(origin), origin=origin, sums=origin),
    ]


def rebuild_cube_statements(dialect: str) -> list[Executable]:
    """Recompute both call cubes from the calls of folded comparisons (the migration that gave
    them token sums ran these)."""
    return [
        delete(CallRollup),
        fold_cube(dialect, _counted(True)),
        delete(CallTagRollup),
        fold_cube(dialect, _counted(True), tagged=True),
    ]


def rebuild_moved_statements(
    dialect: str, *, origin: bool = True, rollups: tuple[type[Any], ...] = MOVE_ROLLUPS
) -> list[Executable]:
    """Recompute the observation rollups (`rollups`: those the schema has) from
    `judge_observations` as it stands, and the tags' cube from the calls of folded comparisons
    (`origin=False`: before comparisons had an origin)."""
    return [
        delete(CallTagRollup),
        fold_cube(dialect, _counted(origin), tagged=True, origin=origin, sums=origin),
        *refill_statements(dialect, rollups, origin=origin),
    ]


def refill_statements(
    dialect: str, rollups: tuple[type[Any], ...], *, origin: bool = True
) -> list[Executable]:
    """Empty these observation rollups and count every stored observation in them."""
    every = select(*_columns(*_known(_FOLDED, origin))).subquery("folded")
    return [
        *(delete(rollup) for rollup in rollups),
        *(fold_moves(dialect, rollup, every, moving=False, origin=origin) for rollup in rollups),
    ]


async def rebuild(session: AsyncSession) -> None:
    """Mark every comparison that stopped running folded and recompute every rollup from them
    (after writes that bypassed the job kernel); the caller commits."""
    # Before the tables' lock: a folder holding some of these rows folds them into the tables.
    await session.execute(
        update(_cmp).where(~_cmp.folded, _cmp.status.not_in(UNFINISHED)).values(folded=True)
    )
    dialect = session.get_bind().dialect.name
    if dialect == "postgresql":
        # Live folders fold into the rows being replaced: they wait instead of interleaving.
        await session.execute(
            text(
                "LOCK TABLE call_rollup, call_tag_rollup, judge_observations, observation_rollup,"
                " length_rollup, observation_tag_rollup, length_tag_rollup IN EXCLUSIVE MODE"
            )
        )
    neutral = fold_neutral_sums(true())
    for statement in [*rebuild_statements(dialect), neutral, *rebuild_moved_statements(dialect)]:
        await session.execute(statement)


async def unfold(session: AsyncSession, comparisons: ColumnElement[bool]) -> None:
    """Take the selected comparisons out of the rollups and mark them not folded: before they
    are deleted, or when one is reopened to run again (it is folded anew once it stops).

    Their rows are locked first, in id order, so a folder neither folds them meanwhile nor is
    half-way through folding one (it holds the row until it commits, and then it is folded).
    Only the folded ones are subtracted: the calls of the cube, and the observations of the
    observation rollups (then deleted: a reopened comparison's are folded afresh)."""
    await session.execute(select(_cmp.id).where(comparisons).order_by(_cmp.id).with_for_update())
    folded = select(_cmp.id).where(comparisons, _cmp.folded)
    for statement in unfold_statements(session.get_bind().dialect.name, folded):
        await session.execute(statement)
    await session.execute(update(_cmp).where(comparisons, _cmp.folded).values(folded=False))


def unfold_statements(
    dialect: str,
    ids: Select[Any],
    rollups: tuple[type[Any], ...] = MOVE_ROLLUPS,
    *,
    current: bool = True,
) -> list[Executable]:
    """Subtract the comparisons `ids` selects from the rollups: their calls from both cubes (as
    they were folded: `current` as in `fold_statements`), their observations from the
    observation rollups (`rollups`: those the schema has), then delete those observations
    (rows left at 0 go too)."""
    calls: ColumnElement[bool] = _call.comparison_id.in_(ids)
    if current:
        calls = and_(calls, NOT_CACHED)
    statements: list[Executable] = []
    for cube in (CallRollup, CallTagRollup):
        tagged = cube is CallTagRollup
        statements.append(fold_cube(dialect, calls, sign=-1, tagged=tagged, sums=current))
        statements.append(delete(cube).where(cube.calls == 0))
    observations = JudgeObservation.comparison_id.in_(ids)
    gone = select(*_columns(*_FOLDED)).where(observations).subquery("folded")
    for rollup in rollups:
        statements.append(fold_moves(dialect, rollup, gone, sign=-1, moving=False))
        statements.append(delete(rollup).where(rollup.n == 0))
    statements.append(delete(JudgeObservation).where(observations))
    return statements
