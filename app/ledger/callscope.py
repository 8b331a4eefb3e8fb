"""The scope of stored judge calls that every read of them shares, and its building blocks.

A scope (`ReportFilters`, `scope`) selects judge calls joined to their comparison:

- the filters: judge, judge version, call time (`since` ≤ started_at < `until`), tags (`key:value`,
  ANDed) and protocol;
- only folded comparisons count: those whose calls the folder has put in the rollups, once they
  stopped running (`app.ledger.folder`); running ones, and those not folded yet, are
  ignored;
- placebo comparisons are excluded, unless asked for (`placebo`);
- the comparisons of one origin: `traffic` (callers' requests) by default, `canary` (drift
  canaries' re-runs, which would otherwise count their frozen items again), or `all`;
- calls of the `audit` role count for their judge like any other call: they are real calls of that
  judge on real comparisons, only their vote is kept out of the panel's verdict.

The bias report, the label and scoring sections and the rollups folded from the calls all count
within it, with the same conditions (`PARSED`, `DECISIVE`, …) and the same sums
(`call_counts`, `observation_sums`), so that what is rolled up is what the report would count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Integer,
    Row,
    Select,
    and_,
    case,
    cast,
    func,
    literal_column,
    or_,
    select,
    text,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.ledger.models import Comparison, ComparisonTag, JudgeCall

Bucket = Literal["day", "hour"]
Placebo = Literal["exclude", "only", "include"]
Origin = Literal["traffic", "canary", "all"]
# Python finishes ranks and bootstraps on at most this many of the most recent observations.
MAX_OBSERVATIONS = 100_000

_call = JudgeCall
_cmp = Comparison
PARSED = _call.pick.is_not(None)
FAILED = _call.pick.is_(None)
DECISIVE = and_(_call.design, _call.pick.in_(("first", "second")))
PARSED_DESIGN = and_(_call.design, PARSED)
# Made to the judge, not answered from the judge-call cache (app/jobs/callcache.py): a cached
# answer repeats a stored call, which the rollups and the report count once.
NOT_CACHED = _call.cached_from.is_(None)
# The response carrying the pair's second label was picked (labels sit on slots independently).
SECOND_LABEL_PICKED = or_(
    and_(_call.pick == "first", _call.first_slot_second_label),
    and_(_call.pick == "second", ~_call.first_slot_second_label),
)
# +1 when A won, −1 when B won, 0 for a tie: summed per comparison in integers.
OUTCOME = case((_call.mapped_winner == "A", 1), (_call.mapped_winner == "B", -1), else_=0)


@dataclass(frozen=True)
class ReportFilters:
    """What the report covers; `since` is required (the route defaults it to 30 days ago)."""

    since: datetime
    until: datetime | None = None
    judge: str | None = None
    judge_version: int | None = None
    tags: tuple[tuple[str, str], ...] = ()
    protocol: str | None = None
    bucket: Bucket = "day"
    rubric: str | None = None  # scoring sections only
    origin: Origin = "traffic"


def of_origin(column: Any, origin: Origin) -> list[ColumnElement[bool]]:
    """The condition on an `origin` column (comparisons' or a rollup's) that a filter asks for:
    none for `all`."""
    return [] if origin == "all" else [column == origin]


async def prepare(session: AsyncSession) -> None:
    """Tune this transaction for a few large aggregates (PostgreSQL only)."""
    if session.get_bind().dialect.name == "postgresql":
        if not session.in_transaction():
            # One snapshot for every statement: the rollups and the edges read from the calls
            # must see the same folded comparisons.
            await session.execute(text("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"))
        # JIT compiling costs more than it saves at this size; hashing needs room to stay in RAM.
        await session.execute(text("SET LOCAL jit = off"))
        await session.execute(text("SET LOCAL work_mem = '64MB'"))
        # The planner cannot estimate filtered scans of the materialized observations; guessing
        # a few rows, it may loop over an aggregate of them once per row (minutes, not seconds).
        await session.execute(text("SET LOCAL enable_nestloop = off"))


def tagged(comparison_id: Any, tags: Sequence[tuple[str, str]]) -> list[ColumnElement[bool]]:
    """One condition per `key:value` tag (ANDed by the caller): the comparison carries it."""
    return [
        comparison_id.in_(
            select(ComparisonTag.comparison_id).where(
                ComparisonTag.key == key, ComparisonTag.value == value
            )
        )
        for key, value in tags
    ]


def scope(
    filters: ReportFilters,
    *,
    placebo: Placebo = "exclude",
    judges: bool = True,
) -> list[ColumnElement[bool]]:
    """Conditions on calls joined to their comparison; `judges=False` ignores judge filters.
    The report counts the folded comparisons (`app.ledger.folder`): those in the rollups,
    which stopped running."""
    conditions = [_cmp.folded.expression, NOT_CACHED, _call.started_at >= filters.since]
    if placebo != "include":
        conditions.append(_cmp.placebo.is_(placebo == "only"))
    conditions.extend(of_origin(_cmp.origin, filters.origin))
    if filters.until is not None:
        conditions.append(_call.started_at < filters.until)
    if filters.protocol is not None:
        conditions.append(_call.protocol == filters.protocol)
    conditions.extend(tagged(_call.comparison_id, filters.tags))
    if judges and filters.judge is not None:
        conditions.append(_call.judge_name == filters.judge)
    if judges and filters.judge_version is not None:
        conditions.append(_call.judge_version == filters.judge_version)
    return conditions


def calls_query(*columns: Any, conditions: Sequence[ColumnElement[bool]]) -> Select[Any]:
    """SELECT columns FROM judge_calls JOIN comparisons WHERE conditions."""
    return (
        select(*columns)
        .select_from(_call)
        .join(_cmp, _cmp.id == _call.comparison_id)
        .where(*conditions)
    )


async def fetch(session: AsyncSession, query: Select[Any]) -> list[Row[Any]]:
    """All rows of a query."""
    return list((await session.execute(query)).all())


def bucket_of(session: AsyncSession, moment: Any, bucket: Bucket) -> ColumnElement[Any]:
    """The start of a timestamp's UTC day or hour (a timestamp on PostgreSQL, text on SQLite)."""
    if session.get_bind().dialect.name == "postgresql":
        return func.date_trunc(
            literal_column(f"'{bucket}'"), func.timezone(literal_column("'UTC'"), moment)
        )
    # SQLite stores UTCDateTime as UTC text, which strftime reads as UTC.
    pattern = "'%Y-%m-%d %H:00:00'" if bucket == "hour" else "'%Y-%m-%d 00:00:00'"
    return func.strftime(literal_column(pattern), moment)


def _counts(**conditions: ColumnElement[bool] | None) -> list[Any]:
    """`count(*) FILTER (WHERE condition) AS name` for each; None counts every row."""
    return [
        (func.count() if c is None else func.count().filter(c)).label(name)
        for name, c in conditions.items()
    ]


# Calls


def call_counts() -> list[Any]:
    """The counts of the report's call cube, labelled (`design_*`, `decisive`, `first` and
    `second_label` count design calls only)."""
    return _counts(
        calls=None,
        failed=FAILED,
        design=_call.design.is_(True),
        parsed=PARSED,
        ties=_call.pick == "tie",
        design_parsed=PARSED_DESIGN,
        decisive=DECISIVE,
        first=and_(_call.design, _call.pick == "first"),
        design_ties=and_(_call.design, _call.pick == "tie"),
        second_label=and_(DECISIVE, SECOND_LABEL_PICKED),
    )


CALL_COUNTS = tuple(column.name for column in call_counts())


def call_sums() -> list[Any]:
    """The token sums of the report's call cube (a call that reported none adds 0); reasoning
    tokens are a part of the output tokens."""
    return [
        func.coalesce(func.sum(getattr(_call, name)), 0).label(name)
        for name in ("tokens_in", "tokens_out", "reasoning_tokens")
    ]


CALL_SUMS = tuple(column.name for column in call_sums())


# One observation per (judge, comparison)


def _side() -> ColumnElement[Any]:
    """'A' or 'B' when the judge's family equals that response's family and not the other's
    (the judge is conflicted), else NULL; an unknown family matches nothing."""
    family, fam_a, fam_b = _call.judge_family, _cmp.family_a, _cmp.family_b
    return case(
        (and_(family == fam_a, or_(fam_b.is_(None), fam_b != family)), "A"),
        (and_(family == fam_b, or_(fam_a.is_(None), fam_a != family)), "B"),
    )


def _neutral() -> ColumnElement[Any]:
    """1 when the judge's family matches neither response (or is unknown), else 0."""
    family, fam_a, fam_b = _call.judge_family, _cmp.family_a, _cmp.family_b
    return case(
        (
            or_(
                family.is_(None),
                and_(or_(fam_a.is_(None), fam_a != family), or_(fam_b.is_(None), fam_b != family)),
            ),
            1,
        ),
        else_=0,
    )


def length_class(y_sum: Any, delta: Any, shorter: Any) -> tuple[Any, Any]:
    """(`eligible`, `longer`) of an observation: y_c ≠ 0 and |Δlen| ≥ max(30, 0.1·min(len A,
    len B)); the longer response was favoured."""
    eligible = and_(y_sum != 0, func.abs(delta) >= 30, 10 * func.abs(delta) >= shorter)
    longer = or_(and_(y_sum > 0, delta > 0), and_(y_sum < 0, delta < 0))
    return eligible, longer


def hour_of(dialect: str, moment: Any) -> ColumnElement[int]:
    """UTC hours since the epoch of a stored timestamp."""
    if dialect == "postgresql":
        return cast(func.floor(func.extract("epoch", moment) / 3600), BigInteger)
    return cast(func.strftime("%s", moment), Integer) // 3600


def observation_sums(dialect: str, *, origin: bool = True) -> list[Any]:
    """Per (judge, comparison), over its parsed design calls: the AB and BA picks, the version
    and protocol, Σ outcome and calls, decisive calls and A picks, Δlen and the shorter length,
    the judge's conflicted side or neutrality, the first and last call's time, and (`origin`;
    False for the migrations that ran before comparisons had one) the comparison's origin.
    Each is a sum, a min or max, or a constant of the comparison, so calls can be folded in as
    they come."""
    sums = [
        func.max(_call.judge_version).label("version"),
        func.max(_call.protocol).label("protocol"),
        func.max(_call.pick).filter(_call.round == 0, _call.display_order == "AB").label("p1"),
        func.max(_call.pick).filter(_call.round == 1, _call.display_order == "BA").label("p2"),
        func.sum(OUTCOME).label("y_sum"),
        func.count().label("y_n"),
        func.count().filter(_call.pick != "tie").label("n_dec"),
        func.count().filter(_call.mapped_winner == "A").label("n_a"),
        func.max(_cmp.len_a - _cmp.len_b).label("delta"),
        func.max(case((_cmp.len_a < _cmp.len_b, _cmp.len_a), else_=_cmp.len_b)).label("shorter"),
        func.max(_side()).label("side"),
        func.max(_neutral()).label("neutral"),
        func.min(_call.started_at).label("first_at"),
        func.max(_call.started_at).label("last_at"),
        hour_of(dialect, func.min(_call.started_at)).label("first_hour"),
        hour_of(dialect, func.max(_call.started_at)).label("last_hour"),
    ]
    return [*sums, func.max(_cmp.origin).label("origin")] if origin else sums
