"""Retention: delete comparisons and score sessions older than a cutoff, or only their texts
(prompts, responses, references, criteria, judges' raw outputs and error texts).

Drift canaries are left alone unless asked (`include_canaries`): their frozen items, their runs and
the `canary` comparisons the runs stored. Asked, canaries created before the cutoff go with their
items and runs (a canary without its texts has nothing to re-run), and `canary` comparisons are
purged like traffic."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.canaries.models import Canary, CanaryItem
from app.db import rowcount
from app.jobs.models import UNFINISHED, JobStatus
from app.ledger.deletion import delete_stopped
from app.ledger.models import Comparison, JudgeCall
from app.scoring.models import ScoreCall, ScoreResponse, ScoreSession


@dataclass(frozen=True)
class Purged:
    """What a purge removed."""

    comparisons: int
    calls: int
    score_sessions: int = 0
    score_calls: int = 0
    canaries: int = 0
    # Canary items kept that are copies of purged comparisons: their texts stay until their
    # canary goes (`include_canaries` for canaries created before the cutoff).
    canary_copies_kept: int = 0


async def purge(
    session: AsyncSession,
    cutoff: datetime,
    *,
    texts_only: bool,
    include_canaries: bool = False,
    dry_run: bool = False,
) -> Purged:
    """Remove comparisons and score sessions created before `cutoff` (never running ones), or
    only their texts, and with `include_canaries` the canaries created before it; one
    transaction. A `dry_run` runs the same statements and rolls them back: its counts are what
    the purge would remove, by the same code."""
    copies_kept = await canary_copies_kept(session, cutoff, include_canaries=include_canaries)
    comparisons, calls = await purge_comparisons(
        session, cutoff, texts_only=texts_only, include_canaries=include_canaries
    )
    sessions, score_calls = await purge_score_sessions(session, cutoff, texts_only=texts_only)
    canaries = 0
    if include_canaries:
        deleted = await session.execute(delete(Canary).where(Canary.created_at < cutoff))
        canaries = rowcount(deleted)
    await (session.rollback() if dry_run else session.commit())
    return Purged(comparisons, calls, sessions, score_calls, canaries, copies_kept)


async def canary_copies_kept(
    session: AsyncSession, cutoff: datetime, *, include_canaries: bool
) -> int:
    """Items of the canaries a purge keeps that copy a traffic comparison it purges."""
    purged = select(Comparison.id).where(
        Comparison.created_at < cutoff,
        Comparison.status.not_in(UNFINISHED),
        Comparison.origin == "traffic",
    )
    kept = select(Canary.id)
    if include_canaries:
        kept = kept.where(Canary.created_at >= cutoff)
    query = select(func.count()).where(
        CanaryItem.source_id.in_(purged), CanaryItem.canary_id.in_(kept)
    )
    return int(await session.scalar(query) or 0)


async def purge_comparisons(
    session: AsyncSession, cutoff: datetime, *, texts_only: bool, include_canaries: bool = False
) -> tuple[int, int]:
    """(comparisons, calls) deleted or stripped of their texts; `canary` ones only when asked."""
    old = select(Comparison.id).where(
        Comparison.created_at < cutoff,
        Comparison.status.not_in(UNFINISHED),
        *([] if include_canaries else [Comparison.origin == "traffic"]),
    )
    if texts_only:
        comparisons = await session.execute(
            update(Comparison)
            .where(Comparison.id.in_(old))
            .values(prompt=None, response_a=None, response_b=None, reference=None, criteria=None)
        )
        calls = await session.execute(
            update(JudgeCall)
            .where(JudgeCall.comparison_id.in_(old))
            .values(raw_output=None, error=None)
        )
        return rowcount(comparisons), rowcount(calls)
    return await delete_stopped(session, old)


async def purge_score_sessions(
    session: AsyncSession, cutoff: datetime, *, texts_only: bool
) -> tuple[int, int]:
    """(score sessions, calls) deleted or stripped of their texts; a deleted session's
    responses, scores and tags go with it (foreign keys cascade)."""
    old = select(ScoreSession.id).where(
        ScoreSession.created_at < cutoff, ScoreSession.status != JobStatus.RUNNING
    )
    if texts_only:
        await session.execute(
            update(ScoreResponse).where(ScoreResponse.session_id.in_(old)).values(text=None)
        )
        sessions = await session.execute(
            update(ScoreSession).where(ScoreSession.id.in_(old)).values(prompt=None, criteria=None)
        )
        calls = await session.execute(
            update(ScoreCall)
            .where(ScoreCall.session_id.in_(old))
            .values(raw_output=None, error=None)
        )
    else:
        calls = await session.execute(delete(ScoreCall).where(ScoreCall.session_id.in_(old)))
        sessions = await session.execute(delete(ScoreSession).where(ScoreSession.id.in_(old)))
    return rowcount(sessions), rowcount(calls)
