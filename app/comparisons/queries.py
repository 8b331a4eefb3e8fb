"""Read side of comparisons: the answer shape from stored rows, lists with keyset pagination."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

from sqlalchemy import Select, and_, func, or_, select, tuple_
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app import stats
from app.comparisons.panels import MIXED, panel_confidence_source, stored_result
from app.comparisons.protocols import JudgeVerdict, Pick
from app.comparisons.schemas import (
    CallRead,
    ComparisonList,
    ComparisonRead,
    ExcludedRead,
    JudgeEntry,
    JudgeResultRead,
    Lengths,
    ProtocolIn,
)
from app.db import values_of
from app.jobs.models import UNFINISHED
from app.ledger.callscope import Origin, of_origin
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from app.params import as_utc, before_cursor, encode_time_cursor
from app.rows import from_row


def confidence_source(calls: Sequence[JudgeCall], verdict: JudgeVerdict) -> str | None:
    """Where a judge result's confidence comes from; ``mixed`` when its calls' sources differ."""
    if verdict.confidence_basis != "calls":
        return verdict.confidence_basis  # "votes"; "inconsistent" or "floored": a fixed 0.5
    sources = {c.confidence_source for c in calls if c.confidence is not None}
    if len(sources) > 1:
        return MIXED
    return sources.pop() if sources else None


def result_json(calls: Sequence[JudgeCall], verdict: JudgeVerdict | None) -> dict[str, Any] | None:
    """A judge's result as stored with the comparison."""
    if verdict is None:
        return None
    return {
        "winner": verdict.winner,
        "confidence": verdict.confidence,
        "confidence_source": confidence_source(calls, verdict),
        "position_consistent": verdict.position_consistent,
        "pairs_agree": verdict.pairs_agree,
        "pairs_run": verdict.pairs_run,
    }


def stored_result_read(stored: dict[str, Any]) -> dict[str, Any]:
    """A stored judge result as answered now: results stored before `floored` existed called the
    0.5 floor of a position-consistent winner `inconsistent`, which only a contradiction is."""
    if stored.get("confidence_source") == "inconsistent" and stored["position_consistent"]:
        return {**stored, "confidence_source": "floored"}
    return stored


def call_read(call: JudgeCall) -> CallRead:
    """One call as the API shows it."""
    return from_row(
        CallRead,
        call,
        labels={"A": call.label_a, "B": call.label_b},
        cached=call.cached_from is not None,
    )


# The comparison's columns its answer shows as they are.
VERDICT = (
    "id", "status", "winner", "confidence", "position_consistent", "bias_detected", "agreement",
    "simulated", "self_preference_risk",
)  # fmt: skip


def to_read(
    comparison: Comparison, calls: Sequence[JudgeCall], tags: dict[str, str]
) -> ComparisonRead:
    """The pinned answer shape of PRODUCT.md."""
    by_judge: dict[str, list[JudgeCall]] = defaultdict(list)
    for call in sorted(calls, key=lambda c: (c.judge_name, c.round)):
        by_judge[call.judge_name].append(call)
    results = {
        name: stored_result_read(stored) if stored else stored
        for name, stored in (comparison.judge_results or {}).items()
    }
    roles = [(name, role) for name, _version, role in comparison.panel["judges"]]
    panel = [stored_result(name, role, results.get(name)) for name, role in roles]
    entries = [
        JudgeEntry(
            judge=name,
            version=version,
            role=role,
            result=JudgeResultRead(**results[name]) if results.get(name) else None,
            calls=[call_read(c) for c in by_judge[name]],
        )
        for name, version, role in comparison.panel["judges"]
    ]
    return ComparisonRead(
        **values_of(comparison, *VERDICT),
        confidence_source=panel_confidence_source(panel, comparison.winner),
        judges=entries,
        excluded=[ExcludedRead(judge=n, reason=r) for n, r in comparison.panel["excluded"]],
        **conflicted_roles(comparison.panel),
        error_kind=comparison.error_kind,
        protocol=ProtocolIn.model_validate(comparison.protocol_params),
        tags=tags,
        lengths=Lengths(a=comparison.len_a, b=comparison.len_b),
        created_at=comparison.created_at,
        completed_at=comparison.completed_at,
    )


def conflicted_roles(panel: dict[str, Any]) -> dict[str, list[str]]:
    """The panel's conflicted judges, and split by what the policy did with each: voted, ran
    as an audit, or did not run (excluded or substituted)."""
    conflicted: list[str] = panel.get("conflicted", [])
    roles = {name: role for name, _, role in panel["judges"]}
    return {
        "conflicted": conflicted,
        "conflicted_voters": [n for n in conflicted if roles.get(n) == "voter"],
        "conflicted_audits": [n for n in conflicted if roles.get(n) == "audit"],
        "conflicted_excluded": [n for n in conflicted if n not in roles],
    }


async def read_many(
    session: AsyncSession, comparisons: Sequence[Comparison]
) -> list[ComparisonRead]:
    """Answers for several comparisons with two queries (calls, tags)."""
    ids = [c.id for c in comparisons]
    calls: dict[str, list[JudgeCall]] = defaultdict(list)
    tags: dict[str, dict[str, str]] = defaultdict(dict)
    if ids:
        for call in await session.scalars(
            select(JudgeCall).where(JudgeCall.comparison_id.in_(ids))
        ):
            calls[call.comparison_id].append(call)
        for tag in await session.scalars(
            select(ComparisonTag).where(ComparisonTag.comparison_id.in_(ids))
        ):
            tags[tag.comparison_id][tag.key] = tag.value
    return [to_read(c, calls[c.id], tags[c.id]) for c in comparisons]


async def read_comparison(session: AsyncSession, comparison: Comparison) -> ComparisonRead:
    """The answer for one stored comparison."""
    return (await read_many(session, [comparison]))[0]


def filtered(
    query: Select[Comparison],
    *,
    judge: str | None,
    tags: Sequence[tuple[str, str]],
    status: str | None,
    since: datetime | None,
    until: datetime | None,
) -> Select[Comparison]:
    """Apply the list filters; tags are ANDed."""
    if judge:
        query = query.where(
            Comparison.id.in_(select(JudgeCall.comparison_id).where(JudgeCall.judge_name == judge))
        )
    for key, value in tags:
        query = query.where(
            Comparison.id.in_(
                select(ComparisonTag.comparison_id).where(
                    ComparisonTag.key == key, ComparisonTag.value == value
                )
            )
        )
    if status:
        query = query.where(Comparison.status == status)
    if since:
        query = query.where(Comparison.created_at >= as_utc(since))
    if until:
        query = query.where(Comparison.created_at < as_utc(until, "until"))
    return query


async def keyset_page(
    session: AsyncSession, query: Select[Any], *, limit: int, cursor: str | None
) -> ComparisonList:
    """One page of a query over comparisons, newest first (keyset on created_at, id)."""
    if cursor:
        query = query.where(before_cursor(Comparison.created_at, Comparison.id, cursor))
    rows = list(
        await session.scalars(
            query.order_by(Comparison.created_at.desc(), Comparison.id.desc()).limit(limit + 1)
        )
    )
    page = rows[:limit]
    last = page[-1] if len(rows) > limit else None
    next_cursor = encode_time_cursor(last.created_at, last.id) if last else None
    return ComparisonList(items=await read_many(session, page), next_cursor=next_cursor)


async def list_comparisons(
    session: AsyncSession, *, limit: int, cursor: str | None, **filters: Any
) -> ComparisonList:
    """A page of comparisons, newest first (keyset on created_at, id)."""
    query = filtered(select(Comparison), **filters)
    return await keyset_page(session, query, limit=limit, cursor=cursor)


# The comparison explorer (dashboard): the API's filters and more, with a total count.

SwapClass = Literal["consistent", "primacy", "recency"]
SWAP_CLASSES: tuple[SwapClass, ...] = ("consistent", "primacy", "recency")


def swap_picks(kind: SwapClass) -> list[tuple[str, str]]:
    """The (AB pick, BA pick) combinations of one swap-pair class, as the report classifies them."""
    picks = get_args(Pick)
    return [(p1, p2) for p1 in picks for p2 in picks if stats.pc_classify(p1, p2) == kind]


@dataclass(frozen=True)
class ExploreFilters:
    """What the explorer narrows comparisons by. `since`/`until` bound `created_at`, except with
    `swap`: then they bound the swap pair's two calls, exactly as the bias report counts pairs, so
    that the list behind a report figure holds that figure's comparisons."""

    judge: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    status: str | None = None
    winner: str | None = None
    placebo: bool | None = None
    bias_detected: bool | None = None
    origin: Origin = "traffic"
    since: datetime | None = None
    until: datetime | None = None
    swap: SwapClass | None = None
    text: str | None = None  # a substring of the prompt or either response, any case


# The explorer's text search: `\` escapes LIKE's own wildcards, so `%` and `_` match themselves.
LIKE_ESCAPE = "\\"


def contains_text(text: str) -> Any:
    """The comparison's prompt or either response contains `text` (case-insensitive; the text
    is matched literally: no wildcard, no pattern of the user's)."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    pattern = f"%{escaped}%"
    columns = (Comparison.prompt, Comparison.response_a, Comparison.response_b)
    return or_(*(column.ilike(pattern, escape=LIKE_ESCAPE) for column in columns))


def swap_pair_of(
    judge: str, kind: SwapClass, since: datetime | None, until: datetime | None
) -> Any:
    """The comparison has a swap pair of `judge` of class `kind` (STATISTICS.md): its round-0 AB
    and round-1 BA design calls both parsed, both started within the window."""
    ab, ba = aliased(JudgeCall), aliased(JudgeCall)
    conditions = [
        ab.comparison_id == Comparison.id,
        ab.judge_name == judge,
        ab.round == 0,
        ab.display_order == "AB",
        ab.design.is_(True),
        ba.round == 1,
        ba.display_order == "BA",
        ba.design.is_(True),
        tuple_(ab.pick, ba.pick).in_(swap_picks(kind)),
    ]
    for call in (ab, ba):
        if since is not None:
            conditions.append(call.started_at >= since)
        if until is not None:
            conditions.append(call.started_at < until)
    pair = (
        select(ab.id)
        .join(ba, and_(ba.comparison_id == ab.comparison_id, ba.judge_name == ab.judge_name))
        .where(*conditions)
    )
    # Swap pairs exist only off placebo and once a comparison has stopped running.
    return and_(pair.exists(), Comparison.placebo.is_(False), Comparison.status.not_in(UNFINISHED))


def explored(query: Select[Any], f: ExploreFilters) -> Select[Any]:
    """The explorer's filters on a query over comparisons."""
    since = as_utc(f.since) if f.since else None
    until = as_utc(f.until, "until") if f.until else None
    query = filtered(
        query,
        # With `swap`, the pair's EXISTS names the judge and reads only its calls in the window.
        judge=None if f.swap else f.judge,
        tags=f.tags,
        status=f.status,
        since=None if f.swap else since,
        until=None if f.swap else until,
    )
    query = query.where(*of_origin(Comparison.origin, f.origin))
    if f.winner is not None:
        query = query.where(Comparison.winner == f.winner)
    if f.placebo is not None:
        query = query.where(Comparison.placebo.is_(f.placebo))
    if f.bias_detected is not None:
        query = query.where(Comparison.bias_detected.is_(f.bias_detected))
    if f.swap is not None and f.judge is not None:
        query = query.where(swap_pair_of(f.judge, f.swap, since, until))
    if f.text:
        query = query.where(contains_text(f.text))
    return query


COUNT_CAP = 10_000


async def explore_comparisons(
    session: AsyncSession, filters: ExploreFilters, *, limit: int, cursor: str | None
) -> tuple[ComparisonList, int]:
    """A page of the filters' comparisons, newest first (the API's keyset), and how many match
    up to `COUNT_CAP` + 1 (a count reads at most that many rows: "more than 10,000")."""
    matches = explored(select(Comparison.id), filters).limit(COUNT_CAP + 1).subquery()
    total = await session.scalar(select(func.count()).select_from(matches))
    page = await keyset_page(
        session, explored(select(Comparison), filters), limit=limit, cursor=cursor
    )
    return page, int(total or 0)


async def stored_calls(
    session: AsyncSession, comparison_id: str
) -> dict[tuple[str, int], JudgeCall]:
    """A comparison's call rows by (judge, round): what the answer leaves out (raw outputs)."""
    calls = await session.scalars(select(JudgeCall).where(JudgeCall.comparison_id == comparison_id))
    return {(call.judge_name, call.round): call for call in calls}
