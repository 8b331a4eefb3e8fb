"""Group commit of the request path's writes: shared transactions, isolated failures, no loss."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import bindparam, event, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, create_sessionmaker, utcnow
from app.errors import DATABASE_ERRORS
from app.jobs.writes import GroupCommit, StagedCall, Work, _Merged, _Pending
from app.ledger.models import Comparison, ComparisonTag
from app.scoring.fanout import ScoreCalls


@pytest.fixture
async def maker(clean_pg: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(clean_pg)
    yield create_sessionmaker(engine)
    await engine.dispose()


@pytest.fixture
async def group_commit(
    maker: async_sessionmaker[AsyncSession],
) -> AsyncIterator[Callable[..., GroupCommit]]:
    """GroupCommits on the test's database, closed (their kept connections given back) after."""
    made: list[GroupCommit] = []

    def make(**options: Any) -> GroupCommit:
        made.append(GroupCommit(maker, **options))
        return made[-1]

    yield make
    for writes in made:
        await writes.aclose()


async def a_comparison(maker: async_sessionmaker[AsyncSession]) -> str:
    now = utcnow()
    comparison = Comparison(
        id=str(uuid.uuid4()),
        created_at=now,
        deadline_at=now + timedelta(seconds=60),
        status="running",
        request_hash="0" * 64,
        prompt="p",
        response_a="a",
        response_b="b",
        len_a=1,
        len_b=1,
        placebo=False,
        protocol="swap",
        protocol_params={"kind": "swap"},
        planned_rounds=2,
        self_preference="exclude",
        timeout_s=60,
        simulated=True,
        self_preference_risk=False,
        panel={"judges": [], "excluded": []},
    )
    async with maker() as session:
        session.add(comparison)
        await session.commit()
    return comparison.id


def tag(comparison_id: str, key: str) -> Work:
    return Work(
        rows=[(ComparisonTag, [{"comparison_id": comparison_id, "key": key, "value": "v"}])]
    )


def count_commits(maker: async_sessionmaker[AsyncSession]) -> list[int]:
    commits = [0]
    engine: Any = maker.kw["bind"]

    @event.listens_for(engine.sync_engine, "commit")
    def _count(_connection: object) -> None:
        commits[0] += 1

    return commits


def driver_queries(maker: async_sessionmaker[AsyncSession]) -> list[str]:
    """BEGIN and COMMIT as the driver sends them on the engine's connections made from now on
    (SQLAlchemy's events do not see those; asyncpg's logger does not see prepared statements)."""
    engine: Any = maker.kw["bind"]
    sent: list[str] = []

    @event.listens_for(engine.sync_engine, "connect")
    def _log(dbapi_connection: Any, _record: object) -> None:
        log = lambda record: sent.append(record.query.split()[0].rstrip(";").upper())  # noqa: E731
        dbapi_connection.driver_connection.add_query_logger(log)

    return sent


async def stored_tags(maker: async_sessionmaker[AsyncSession], comparison_id: str) -> int:
    async with maker() as session:
        query = select(func.count()).where(ComparisonTag.comparison_id == comparison_id)
        return int(await session.scalar(query) or 0)


async def test_writes_handed_over_together_share_one_transaction(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    comparison_id = await a_comparison(maker)
    commits = count_commits(maker)
    writes = group_commit(max_flushes=1)
    await asyncio.gather(*(writes.commit(tag(comparison_id, f"k{i}")) for i in range(10)))
    assert commits[0] == 1
    assert await stored_tags(maker, comparison_id) == 10


async def test_an_idle_process_commits_each_write_at_once(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    comparison_id = await a_comparison(maker)
    commits = count_commits(maker)
    writes = group_commit()
    for i in range(3):
        await writes.commit(tag(comparison_id, f"k{i}"))
        assert commits[0] == i + 1


async def test_a_conflicting_write_fails_alone(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    comparison_id = await a_comparison(maker)
    await group_commit().commit(tag(comparison_id, "taken"))
    writes = group_commit(max_flushes=1)
    outcomes = await asyncio.gather(
        *(writes.commit(tag(comparison_id, key)) for key in ("a", "taken", "b")),
        return_exceptions=True,
    )
    assert outcomes[::2] == [None, None]
    assert isinstance(outcomes[1], IntegrityError)
    assert await stored_tags(maker, comparison_id) == 3


async def test_a_cancelled_caller_still_gets_its_write_committed(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    comparison_id = await a_comparison(maker)
    writes = group_commit()
    caller = asyncio.create_task(writes.commit(tag(comparison_id, "k")))
    await asyncio.sleep(0)
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await writes.wait_idle()
    assert await stored_tags(maker, comparison_id) == 1


async def test_an_unreachable_database_reaches_every_writer() -> None:
    engine = create_engine("postgresql+asyncpg://root@127.0.0.1:9/nowhere")
    writes = GroupCommit(create_sessionmaker(engine), max_flushes=1)
    outcomes = await asyncio.gather(
        *(writes.commit(tag("c", f"k{i}")) for i in range(3)), return_exceptions=True
    )
    await engine.dispose()
    assert all(isinstance(outcome, DATABASE_ERRORS) for outcome in outcomes)


def count_checkouts(maker: async_sessionmaker[AsyncSession]) -> list[int]:
    checkouts = [0]
    engine: Any = maker.kw["bind"]

    @event.listens_for(engine.sync_engine, "checkout")
    def _count(*_args: object) -> None:
        checkouts[0] += 1

    return checkouts


async def test_the_connection_is_kept_between_transactions_and_given_back_at_close(
    maker: async_sessionmaker[AsyncSession],
) -> None:
    comparison_id = await a_comparison(maker)
    checkouts = count_checkouts(maker)
    writes = GroupCommit(maker)
    for i in range(5):
        await writes.commit(tag(comparison_id, f"k{i}"))
    assert checkouts[0] == 1
    pool: Any = maker.kw["bind"].sync_engine.pool
    assert pool.checkedout() == 1
    await writes.aclose()
    assert pool.checkedout() == 0


async def test_a_kept_connection_the_server_dropped_fails_one_write_and_is_replaced(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    comparison_id = await a_comparison(maker)
    writes = group_commit()
    await writes.commit(tag(comparison_id, "before"))
    async with maker() as session:  # a restart or an operator ends the kept connection
        await session.execute(
            text(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE datname = current_database() AND pid <> pg_backend_pid()"
            )
        )
    with pytest.raises(DATABASE_ERRORS):
        await writes.commit(tag(comparison_id, "lost"))
    await writes.commit(tag(comparison_id, "after"))
    assert await stored_tags(maker, comparison_id) == 2


async def test_a_kept_connection_idle_too_long_is_dropped_not_reused(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    comparison_id = await a_comparison(maker)
    writes = group_commit()
    await writes.commit(tag(comparison_id, "before"))
    kept, used_at = writes._held[True][0]  # one statement: an autocommitting connection
    driver: Any = (await kept.get_raw_connection()).driver_connection
    # As if it had sat unused past the idle limit (during which the server may have restarted):
    # given back to the pool, it would count as fresh and skip the pool's ping.
    writes._held[True][0] = (kept, used_at - 60)
    await writes.commit(tag(comparison_id, "after"))
    assert driver.is_closed()
    assert await stored_tags(maker, comparison_id) == 2


async def test_one_statement_goes_without_begin_and_commit_and_more_in_a_transaction(
    maker: async_sessionmaker[AsyncSession], group_commit: Callable[..., GroupCommit]
) -> None:
    sent = driver_queries(maker)  # before the engine's first connection
    comparison_id = await a_comparison(maker)
    writes = group_commit()
    finish = update(Comparison).where(Comparison.id == bindparam("job")).values(status="complete")

    sent.clear()
    await writes.commit(tag(comparison_id, "alone"))
    alone = list(sent)
    sent.clear()
    two = Work(tag(comparison_id, "with").rows, updates=[(finish, {"job": comparison_id})])
    await writes.commit(two)

    assert alone == []  # the INSERT is atomic by itself: one round trip, no BEGIN or COMMIT
    assert sent == ["BEGIN", "COMMIT"]  # around the INSERT and the UPDATE
    assert await stored_tags(maker, comparison_id) == 2
    async with maker() as session:
        assert await session.scalar(select(Comparison.status)) == "complete"


async def test_a_call_with_children_counts_as_two_statements_so_it_goes_in_a_transaction() -> None:
    def pending(work: Work) -> _Pending:
        return _Pending(asyncio.get_running_loop().create_future(), work)

    scored = StagedCall({"session_id": "s"}, children=[{"score": 1.0}])
    failed = StagedCall({"session_id": "s"})
    assert _Merged.of([pending(Work(sink=ScoreCalls(), calls=[failed]))]).statements == 1
    assert _Merged.of([pending(Work(sink=ScoreCalls(), calls=[failed, scored]))]).statements == 2
    assert _Merged.of([pending(tag("c", "k")), pending(tag("d", "k"))]).statements == 1


async def test_a_write_handed_over_as_the_last_flusher_ends_is_committed(
    maker: async_sessionmaker[AsyncSession],
    group_commit: Callable[..., GroupCommit],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hang of issue 36: a task's done callbacks run one loop step after it returns, so a
    writer woken in that step (here by the future the transaction sets as it ends, as a judge's
    answer or another commit's waiter would be) once saw the finished flusher still counted,
    started none, and waited for a commit that nothing would ever make."""
    comparison_id = await a_comparison(maker)
    writes = group_commit(max_flushes=1)
    transaction = writes._transaction
    first_committed = asyncio.get_running_loop().create_future()

    async def then_wake_the_writer(batch: list[_Pending]) -> None:
        await transaction(batch)
        if not first_committed.done():
            # Wakes `late` in the next step, before the flusher's done callback runs.
            first_committed.set_result(None)

    monkeypatch.setattr(writes, "_transaction", then_wake_the_writer)

    async def late() -> None:
        await first_committed
        await writes.commit(tag(comparison_id, "late"))

    writer = asyncio.create_task(late())
    await writes.commit(tag(comparison_id, "first"))
    async with asyncio.timeout(10):  # a bound, not a measurement: the write never came before
        await writer
    assert await stored_tags(maker, comparison_id) == 2


async def test_writes_queued_behind_a_cancelled_flusher_hear_it_at_once(
    maker: async_sessionmaker[AsyncSession],
    group_commit: Callable[..., GroupCommit],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    writes = group_commit(max_flushes=1)
    never = asyncio.Event()

    async def stuck(_batch: list[_Pending]) -> None:
        await never.wait()

    monkeypatch.setattr(writes, "_transaction", stuck)
    first = asyncio.create_task(writes.commit(tag("c", "first")))
    await asyncio.sleep(0)
    queued = asyncio.create_task(writes.commit(tag("c", "queued")))
    await asyncio.sleep(0)
    (flusher,) = writes._flushers
    flusher.cancel()  # what a loop's shutdown does to its tasks
    async with asyncio.timeout(10):
        outcomes = await asyncio.gather(first, queued, return_exceptions=True)
    assert all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes)
    assert not writes._flushers
