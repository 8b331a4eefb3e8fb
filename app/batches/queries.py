"""Read side of batches: status and counts aggregated in SQL, results in submission order."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, Subquery, case, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.batches.models import (
    Batch,
    BatchItem,
    BatchStatus,
    ItemStatus,
    ProviderJob,
    ProviderJobState,
)
from app.batches.schemas import (
    BatchCounts,
    BatchItemList,
    BatchItemRead,
    BatchList,
    BatchRead,
    ItemError,
    ProviderJobRead,
)
from app.comparisons import queries as comparison_queries
from app.comparisons.schemas import ComparisonRead
from app.errors import NotFound, ValidationProblem
from app.ledger.models import Comparison, JudgeCall
from app.params import as_utc, before_cursor, encode_time_cursor
from app.scoring import answers
from app.scoring import queries as score_queries
from app.scoring.models import ScoreCall
from app.scoring.schemas import ScoreSessionRead


def batch_status(batch: Batch, counts: BatchCounts) -> BatchStatus:
    """Derived from the items: nothing is written to the batch row as items finish.

    A cancellation says what happened to the items: while items it could not stop still run
    the batch is `running` (with `cancelled_at` set), and it ends `cancelled` only when it
    stopped something: an item never started, or in provider mode the calls of waiting items
    (those items end `failed`, their calls `cancelled`). A cancel that came after every live
    item had started changed nothing, and the batch ends `completed` or `failed` like any other.
    """
    if counts.queued + counts.running + counts.waiting:
        started = counts.running + counts.waiting + counts.completed + counts.failed
        return (
            BatchStatus.RUNNING if started or batch.cancelled_at is not None else BatchStatus.QUEUED
        )
    stopped = counts.cancelled or (batch.mode == "provider" and counts.failed)
    if batch.cancelled_at is not None and stopped:
        return BatchStatus.CANCELLED
    if counts.failed and not counts.completed:
        return BatchStatus.FAILED
    return BatchStatus.COMPLETED


def new_batch_read(batch: Batch) -> BatchRead:
    """A batch just stored: every item queued."""
    return BatchRead(
        id=batch.id,
        mode=batch.mode,
        status=BatchStatus.QUEUED,
        total=batch.item_count,
        counts=BatchCounts(queued=batch.item_count),
        progress=0.0,
        calls=0,
        cost_usd=0.0,
        created_at=batch.created_at,
        started_at=None,
        finished_at=None,
        cancelled_at=None,
    )


async def read_batch(session: AsyncSession, batch: Batch) -> BatchRead:
    """Status, counts, times and cost so far (three aggregate queries), and in provider mode
    the provider jobs."""
    rows = await session.execute(
        select(
            BatchItem.status,
            func.count(),
            func.min(BatchItem.started_at),
            func.max(BatchItem.finished_at),
        )
        .where(BatchItem.batch_id == batch.id)
        .group_by(BatchItem.status)
    )
    by_status: dict[str, int] = {}
    starts: list[datetime] = []
    ends: list[datetime] = []
    for status, count, started_at, finished_at in rows:
        by_status[status] = count
        starts += [started_at] if started_at else []
        ends += [finished_at] if finished_at else []
    counts = BatchCounts(**by_status)
    calls, cost, unpriced = await call_totals(session, batch.id)
    status = batch_status(batch, counts)
    finished = counts.completed + counts.failed + counts.cancelled
    unfinished = counts.queued + counts.running + counts.waiting
    return BatchRead(
        id=batch.id,
        mode=batch.mode,
        status=status,
        total=batch.item_count,
        counts=counts,
        progress=round(finished / batch.item_count, 4) if batch.item_count else 1.0,
        calls=calls,
        cost_usd=cost,
        unpriced_calls=unpriced,
        created_at=batch.created_at,
        started_at=min(starts) if starts else None,
        finished_at=max(ends) if ends and not unfinished else None,
        cancelled_at=batch.cancelled_at,
        provider_jobs=await provider_jobs(session, batch) if batch.mode == "provider" else [],
    )


async def provider_jobs(session: AsyncSession, batch: Batch) -> list[ProviderJobRead]:
    """The batch's jobs at the providers' batch APIs, oldest first."""
    jobs = await session.scalars(
        select(ProviderJob)
        .where(ProviderJob.batch_id == batch.id)
        .order_by(ProviderJob.created_at, ProviderJob.id)
    )
    return [
        ProviderJobRead(
            judge=job.judge_name,
            provider=job.provider,
            id=job.external_id,
            state=job.state,
            provider_state=job.provider_state,
            requests=job.request_count,
            # A job that failed whole (or was refused) ran none of its requests: the provider's
            # own counts say 0 failed, but every request failed in it (and was submitted again
            # or failed as a call).
            succeeded=0 if job.state == ProviderJobState.FAILED else job.succeeded,
            failed=job.request_count if job.state == ProviderJobState.FAILED else job.failed,
            submitted_at=job.submitted_at,
            ended_at=job.ended_at,
            expires_at=job.expires_at,
        )
        for job in jobs
    ]


async def call_totals(session: AsyncSession, batch_id: str) -> tuple[int, float, int]:
    """(judge calls, the cost of the priced ones, answered calls without a price) stored so far
    by the batch's comparisons and score sessions."""
    calls, cost, unpriced = 0, 0.0, 0
    for call, target in (
        (JudgeCall, JudgeCall.comparison_id),
        (ScoreCall, ScoreCall.session_id),
    ):
        no_price = (call.cost_usd.is_(None) & call.tokens_in.is_not(None)).cast(Integer)
        count, total, unknown = (
            await session.execute(
                select(
                    func.count(call.id),
                    func.coalesce(func.sum(call.cost_usd), 0.0),
                    func.coalesce(func.sum(no_price), 0),
                )
                .join(BatchItem, BatchItem.target_id == target)
                .where(BatchItem.batch_id == batch_id)
            )
        ).one()
        calls, cost = calls + int(count), cost + float(total or 0.0)
        unpriced += int(unknown or 0)
    return calls, cost, unpriced


async def stored_batch(session: AsyncSession, batch_id: str) -> Batch:
    """The batch's row, or 404."""
    batch = await session.get(Batch, batch_id)
    if batch is None:
        raise NotFound(f"no batch with id '{batch_id}'")
    return batch


async def get_batch(session: AsyncSession, batch_id: str) -> BatchRead:
    """One batch by id, or 404."""
    return await read_batch(session, await stored_batch(session, batch_id))


def encode_cursor(position: int) -> str:
    """An opaque cursor after the item at `position`."""
    return base64.urlsafe_b64encode(f"p{position}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    """The position a cursor points after; 422 when it is not one of ours."""
    try:
        raw = base64.urlsafe_b64decode(cursor.encode()).decode()
        if not raw.startswith("p"):
            raise ValueError(raw)
        return int(raw[1:])
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise ValidationProblem("/cursor: not a valid cursor") from exc


def item_read(
    item: BatchItem, comparison: ComparisonRead | None, score_session: ScoreSessionRead | None
) -> BatchItemRead:
    """One item as the API shows it (never its payload)."""
    failed = item.status == ItemStatus.FAILED
    return BatchItemRead(
        position=item.position,
        item_id=item.item_id,
        kind=item.kind,
        status=item.status,
        comparison_id=item.target_id if item.kind == "compare" else None,
        score_session_id=item.target_id if item.kind == "score" else None,
        comparison=comparison,
        score_session=score_session,
        error=ItemError(type=item.error_kind or "error", detail=item.error or "")
        if failed
        else None,
        attempts=item.attempts,
        started_at=item.started_at,
        finished_at=item.finished_at,
    )


async def list_results(
    session: AsyncSession, batch_id: str, *, limit: int, cursor: str | None, status: str | None
) -> BatchItemList:
    """A page of items in submission order, each with its comparison or score session once one
    is stored."""
    await stored_batch(session, batch_id)
    query: Any = select(BatchItem).where(BatchItem.batch_id == batch_id)
    if status:
        query = query.where(BatchItem.status == status)
    if cursor:
        query = query.where(BatchItem.position > decode_cursor(cursor))
    rows = list(await session.scalars(query.order_by(BatchItem.position).limit(limit + 1)))
    page = rows[:limit]
    compared = [i.target_id for i in page if i.kind == "compare"]
    found = (
        list(await session.scalars(select(Comparison).where(Comparison.id.in_(compared))))
        if compared
        else []
    )
    reads = {c.id: c for c in await comparison_queries.read_many(session, found)}
    scored = [i.target_id for i in page if i.kind == "score"]
    sessions = {
        stored.session.id: answers.to_read(stored)
        for stored in await score_queries.load_sessions(session, scored)
    }
    return BatchItemList(
        items=[
            item_read(item, reads.get(item.target_id), sessions.get(item.target_id))
            for item in page
        ],
        next_cursor=encode_cursor(page[-1].position) if len(rows) > limit else None,
    )


def item_counts() -> Subquery:
    """Per batch, how many of its items are in each status."""
    by_status = [
        func.sum(case((BatchItem.status == status, 1), else_=0)).label(status.value)
        for status in ItemStatus
    ]
    return select(BatchItem.batch_id, *by_status).group_by(BatchItem.batch_id).subquery()


def status_expression(counts: Subquery) -> ColumnElement[str]:
    """`batch_status` in SQL over `item_counts()` joined to `Batch`, so that a list filters by
    the status it shows (tests/batches/test_batch_list.py holds the two equal)."""
    n = {status: func.coalesce(counts.c[status.value], 0) for status in ItemStatus}
    queued, running, waiting = n[ItemStatus.QUEUED], n[ItemStatus.RUNNING], n[ItemStatus.WAITING]
    completed, failed = n[ItemStatus.COMPLETED], n[ItemStatus.FAILED]
    cancelled = n[ItemStatus.CANCELLED]
    was_cancelled = Batch.cancelled_at.is_not(None)
    stopped = (cancelled > 0) | ((Batch.mode == "provider") & (failed > 0))
    started = (running + waiting + completed + failed > 0) | was_cancelled
    return case(
        (
            queued + running + waiting > 0,
            case((started, BatchStatus.RUNNING.value), else_=BatchStatus.QUEUED.value),
        ),
        (was_cancelled & stopped, BatchStatus.CANCELLED.value),
        ((failed > 0) & (completed == 0), BatchStatus.FAILED.value),
        else_=BatchStatus.COMPLETED.value,
    )


async def list_batches(
    session: AsyncSession,
    *,
    limit: int,
    cursor: str | None,
    status: BatchStatus | None = None,
    mode: str | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
) -> BatchList:
    """A page of batches, newest first (keyset on created_at, id), each read as `get_batch`
    reads it."""
    query = select(Batch)
    if status is not None:
        counts = item_counts()
        query = query.join(counts, counts.c.batch_id == Batch.id, isouter=True).where(
            status_expression(counts) == status.value
        )
    if mode is not None:
        query = query.where(Batch.mode == mode)
    if since is not None:
        query = query.where(Batch.created_at >= as_utc(since))
    if until is not None:
        query = query.where(Batch.created_at < as_utc(until, "until"))
    if cursor:
        query = query.where(before_cursor(Batch.created_at, Batch.id, cursor))
    ordered = query.order_by(Batch.created_at.desc(), Batch.id.desc()).limit(limit + 1)
    rows = list(await session.scalars(ordered))
    page = rows[:limit]
    last = page[-1] if len(rows) > limit else None
    return BatchList(
        items=[await read_batch(session, batch) for batch in page],
        next_cursor=encode_time_cursor(last.created_at, last.id) if last else None,
    )
