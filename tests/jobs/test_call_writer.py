"""The request path's writes of one job: its row rides with its first call, its last call waits
for the verdict and commits with it; nothing handed to the writer is dropped."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.comparisons.models import Comparison, JudgeCall
from app.comparisons.service import COMPARISONS
from app.db import utcnow
from app.jobs.lifecycle import CallWriter, final_parameters, final_update
from app.jobs.writes import GroupCommit, StagedCall, Updates
from tests.comparisons.test_group_commit import count_commits, group_commit, maker
from tests.support.rows import call_row, comparison_row

__all__ = ["group_commit", "maker"]  # fixtures


def new_job() -> tuple[str, list[tuple[Any, list[dict[str, Any]]]]]:
    """A comparison not stored yet, as `run_request` hands its row to the writer."""
    job_id = str(uuid.uuid4())
    row = comparison_row(job_id, utcnow(), status="running", completed_at=None)
    return job_id, [(Comparison, [row])]


def verdict(job_id: str) -> Updates:
    values = {"status": "complete", "winner": "A", "confidence": 0.9, "completed_at": utcnow()}
    return [(final_update(Comparison.__table__, tuple(values)), final_parameters(job_id, values))]


async def stored(maker: async_sessionmaker[AsyncSession], job_id: str) -> tuple[str | None, int]:
    """The job's status (None when its row is not in) and how many of its calls are in."""
    async with maker() as session:
        status = await session.scalar(select(Comparison.status).where(Comparison.id == job_id))
        calls = await session.scalar(select(func.count()).where(JudgeCall.comparison_id == job_id))
    return status, int(calls or 0)


async def test_a_new_jobs_row_rides_with_its_first_call(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    job_id, rows = new_job()
    commits = count_commits(maker)
    writer = CallWriter(COMPARISONS.sink, group_commit(), rows)
    assert not await writer.job_stored()  # nothing carried it yet

    await writer.store(StagedCall(call_row(job_id, 0)))

    assert commits == [1]
    assert await writer.job_stored()
    assert await stored(maker, job_id) == ("running", 1)
    await writer.store(StagedCall(call_row(job_id, 1)))
    assert commits == [2]
    assert await stored(maker, job_id) == ("running", 2)


async def test_the_last_call_waits_for_the_verdict_and_commits_with_it(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    job_id, rows = new_job()
    commits = count_commits(maker)
    writer = CallWriter(COMPARISONS.sink, group_commit(), rows, defer_last=True)
    await writer.store(StagedCall(call_row(job_id, 0)))
    await writer.store(StagedCall(call_row(job_id, 1)), last=True)
    assert await stored(maker, job_id) == ("running", 1)  # held for the verdict

    assert await writer.close(verdict(job_id))

    assert commits == [2]  # three before: the row, the calls, the verdict
    assert await stored(maker, job_id) == ("complete", 2)


async def test_a_job_whose_only_call_is_its_last_is_one_transaction(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    job_id, rows = new_job()
    commits = count_commits(maker)
    writer = CallWriter(COMPARISONS.sink, group_commit(), rows, defer_last=True)
    await writer.store(StagedCall(call_row(job_id, 0)), last=True)

    assert await writer.close(verdict(job_id))

    assert commits == [1]
    assert await stored(maker, job_id) == ("complete", 1)


async def test_held_back_calls_are_stored_without_a_verdict_too(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    """What a cancelled job (`close_cancelled`) or a failing verdict does: the calls the judges
    answered are stored, with the row they need, and the job stays running for the sweeper."""
    job_id, rows = new_job()
    writer = CallWriter(COMPARISONS.sink, group_commit(), rows, defer_last=True)
    await writer.store(StagedCall(call_row(job_id, 0)), last=True)

    assert await writer.close()

    assert await stored(maker, job_id) == ("running", 1)
    assert await writer.job_stored()


async def test_rows_of_jobs_committed_together_go_in_one_insert(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    writes = group_commit(max_flushes=1)
    engine: Any = maker.kw["bind"]
    statements: list[str] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _record(_c: object, _cur: object, sql: str, *_args: object) -> None:
        statements.append(sql.split("(")[0].strip())

    jobs = [new_job() for _ in range(3)]
    writers = [CallWriter(COMPARISONS.sink, writes, rows) for _, rows in jobs]
    firsts = [StagedCall(call_row(job_id, 0)) for job_id, _ in jobs]
    await asyncio.gather(*(w.store(c) for w, c in zip(writers, firsts, strict=True)))

    assert statements.count("INSERT INTO comparisons") == 1
    assert statements.count("INSERT INTO judge_calls") == 1
    for job_id, _ in jobs:
        assert await stored(maker, job_id) == ("running", 1)
