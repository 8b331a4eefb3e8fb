"""Closing jobs that nobody will finish: cancelled at shutdown, or left `running` by a killed
process. One rule for every kind: `partial` when a judge answered, else `failed` (which releases
the Idempotency-Key), both with `error_kind` interrupted. A `partial` job then keeps what its
stored calls add up to: the kind's `conclude_partial` writes it (a comparison's verdict from the
judges that finished), so an interruption never throws away a result the calls had reached.

A killed process's job is closed by the periodic sweep, or sooner when it is next read or
replayed. A `waiting` job (held by something outside, not by a process) is never closed here.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Generic, TypeVar

import structlog
from sqlalchemy import ColumnElement, exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import InstrumentedAttribute

from app.background import running, survive
from app.db import Base, rowcount, utcnow
from app.jobs.models import JobColumns, JobStatus, StoredCall
from app.jobs.writes import GroupCommit

log = structlog.get_logger()

RowT = TypeVar("RowT", bound=JobColumns)

# Writes what the stored calls of interrupted jobs (by id) add up to, in the closing session.
ConcludePartial = Callable[[AsyncSession, Sequence[str]], Awaitable[None]]


@dataclass(frozen=True)
class JobTables(Generic[RowT]):
    """Where a kind stores its jobs (rows of `RowT`) and calls, as the kernel needs to know them."""

    name: str  # how logs and counts name the kind: "comparisons", "score_sessions"
    job: type[RowT]
    call: type[StoredCall]
    call_job_id: InstrumentedAttribute[str]  # the call's column naming its job
    tags: tuple[type[Base], str]  # the tag table and its column naming the job
    answered: ColumnElement[bool]  # a call that produced a usable answer
    # A kind whose partial jobs keep a result from their calls writes it with this.
    conclude_partial: ConcludePartial | None = None

    @classmethod
    def of(
        cls,
        job: type[RowT],
        call: type[StoredCall],
        tags: type[Base],
        answered: ColumnElement[bool],
        conclude_partial: ConcludePartial | None = None,
    ) -> JobTables[RowT]:
        """The tables of a kind, the columns naming the job read from their foreign keys."""
        return cls(
            name=job.__tablename__,  # type: ignore[attr-defined]
            job=job,
            call=call,
            call_job_id=getattr(call, _column_naming(call, job)),
            tags=(tags, _column_naming(tags, job)),
            answered=answered,
            conclude_partial=conclude_partial,
        )

    def running(
        self, job_id: str | None = None, grace_s: float | None = None
    ) -> ColumnElement[bool]:
        """Running jobs to close: one by id, and/or every one past its deadline plus `grace_s`."""
        job = self.job
        condition = job.status == JobStatus.RUNNING
        if job_id is not None:
            condition &= job.id == job_id
        if grace_s is not None:
            condition &= job.deadline_at < utcnow() - timedelta(seconds=grace_s)
        return condition


def _column_naming(table: type[Base], job: type[JobColumns]) -> str:
    """The column of `table` that refers to the job table."""
    job_table = job.__table__  # type: ignore[attr-defined]
    columns = table.__table__.columns
    return next(
        c.key for c in columns if any(fk.column.table is job_table for fk in c.foreign_keys)
    )


async def close_interrupted(
    session: AsyncSession, tables: JobTables[Any], condition: ColumnElement[bool]
) -> int:
    """Mark the running jobs matching `condition` `partial` (a judge answered) or `failed`;
    the kind concludes what its partial jobs' calls add up to."""
    job = tables.job
    answered = exists(select(tables.call.id).where(tables.call_job_id == job.id, tables.answered))
    now = utcnow()
    partial = await session.execute(
        update(job)
        .where(condition, answered)
        .values(status=JobStatus.PARTIAL, error_kind="interrupted", completed_at=now)
        .returning(job.id)
    )
    partial_ids = list(partial.scalars())
    if partial_ids and tables.conclude_partial is not None:
        await tables.conclude_partial(session, partial_ids)
    failed = await session.execute(
        update(job)
        .where(condition)
        .values(
            status=JobStatus.FAILED,
            error_kind="interrupted",
            completed_at=now,
            idempotency_key=None,
        )
    )
    return len(partial_ids) + rowcount(failed)


async def close_if_orphaned(
    session: AsyncSession, tables: JobTables[Any], row: JobColumns, grace_s: float
) -> None:
    """Close one job, as it is read, if a killed process left it running past its deadline."""
    if row.status != JobStatus.RUNNING:
        return
    if await close_interrupted(session, tables, tables.running(row.id, grace_s)):
        await session.commit()
        await session.refresh(row)


async def mark_interrupted(
    sessionmaker: async_sessionmaker[AsyncSession],
    tables: JobTables[Any],
    job_id: str,
    writes: GroupCommit,
) -> None:
    """Close a job whose calls were cancelled (shutdown); the sweeper's rule, applied at once."""
    await writes.wait_idle()  # calls already handed over are stored, then counted
    async with sessionmaker() as session:
        await close_interrupted(session, tables, tables.running(job_id))
        await session.commit()


async def sweep(
    sessionmaker: async_sessionmaker[AsyncSession], kinds: Sequence[JobTables[Any]], grace_s: float
) -> int:
    """Close every kind's running jobs past their deadline plus a grace period."""
    async with sessionmaker() as session:
        closed = {
            t.name: await close_interrupted(session, t, t.running(None, grace_s)) for t in kinds
        }
        await session.commit()
    if any(closed.values()):
        log.warning("swept_interrupted", **closed)
    return sum(closed.values())


async def _sweep_forever(
    sessionmaker: async_sessionmaker[AsyncSession],
    kinds: Sequence[JobTables[Any]],
    interval_s: float,
    grace_s: float,
) -> None:
    while True:
        await asyncio.sleep(interval_s)
        try:
            await sweep(sessionmaker, kinds, grace_s)
        except Exception as exc:  # an outage must not kill the loop; the next round retries
            survive(exc)
            log.warning("sweep_failed", error=type(exc).__name__)


@contextlib.asynccontextmanager
async def run_sweeper(
    sessionmaker: async_sessionmaker[AsyncSession],
    kinds: Sequence[JobTables[Any]],
    interval_s: float,
    grace_s: float,
) -> AsyncIterator[None]:
    """Sweep once now, then every `interval_s` while the app runs."""
    await sweep(sessionmaker, kinds, grace_s)
    async with running(_sweep_forever(sessionmaker, kinds, interval_s, grace_s)):
        yield
