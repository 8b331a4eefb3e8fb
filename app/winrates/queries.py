"""Read-side SQL of the win rates: one grouped count of the outcomes of one model against another.

An outcome is a complete, non-placebo comparison whose two responses come from the model and the
baseline (either slot), scored for the model from the debiased verdict: the final (panel) winner,
or with a `judge` filter that judge's own debiased winner (`judge_results`). Every outcome is in
{1, ½, 0}, so the whole sample is a count per (verdict, human gold, label status): a few dozen
rows whatever the traffic, the same integers on PostgreSQL and SQLite.

The human gold is the majority of the latest labels from the random labeling queue
(`from_queue`) alone (`ledger.gold.gold_labels`); a labelled comparison whose queue labels
split evenly is `disputed`. Labels people chose to give are only counted.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, String, func, literal, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.jobs.models import JobStatus
from app.ledger.callscope import ReportFilters, of_origin, tagged
from app.ledger.gold import Label, OutcomeCount, outcome_count, outcome_counts_query
from app.ledger.models import Comparison


def verdict_of(session: AsyncSession, judge: str | None) -> ColumnElement[Any]:
    """The debiased winner an outcome uses: the panel's, or one judge's from `judge_results`."""
    if judge is None:
        return Comparison.winner.expression
    results = Comparison.judge_results
    if session.get_bind().dialect.name == "postgresql":
        return func.jsonb_extract_path_text(results, literal(judge, String), "winner")
    # A filtered judge is a known one (`check_known_names`): `[A-Za-z0-9._:-]`, nothing to
    # escape inside the quoted path key.
    return func.json_extract(results, literal(f'$."{judge}".winner', String))


def between(model: str, baseline: str, filters: ReportFilters) -> list[ColumnElement[bool]]:
    """The comparisons of `model` with `baseline` that the filters select (created in the
    window, tags, origin)."""
    pair = ((Comparison.model_a == model) & (Comparison.model_b == baseline)) | (
        (Comparison.model_a == baseline) & (Comparison.model_b == model)
    )
    return [pair, *in_scope(filters)]


def in_scope(filters: ReportFilters) -> list[ColumnElement[bool]]:
    """The complete, non-placebo comparisons the filters select (created in the window, tags,
    origin), whatever their models."""
    conditions = [
        Comparison.status == JobStatus.COMPLETE,
        Comparison.placebo.is_(False),
        Comparison.created_at >= filters.since,
    ]
    if filters.until is not None:
        conditions.append(Comparison.created_at < filters.until)
    conditions.extend(of_origin(Comparison.origin, filters.origin))
    conditions.extend(tagged(Comparison.id, filters.tags))
    return conditions


async def outcome_counts(
    session: AsyncSession, model: str, baseline: str, filters: ReportFilters
) -> list[OutcomeCount]:
    """The comparisons of `model` with `baseline`, counted per verdict and label status."""
    model_is_a = (Comparison.model_a == model).label("model_is_a")
    query = outcome_counts_query(
        [model_is_a], verdict_of(session, filters.judge), between(model, baseline, filters)
    )
    rows = (await session.execute(query)).all()
    return [outcome_count(row[0], row[1:]) for row in rows]


# Labels: labeler → comparison → label; verdicts: judge → comparison → its own debiased winner.
Annotations = dict[str, dict[str, str]]


async def alt_test_annotations(
    session: AsyncSession, filters: ReportFilters
) -> tuple[Annotations, Annotations]:
    """What the alternative-annotator test reads: the random queue's labels on the comparisons
    in scope that two labelers or more labelled from the queue, and each judge's own debiased
    winner on them (`judge_results`; one judge with a `judge` filter)."""
    multiply = (
        select(Label.comparison_id)
        .join(Comparison, Comparison.id == Label.comparison_id)
        .where(Label.from_queue, *in_scope(filters))
        .group_by(Label.comparison_id)
        .having(func.count() >= 2)
    )
    labels: Annotations = {}
    rows = await session.execute(
        select(Label.labeler, Label.comparison_id, Label.winner).where(
            Label.from_queue, Label.comparison_id.in_(multiply)
        )
    )
    for labeler, comparison_id, winner in rows:
        labels.setdefault(labeler, {})[comparison_id] = winner
    verdicts: Annotations = {}
    results = await session.execute(
        select(Comparison.id, Comparison.judge_results).where(Comparison.id.in_(multiply))
    )
    for comparison_id, stored in results:
        for judge, result in (stored or {}).items():
            if filters.judge not in (None, judge) or not result or result.get("winner") is None:
                continue
            verdicts.setdefault(judge, {})[comparison_id] = result["winner"]
    return labels, verdicts
