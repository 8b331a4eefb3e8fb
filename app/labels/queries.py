"""Read-side SQL of calibration labels: gold labels, the labeling queue, the report's counts.

Gold label of a comparison: the winner named by more of its labelers' latest labels than any
other winner (a labeler's new label replaces the old one, so every row is a latest label);
when two winners share the most labels the comparison is `disputed` and has no gold label.

The report's counts use the bias report's scope (`app.ledger.callscope.scope`: judge, judge
version, call time, tags, protocol, origin; running comparisons ignored, placebo comparisons
excluded) and parsed design calls only. They return integer counts and float sums, never rates;
`app.labels.report` turns them into estimates.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ARRAY,
    ColumnElement,
    Row,
    Select,
    String,
    Subquery,
    and_,
    any_,
    case,
    cast,
    exists,
    func,
    literal,
    literal_column,
    null,
    select,
)
from sqlalchemy.ext.asyncio import AsyncSession

from app.jobs.models import JobStatus
from app.labels.models import Label
from app.ledger.callscope import (
    DECISIVE,
    MAX_OBSERVATIONS,
    PARSED_DESIGN,
    ReportFilters,
    bucket_of,
    calls_query,
    fetch,
    scope,
)
from app.ledger.gold import gold_labels
from app.ledger.models import Comparison, ComparisonTag, JudgeCall

# Lower edges of the confidence deciles 1..9, as `stats.reliability_deciles` draws them.
DECILE_EDGES = tuple(round(k / 10, 1) for k in range(1, 10))
CONFIDENT = 0.9  # `confident_wrong_rate` counts wrong calls at or above this confidence
_call = JudgeCall


# Gold labels


def labelled_scope(
    session: AsyncSession, filters: ReportFilters, *, judges: bool = True
) -> list[ColumnElement[bool]]:
    """The report's scope (`callscope.scope`) narrowed to the calls and comparisons of labelled
    comparisons: what every label count reads.

    Labels are few next to calls, and joined to the calls in scope the planner (nested loops
    off: `callscope.prepare`) may read every call in scope to keep a few: 2.6-3.5 s a statement
    at 10,000,000 calls, with or without labels. On PostgreSQL the ids go in as an array, which
    each side looks up in its index (`ix_judge_calls_comparison_id`, the comparisons' key)."""
    ids = select(Label.comparison_id)
    if session.get_bind().dialect.name == "postgresql":
        listed = any_(func.array(ids.scalar_subquery(), type_=ARRAY(String)))
        narrowed = [_call.comparison_id == listed, Comparison.id == listed]
    else:
        narrowed = [_call.comparison_id.in_(ids)]
    return [*scope(filters, judges=judges), *narrowed]


async def gold_of(session: AsyncSession, comparison_id: str) -> Row[Any] | None:
    """The `gold_labels` row of one comparison; None when it has no label."""
    gold = gold_labels(Label.comparison_id == comparison_id)
    return (await session.execute(select(gold))).first()


# The labeling queue


def queue_candidates(judge: str | None) -> Select[Any]:
    """Complete, non-placebo comparisons of the callers' traffic with no label (of `judge`,
    when given): never a canary's, whose items carry their own gold."""
    query = select(Comparison.id).where(
        Comparison.status == JobStatus.COMPLETE,
        Comparison.placebo.is_(False),
        Comparison.origin == "traffic",
        ~exists().where(Label.comparison_id == Comparison.id),
    )
    if judge is not None:
        query = query.where(
            Comparison.id.in_(select(JudgeCall.comparison_id).where(JudgeCall.judge_name == judge))
        )
    return query


async def count_candidates(session: AsyncSession, judge: str | None) -> int:
    """How many comparisons the queue draws from."""
    subquery = queue_candidates(judge).subquery()
    return int(await session.scalar(select(func.count()).select_from(subquery)) or 0)


async def candidates_at(
    session: AsyncSession, judge: str | None, positions: Sequence[int]
) -> list[Comparison]:
    """The candidates at 0-based `positions` in id order, in the order of `positions`."""
    ranked = (
        queue_candidates(judge)
        .add_columns(func.row_number().over(order_by=Comparison.id).label("rn"))
        .subquery()
    )
    rows = await fetch(
        session, select(ranked.c.id, ranked.c.rn).where(ranked.c.rn.in_([p + 1 for p in positions]))
    )
    by_position = {row.rn - 1: row.id for row in rows}
    ids = [by_position[p] for p in positions if p in by_position]
    found = {
        c.id: c for c in await session.scalars(select(Comparison).where(Comparison.id.in_(ids)))
    }
    return [found[i] for i in ids if i in found]


async def tags_of(session: AsyncSession, ids: Sequence[str]) -> dict[str, dict[str, str]]:
    """The tags of each comparison."""
    tags: dict[str, dict[str, str]] = {i: {} for i in ids}
    for tag in await session.scalars(
        select(ComparisonTag).where(ComparisonTag.comparison_id.in_(ids))
    ):
        tags[tag.comparison_id][tag.key] = tag.value
    return tags


# The report


def judge_winner(session: AsyncSession) -> ColumnElement[Any]:
    """The call's judge's debiased winner on its comparison (`judge_results[judge].winner`)."""
    results = Comparison.judge_results
    if session.get_bind().dialect.name == "postgresql":
        return func.jsonb_extract_path_text(results, JudgeCall.judge_name, "winner")
    # Judge names are `[A-Za-z0-9._:-]`: nothing to escape inside the quoted path key.
    path = literal('$."', String) + JudgeCall.judge_name + literal('".winner', String)
    return func.json_extract(results, path)


def observations(session: AsyncSession, filters: ReportFilters, gold: Subquery) -> Subquery:
    """One row per (judge, labelled comparison) in scope, and one per labelled comparison for
    the panel (judge NULL, voters' calls, the final verdict): parsed design calls `n`, those
    matching the gold label `k`, those with a confidence `n_conf`, the verdict, the labels."""
    hit = and_(PARSED_DESIGN, _call.mapped_winner == gold.c.gold)
    label_columns = [
        gold.c[name] for name in ("gold", "labelers", "unanimous", "from_queue", "labelled_at")
    ]

    def per(
        judge: Any,
        verdict: Any,
        n_conf: Any,
        conditions: list[ColumnElement[bool]],
        keys: list[Any],
    ) -> Select[Any]:
        return (
            calls_query(
                judge.label("judge"),
                _call.comparison_id.label("comparison_id"),
                func.count().filter(PARSED_DESIGN).label("n"),
                func.count().filter(hit).label("k"),
                n_conf.label("n_conf"),
                verdict.label("verdict"),
                *label_columns,
                conditions=conditions,
            )
            .join(gold, gold.c.comparison_id == _call.comparison_id)
            .group_by(*keys, _call.comparison_id, *label_columns)
        )

    judges = per(
        _call.judge_name,
        func.max(judge_winner(session)),
        func.count().filter(PARSED_DESIGN, _call.confidence.is_not(None)),
        labelled_scope(session, filters),
        [_call.judge_name],
    )
    panel = per(
        cast(null(), String),
        func.max(Comparison.winner),
        literal(0),
        [*labelled_scope(session, filters, judges=False), _call.role == "voter"],
        [],
    )
    return judges.union_all(panel).subquery("observations")


async def labelled_table(session: AsyncSession, filters: ReportFilters) -> list[Row[Any]]:
    """Per judge (None: the panel): labelled comparisons in scope by (calls matching gold `k`,
    parsed design calls `n`, has a confident call, `kept`, verdict, gold, any label from the
    queue, ≥ 2 labelers, all labelers agree) -> `rows`. `kept`: among the MAX_OBSERVATIONS most
    recent by label time of the judge's comparisons that call accuracy counts (a gold label and
    a parsed design call). One pass over the observations, which `app.labels.report` files
    three ways: call accuracy, verdicts against gold, the labels' own counts."""
    obs = observations(session, filters, gold_labels())
    counted = and_(obs.c.gold.is_not(None), obs.c.n > 0)
    rank = func.row_number().over(
        partition_by=[obs.c.judge, counted],
        order_by=[obs.c.labelled_at.desc(), obs.c.comparison_id.desc()],
    )
    flat = select(
        obs.c.judge,
        obs.c.k,
        obs.c.n,
        (obs.c.n_conf > 0).label("confident"),
        (rank <= MAX_OBSERVATIONS).label("kept"),
        obs.c.verdict,
        obs.c.gold,
        obs.c.from_queue,
        (obs.c.labelers >= 2).label("multi"),
        obs.c.unanimous,
    ).subquery("flat")
    keys = list(flat.c)
    return await fetch(session, select(*keys, func.count().label("rows")).group_by(*keys))


def decile(confidence: Any) -> ColumnElement[int]:
    """The reliability decile 0..9 of a confidence (an edge belongs to the upper decile)."""
    whens = [(confidence >= edge, k) for k, edge in reversed(list(enumerate(DECILE_EDGES, 1)))]
    return case(*whens, else_=0)


async def confidence_cube(session: AsyncSession, filters: ReportFilters) -> list[Row[Any]]:
    """Per judge, confidence source and decile, over parsed design calls with a confidence on
    gold-labelled comparisons: `n`, Σc `s`, Σc² `ss`, hits, Σc over hits `s_hit`, and
    `confident_wrong` (c ≥ 0.9 and wrong)."""
    gold = gold_labels()
    c = _call.confidence
    hit = _call.mapped_winner == gold.c.gold
    bucket = decile(c).label("decile")
    query = calls_query(
        _call.judge_name.label("judge"),
        _call.confidence_source.label("source"),
        bucket,
        func.count().label("n"),
        func.sum(c).label("s"),
        func.sum(c * c).label("ss"),
        func.count().filter(hit).label("hits"),
        func.sum(case((hit, c), else_=0.0)).label("s_hit"),
        func.count().filter(c >= CONFIDENT, ~hit).label("confident_wrong"),
        conditions=[
            *labelled_scope(session, filters),
            PARSED_DESIGN,
            c.is_not(None),
            gold.c.gold.is_not(None),
        ],
    )
    query = query.join(gold, gold.c.comparison_id == _call.comparison_id)
    return await fetch(
        session, query.group_by(_call.judge_name, _call.confidence_source, literal_column("decile"))
    )


# The human baseline and the series' accuracy (issue 22). Added after the functions above and
# leaving them unchanged: the report's other label counts keep their own statements.


def longer_side() -> ColumnElement[Any]:
    """'A' or 'B', the comparison's longer response; NULL when the lengths are equal."""
    return case(
        (Comparison.len_a > Comparison.len_b, "A"),
        (Comparison.len_b > Comparison.len_a, "B"),
        else_=null(),
    )


def display_orders() -> Subquery:
    """Per labelled comparison, over its labels (each labeler's latest): those with a known
    display order (`ordered`), those of them with a decisive winner (`h_n`) and those that
    picked the response shown first (`h_first`)."""
    known = Label.shown_first.is_not(None)
    return (
        select(
            Label.comparison_id.label("comparison_id"),
            func.count().filter(known).label("ordered"),
            func.count().filter(known, Label.winner.in_(("A", "B"))).label("h_n"),
            func.count().filter(known, Label.winner == Label.shown_first).label("h_first"),
        )
        .group_by(Label.comparison_id)
        .subquery("orders")
    )


def baseline_observations(session: AsyncSession, filters: ReportFilters) -> Subquery:
    """One row per (judge, gold-labelled comparison) in scope: the judge's decisive design calls
    `j_n`, those that picked the first slot `j_first` and the longer response `j_longer`, the
    longer side, the gold, the labels' display-order counts and the last label's time."""
    gold, orders, longer = gold_labels(), display_orders(), longer_side()
    order_columns = [func.coalesce(orders.c[name], 0) for name in ("ordered", "h_n", "h_first")]
    return (
        calls_query(
            _call.judge_name.label("judge"),
            _call.comparison_id.label("comparison_id"),
            func.count().filter(DECISIVE).label("j_n"),
            func.count().filter(DECISIVE, _call.pick == "first").label("j_first"),
            func.count().filter(DECISIVE, _call.mapped_winner == longer).label("j_longer"),
            func.max(longer).label("longer"),
            gold.c.gold,
            gold.c.labelled_at,
            *[
                column.label(name)
                for column, name in zip(order_columns, ("ordered", "h_n", "h_first"), strict=True)
            ],
            conditions=[*labelled_scope(session, filters), gold.c.gold.is_not(None)],
        )
        .join(gold, gold.c.comparison_id == _call.comparison_id)
        .outerjoin(orders, orders.c.comparison_id == _call.comparison_id)
        .group_by(
            _call.judge_name, _call.comparison_id, gold.c.gold, gold.c.labelled_at, *order_columns
        )
        .subquery("baseline")
    )


async def baseline_table(session: AsyncSession, filters: ReportFilters) -> list[Row[Any]]:
    """Per judge: gold-labelled comparisons with a decisive design call of the judge, by
    (`j_n`, `j_first`, `j_longer`, longer side, gold, any label with a known order, `h_n`,
    `h_first`, among the MAX_OBSERVATIONS most recent by label time) -> `rows`."""
    obs = baseline_observations(session, filters)
    rank = func.row_number().over(
        partition_by=obs.c.judge, order_by=[obs.c.labelled_at.desc(), obs.c.comparison_id.desc()]
    )
    ranked = (
        select(
            *[obs.c[name] for name in ("judge", "j_n", "j_first", "j_longer", "longer", "gold")],
            (obs.c.ordered > 0).label("ordered"),
            obs.c.h_n,
            obs.c.h_first,
            (rank <= MAX_OBSERVATIONS).label("kept"),
        )
        .where(obs.c.j_n > 0)
        .subquery("ranked")
    )
    keys = list(ranked.c)
    return await fetch(session, select(*keys, func.count().label("rows")).group_by(*keys))


async def accuracy_by_bucket(session: AsyncSession, filters: ReportFilters) -> list[Row[Any]]:
    """Per judge and bucket (of the judge's first call on the comparison, as the series files
    swap pairs) over gold-labelled comparisons: comparisons, parsed design calls `n`, those
    matching the gold `k`, comparisons with a result `verdicts` and right ones `correct`."""
    gold = gold_labels()
    per = (
        calls_query(
            _call.judge_name.label("judge"),
            func.min(_call.started_at).label("first_at"),
            func.count().filter(PARSED_DESIGN).label("n"),
            func.count().filter(PARSED_DESIGN, _call.mapped_winner == gold.c.gold).label("k"),
            func.max(judge_winner(session)).label("verdict"),
            gold.c.gold,
            conditions=[*labelled_scope(session, filters), gold.c.gold.is_not(None)],
        )
        .join(gold, gold.c.comparison_id == _call.comparison_id)
        .group_by(_call.judge_name, _call.comparison_id, gold.c.gold)
        .subquery("per_comparison")
    )
    bucket = bucket_of(session, per.c.first_at, filters.bucket).label("bucket")
    return await fetch(
        session,
        select(
            per.c.judge,
            bucket,
            func.count().label("comparisons"),
            func.sum(per.c.n).label("n"),
            func.sum(per.c.k).label("k"),
            func.count().filter(per.c.verdict.is_not(None)).label("verdicts"),
            func.count().filter(per.c.verdict == per.c.gold).label("correct"),
        ).group_by(per.c.judge, literal_column("bucket")),
    )


# The dashboard's labeling page (issue 23). Added after the functions above and leaving them
# unchanged: the API's queue keeps drawing only unlabelled comparisons.


def texts_present() -> list[ColumnElement[bool]]:
    """The prompt and both responses are stored: not purged (`--texts-only`), not privacy mode."""
    return [
        Comparison.prompt.is_not(None),
        Comparison.response_a.is_not(None),
        Comparison.response_b.is_not(None),
    ]


def labeling_pool() -> list[ColumnElement[bool]]:
    """What the labeling page may show at all: complete, non-placebo traffic comparisons whose
    texts a labeler can read (the API's queue offers the others, saying why texts are missing)."""
    return [
        Comparison.status == JobStatus.COMPLETE,
        Comparison.placebo.is_(False),
        Comparison.origin == "traffic",
        *texts_present(),
    ]


def fresh_items(exclude: Sequence[str] = ()) -> Select[Any]:
    """Items of the pool nobody labelled yet (so not this labeler either), but those in
    `exclude`."""
    query = queue_candidates(None).where(*texts_present())
    return query.where(Comparison.id.not_in(exclude)) if exclude else query


def overlap_items(labeler: str, exclude: Sequence[str] = ()) -> Select[Any]:
    """Items someone else labelled exactly once and `labeler` did not: a second label on them
    measures agreement between labelers."""
    labelled_once = (
        select(Label.comparison_id)
        .group_by(Label.comparison_id)
        .having(func.count() == 1, func.max(case((Label.labeler == labeler, 1), else_=0)) == 0)
    )
    query = select(Comparison.id).where(*labeling_pool(), Comparison.id.in_(labelled_once))
    return query.where(Comparison.id.not_in(exclude)) if exclude else query


async def count_items(session: AsyncSession, items: Select[Any]) -> int:
    """How many comparisons `items` selects."""
    return int(await session.scalar(select(func.count()).select_from(items.subquery())) or 0)


async def item_at(session: AsyncSession, items: Select[Any], position: int) -> Comparison | None:
    """The comparison at 0-based `position` of `items` in id order; None past the end."""
    ranked = items.add_columns(
        func.row_number().over(order_by=Comparison.id).label("rn")
    ).subquery()
    found = await session.scalar(select(ranked.c.id).where(ranked.c.rn == position + 1))
    return None if found is None else await session.get(Comparison, found)


async def labels_by(session: AsyncSession, labeler: str) -> int:
    """How many comparisons `labeler` labelled."""
    query = select(func.count()).select_from(Label).where(Label.labeler == labeler)
    return int(await session.scalar(query) or 0)


async def agreement_of(session: AsyncSession, labeler: str) -> tuple[int, int]:
    """Over pairs (a label of `labeler`, another labeler's label on the same comparison): the
    pairs whose winners match and all pairs."""
    other = Label.__table__.alias("other")
    query = (
        select(
            func.count().filter(other.c.winner == Label.winner),
            func.count(),
        )
        .select_from(Label)
        .join(
            other,
            and_(other.c.comparison_id == Label.comparison_id, other.c.labeler != Label.labeler),
        )
        .where(Label.labeler == labeler)
    )
    matching, pairs = (await session.execute(query)).one()
    return int(matching), int(pairs)
