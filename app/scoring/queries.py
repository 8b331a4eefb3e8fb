"""Read-side SQL of scoring: stored sessions, and the aggregates of the report's scoring sections.

Report queries select scores within one scope (`ScoringFilters`): score time (the call's start,
`since` ≤ scored_at < `until`), rubric, session tags (`key:value`, ANDed) and judge version.
The judge filter narrows only what is shown: offsets are relative to the whole panel, so the
model is always fitted over every reviewer in scope. Scores of every session count, whatever
its status: each is a complete observation stored as its call finished.

Only counted scores enter the reviewer model, the raw means, the position and the length
sections: an audit score (a conflicted reviewer scoring its own family's response) is left out
of every mean of the answers, so it is left out of what calibrates them too; otherwise a
reviewer that favours its own family would carry that favour into its offset and into every
calibrated score. The own-family score gap is the one figure that reads audit scores
(`audit=True`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Float, Row, Select, cast, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.scoring.models import Score, ScoreCall, ScoreResponse, ScoreSession, ScoreSessionTag

AnySelect = Select[*tuple[Any, ...]]

# Python finishes regressions on at most this many of the most recent observations.
MAX_OBSERVATIONS = 100_000


@dataclass(frozen=True)
class StoredSession:
    """A session with everything its answer is built from."""

    session: ScoreSession
    responses: list[ScoreResponse]
    calls: list[ScoreCall]
    scores: list[Score]
    tags: dict[str, str]


async def load_session(session: AsyncSession, row: ScoreSession) -> StoredSession:
    """Responses, calls, scores and tags of a stored session."""

    async def rows(model: Any) -> list[Any]:
        return list(await session.scalars(select(model).where(model.session_id == row.id)))

    tags = {t.key: t.value for t in await rows(ScoreSessionTag)}
    responses = sorted(await rows(ScoreResponse), key=lambda r: r.response_index)
    return StoredSession(row, responses, await rows(ScoreCall), await rows(Score), tags)


async def load_sessions(session: AsyncSession, ids: Sequence[str]) -> list[StoredSession]:
    """`load_session` for many sessions in five queries (a page of batch results)."""
    if not ids:
        return []

    async def rows(model: Any) -> dict[str, list[Any]]:
        found: dict[str, list[Any]] = {}
        for row in await session.scalars(select(model).where(model.session_id.in_(ids))):
            found.setdefault(row.session_id, []).append(row)
        return found

    sessions = list(await session.scalars(select(ScoreSession).where(ScoreSession.id.in_(ids))))
    tags, responses = await rows(ScoreSessionTag), await rows(ScoreResponse)
    calls, scores = await rows(ScoreCall), await rows(Score)
    return [
        StoredSession(
            row,
            sorted(responses.get(row.id, []), key=lambda r: r.response_index),
            calls.get(row.id, []),
            scores.get(row.id, []),
            {t.key: t.value for t in tags.get(row.id, [])},
        )
        for row in sessions
    ]


# Report scope


@dataclass(frozen=True)
class ScoringFilters:
    """What the scoring sections cover; `since` is required (the report defaults it)."""

    since: datetime
    until: datetime | None = None
    judge: str | None = None
    judge_version: int | None = None
    tags: tuple[tuple[str, str], ...] = ()
    rubric: str | None = None


def scope(
    filters: ScoringFilters, table: Any = Score, *, judge: bool = False, audit: bool = False
) -> list[Any]:
    """Conditions on a scores table (or alias); `judge=True` also keeps only the named judge,
    `audit=True` keeps the audit scores too (else counted scores only). Scores of calls answered
    from the judge-call cache are left out: the statistics count a repeated call once."""
    conditions: list[ColumnElement[bool]] = [
        table.scored_at >= filters.since,
        # A score repeated from the judge-call cache is not a new observation of its reviewer.
        table.call_id.not_in(select(ScoreCall.id).where(ScoreCall.cached_from.is_not(None))),
    ]
    if not audit:
        conditions.append(table.counted.is_(True))
    if filters.until is not None:
        conditions.append(table.scored_at < filters.until)
    if filters.rubric is not None:
        conditions.append(table.rubric_id == filters.rubric)
    for key, value in filters.tags:
        tagged = select(ScoreSessionTag.session_id).where(
            ScoreSessionTag.key == key, ScoreSessionTag.value == value
        )
        conditions.append(table.session_id.in_(tagged))
    if filters.judge_version is not None:
        version = table.judge_version == filters.judge_version
        # A version names one judge's configuration: other reviewers stay in the panel.
        conditions.append(
            or_(table.reviewer != filters.judge, version) if filters.judge else version
        )
    if judge and filters.judge is not None:
        conditions.append(table.reviewer == filters.judge)
    return conditions


async def fetch(session: AsyncSession, query: AnySelect) -> list[Row[Any]]:
    """All rows of a query."""
    return list((await session.execute(query)).all())


async def rubrics(session: AsyncSession, filters: ScoringFilters) -> list[Row[Any]]:
    """(rubric, min, max, scores) of every rubric with a score in scope."""
    query = (
        select(
            Score.rubric_id.label("rubric"),
            func.min(ScoreSession.rubric_min).label("low"),
            func.min(ScoreSession.rubric_max).label("high"),
            func.count().label("n"),
        )
        .join(ScoreSession, ScoreSession.id == Score.session_id)
        .where(*scope(filters, audit=True))
        .group_by(Score.rubric_id)
    )
    return await fetch(session, query)


async def reviewer_totals(session: AsyncSession, filters: ScoringFilters) -> list[Row[Any]]:
    """Per reviewer: scores, Σ score and Σ score²."""
    query = (
        select(
            Score.reviewer,
            func.count().label("n"),
            func.sum(Score.score).label("s"),
            func.sum(Score.score * Score.score).label("ss"),
        )
        .where(*scope(filters))
        .group_by(Score.reviewer)
    )
    return await fetch(session, query)


def scored(filters: ScoringFilters) -> Any:
    """Subquery of the scores in scope, each with its item's number of reviewers (`raters`) and
    first reviewer by name (`first`).

    Window functions instead of joins to grouped subqueries: one scan and one sort, whatever the
    planner believes about the table (fresh tables have no statistics).
    """
    item = (Score.session_id, Score.response_index)
    query = select(
        Score.session_id,
        Score.response_index,
        Score.reviewer,
        Score.position,
        Score.score,
        Score.call_id,
        Score.scored_at,
        func.count().over(partition_by=item).label("raters"),  # one score per reviewer
        func.min(Score.reviewer).over(partition_by=item).label("first"),
    ).where(*scope(filters))
    return query.subquery("scored")


def _informative(s: Any, reviewers: Sequence[str] | None = None) -> list[Any]:
    """Scores of items that ≥ 2 reviewers scored (of `reviewers`, a connected set, if given)."""
    conditions = [s.c.raters >= 2]
    if reviewers is not None:
        # A connected set holds every reviewer of its items: their counts are unchanged.
        conditions.append(s.c.reviewer.in_(reviewers))
    return conditions


async def informative_counts(session: AsyncSession, filters: ScoringFilters) -> list[Row[Any]]:
    """Per reviewer: its informative scores."""
    s = scored(filters)
    query = select(s.c.reviewer, func.count().label("n")).where(*_informative(s))
    return await fetch(session, query.group_by(s.c.reviewer))


async def reviewer_links(session: AsyncSession, filters: ScoringFilters) -> list[Row[Any]]:
    """Distinct (a, b) linking each reviewer of an informative item to the item's first one:
    a spanning set of the design's edges, enough for its connected components."""
    s = scored(filters)
    query = select(s.c.first.label("a"), s.c.reviewer.label("b")).where(
        *_informative(s), s.c.reviewer != s.c.first
    )
    return await fetch(session, query.distinct())


async def component_items(
    session: AsyncSession, filters: ScoringFilters, reviewers: Sequence[str]
) -> int:
    """Informative items of a connected set of reviewers (counted at their first reviewer)."""
    s = scored(filters)
    query = select(func.count()).where(*_informative(s, reviewers), s.c.reviewer == s.c.first)
    return int(await session.scalar(query) or 0)


async def cell_sums(
    session: AsyncSession, filters: ScoringFilters, reviewers: Sequence[str]
) -> list[Row[Any]]:
    """Per (reviewer, position) over the informative scores of `reviewers`: count and Σ score."""
    s = scored(filters)
    query = select(
        s.c.reviewer, s.c.position, func.count().label("n"), func.sum(s.c.score).label("s")
    ).where(*_informative(s, reviewers))
    return await fetch(session, query.group_by(s.c.reviewer, s.c.position))


async def item_sums(
    session: AsyncSession,
    filters: ScoringFilters,
    reviewers: Sequence[str],
    positions: Sequence[int],
) -> list[Row[Any]]:
    """Per informative item: scores, Σ score, and counts per reviewer and per position."""
    s = scored(filters)
    columns: list[Any] = [
        func.count().label("n"),
        func.sum(s.c.score).label("s"),
        *(func.count().filter(s.c.reviewer == name) for name in reviewers),
        *(func.count().filter(s.c.position == p) for p in positions),
    ]
    query = select(*columns).where(*_informative(s, reviewers))
    return await fetch(session, query.group_by(s.c.session_id, s.c.response_index))


async def fit_rows(
    session: AsyncSession, filters: ScoringFilters, reviewers: Sequence[str], limit: int
) -> list[Row[Any]]:
    """The most recent informative scores of `reviewers`, newest first (at most `limit`)."""
    s = scored(filters)
    query = (
        select(
            s.c.session_id, s.c.response_index, s.c.reviewer, s.c.position, s.c.score, s.c.call_id
        )
        .where(*_informative(s, reviewers))
        .order_by(s.c.scored_at.desc(), s.c.call_id.desc(), s.c.response_index)
    )
    return await fetch(session, query.limit(limit))


async def position_sums(session: AsyncSession, filters: ScoringFilters) -> list[Row[Any]]:
    """Per display position over all scores in scope: count and Σ score."""
    query = select(Score.position, func.count().label("n"), func.sum(Score.score).label("s"))
    return await fetch(session, query.where(*scope(filters)).group_by(Score.position))


async def length_moments(
    session: AsyncSession, filters: ScoringFilters, limit: int
) -> list[Row[Any]]:
    """Per recent (reviewer, session) with ≥ 4 scores, neither length nor score constant:
    n and the centred sums Σ dx·dy, Σ dx², Σ dy² (means first, so no cancellation)."""
    length = cast(Score.length, Float)
    group = (Score.reviewer, Score.session_id)
    rows = (
        select(
            Score.reviewer,
            Score.session_id,
            (length - func.avg(length).over(partition_by=group)).label("dx"),
            (Score.score - func.avg(Score.score).over(partition_by=group)).label("dy"),
            Score.length,
            Score.score,
            Score.scored_at,
        )
        .where(*scope(filters, judge=True))
        .subquery("centred")
    )
    c = rows.c
    query = (
        select(
            c.reviewer,
            c.session_id,
            func.count().label("n"),
            func.sum(c.dx * c.dy).label("sxy"),
            func.sum(c.dx * c.dx).label("sxx"),
            func.sum(c.dy * c.dy).label("syy"),
        )
        .group_by(c.reviewer, c.session_id)
        .having(
            func.count() >= 4,
            func.min(c.length) < func.max(c.length),
            func.min(c.score) < func.max(c.score),
        )
        .order_by(func.max(c.scored_at).desc(), c.session_id, c.reviewer)
    )
    return await fetch(session, query.limit(limit))


# Sessions where a reviewer scored a response of its own family (the own-family score gap)

MAX_AUDITED_SESSIONS = 10_000


def _with_families(query: AnySelect) -> AnySelect:
    return query.join(ScoreCall, ScoreCall.id == Score.call_id).join(
        ScoreResponse,
        (ScoreResponse.session_id == Score.session_id)
        & (ScoreResponse.response_index == Score.response_index),
    )


async def audited_sessions(session: AsyncSession, filters: ScoringFilters, limit: int) -> list[str]:
    """The most recent sessions (at most `limit`) with a score in scope by a reviewer of the
    response's own family, newest first."""
    last = func.max(Score.scored_at)
    query = (
        _with_families(select(Score.session_id))
        .where(*scope(filters, audit=True), ScoreCall.judge_family == ScoreResponse.resolved_family)
        .group_by(Score.session_id)
        .order_by(last.desc(), Score.session_id)
        .limit(limit)
    )
    return [row.session_id for row in await fetch(session, query)]


async def family_scores(
    session: AsyncSession, filters: ScoringFilters, sessions: Sequence[str]
) -> list[Row[Any]]:
    """Every score in scope of `sessions`, with the reviewer's and the response's family."""
    if not sessions:
        return []
    query = _with_families(
        select(
            Score.session_id,
            Score.response_index,
            Score.reviewer,
            ScoreCall.judge_family,
            ScoreResponse.resolved_family,
            Score.score,
        )
    ).where(*scope(filters, audit=True), Score.session_id.in_(sessions))
    return await fetch(session, query)
