"""The group commit merges what a batch of jobs writes: their new rows go in one INSERT a table,
their calls in one (before which the rows they refer to), their final columns in one
executemany; every job's rows end up as if written alone."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, func, select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.comparisons.service import CompareKind
from app.db import utcnow
from app.jobs.kind import CallWriter
from app.jobs.lifecycle import write_final
from app.jobs.writes import GroupCommit, StagedCall, Work
from app.ledger.models import Comparison, JudgeCall
from tests.comparisons.test_group_commit import group_commit, maker
from tests.support.rows import call_row, comparison_row

__all__ = ["group_commit", "maker"]  # fixtures


def new_row() -> dict[str, Any]:
    return comparison_row(str(uuid.uuid4()), utcnow(), status="running", completed_at=None)


async def stored(maker: async_sessionmaker[AsyncSession], job_id: str) -> tuple[str | None, int]:
    """The job's status (None when its row is not in) and how many of its calls are in."""
    async with maker() as session:
        status = await session.scalar(select(Comparison.status).where(Comparison.id == job_id))
        calls = await session.scalar(select(func.count()).where(JudgeCall.comparison_id == job_id))
    return status, int(calls or 0)


def record_statements(maker: async_sessionmaker[AsyncSession]) -> list[tuple[str, bool]]:
    """(the statement's first words, executemany) of every statement sent."""
    engine: Any = maker.kw["bind"]
    sent: list[tuple[str, bool]] = []

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _record(*args: Any) -> None:
        sql, many = args[2], args[5]
        sent.append((" ".join(sql.split()[:3]), bool(many)))

    return sent


async def test_new_rows_and_their_calls_handed_over_together_go_in_one_insert_each(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    writes = group_commit(max_flushes=1)
    sent = record_statements(maker)
    rows = [new_row() for _ in range(3)]
    works = [
        Work([(Comparison, [row])], CompareKind.sink, [StagedCall(call_row(row["id"], 0))])
        for row in rows
    ]

    await asyncio.gather(*(writes.commit(work) for work in works))

    inserts = [statement for statement, _ in sent if statement.startswith("INSERT INTO")]
    assert inserts.count("INSERT INTO comparisons") == 1
    assert inserts.count("INSERT INTO judge_calls") == 1
    for row in rows:
        assert await stored(maker, row["id"]) == ("running", 1)


async def test_final_columns_of_jobs_finishing_together_go_in_one_executemany(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    writes = group_commit(max_flushes=1)
    rows = [new_row() for _ in range(3)]
    await writes.commit(Work([(Comparison, rows)]))
    sent = record_statements(maker)

    async def finish(row: dict[str, Any], winner: str) -> bool:
        values = {"status": "complete", "winner": winner, "completed_at": utcnow()}
        return await write_final(CompareKind.tables, row["id"], values, writes)

    assert await asyncio.gather(*(finish(row, w) for row, w in zip(rows, "ABA", strict=True)))

    assert [many for statement, many in sent if statement.startswith("UPDATE")] == [True]
    async with maker() as session:
        found = await session.execute(select(Comparison.id, Comparison.winner))
        winners: dict[str, str | None] = dict(found.all())
    assert [winners[row["id"]] for row in rows] == ["A", "B", "A"]


async def test_a_jobs_calls_wait_for_its_row_written_beside_the_judges(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    """As `run_request` without an Idempotency-Key: the row's write starts first, the calls
    hand theirs over once it is in (they refer to it), and both calls may share a transaction."""
    writes = group_commit()
    row = new_row()
    reserved = asyncio.create_task(writes.commit(Work([(Comparison, [row])])))
    writer = CallWriter(CompareKind.sink, writes, reserved)

    await asyncio.gather(*(writer.store(StagedCall(call_row(row["id"], r))) for r in (0, 1)))

    assert writer.unsaved == 0
    assert await stored(maker, row["id"]) == ("running", 2)
