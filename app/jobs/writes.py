"""The one write path of judge calls, and group commit for every write of a running job.

`insert_calls` is the only code that inserts judge calls (the group commit calls it; `store_calls`
is the same on a session, for tools and tests): it inserts them and, in the same transaction,
what hangs off them (the scores of a scoring call), where the kind that owns the calls says
(`CallSink`). Pair calls are plain INSERTs: the report's rollups are folded per
comparison once it stopped running, off the answer's path (`app.ledger.folder`). There
are no ORM event hooks.

Group commit: a write is sent the moment it is handed over, unless `max_flushes` transactions are
already in flight; then it waits for one of them and goes with whatever else arrived meanwhile in
the next. An idle process pays one transaction per write; a busy one pays a share of one, which
is where the request path's CPU went (a transaction costs a checkout, a ping, BEGIN and COMMIT
whatever it carries). The calls of one transaction go in one INSERT per kind.

Writes that belong together go as one `Work` (rows, calls, UPDATEs). Within a transaction the
rows of all its works go first (what calls refer to), then the calls, then the updates, each
merged into one statement per table, sink and UPDATE: under load the new jobs' rows of a batch
are one INSERT and their final columns one executemany, instead of a statement each. A batch
that merges to one statement needs no BEGIN and COMMIT on PostgreSQL (`GroupCommit._transaction`).

No-loss: `store` and `commit` return only once their write is committed, and no answer is
sent before every write of the job returned, so a crash can lose only writes nobody was told about,
exactly as with a transaction per write; a write waits for at most the transactions in flight
before it. A caller that is cancelled (shutdown) does not take its write back: it is committed all
the same.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol

from sqlalchemy import Executable, Insert, insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, AsyncSession, async_sessionmaker

from app.db import IDLE_BEFORE_PING_S, Base
from app.jobs.models import StoredCall


@dataclass(frozen=True)
class StagedCall:
    """One call's column values, and rows that refer to it by id (a scoring call's scores)."""

    values: dict[str, Any]
    children: list[dict[str, Any]] = field(default_factory=list)


class CallSink(Protocol):
    """What a kind tells the write path about its calls."""

    @property
    def table(self) -> type[StoredCall]:
        """The calls' table."""
        ...

    @property
    def children(self) -> tuple[type[Base], str] | None:
        """Where a call's children go (a scoring call's scores): their table and the column
        naming the call's id; None for calls that have none."""
        ...


async def store_calls(session: AsyncSession, sink: CallSink, calls: Sequence[StagedCall]) -> None:
    """Insert judge calls and what depends on them, in the session's transaction."""
    await session.flush()  # rows the calls refer to, added through the ORM, go first
    await insert_calls(await session.connection(), sink, calls)


async def insert_calls(
    connection: AsyncConnection, sink: CallSink, calls: Sequence[StagedCall]
) -> None:
    """`store_calls` on a connection's transaction.

    One Core INSERT for all of them: the ORM's unit of work per object cost more CPU than the
    statement.
    """
    table = sink.table
    values = [call.values for call in calls]
    if not with_children(calls):
        # Nothing refers to them: no ids to return (pair calls, failed scoring calls).
        await connection.execute(insert(table), values[0] if len(values) == 1 else values)
        return
    statement = insert(table).returning(table.id, sort_by_parameter_order=True)
    inserted = await connection.execute(statement, values)
    assert sink.children is not None, f"{table.__name__} calls have no children"
    child_table, call_column = sink.children
    rows = [
        {**child, call_column: call_id}
        for call, call_id in zip(calls, inserted.scalars(), strict=True)
        for child in call.children
    ]
    await connection.execute(insert(child_table), rows)


def with_children(calls: Sequence[StagedCall]) -> bool:
    """Whether `insert_calls` sends these calls' children too (a second statement)."""
    return any(call.children for call in calls)


Rows = Sequence[tuple[Any, list[dict[str, Any]]]]  # (table, rows) in the order to insert them
Updates = Sequence[tuple[Executable, dict[str, Any]]]  # (statement, parameters)


@dataclass(frozen=True)
class Work:
    """Writes of one job that commit together: rows that others refer to (a new job's row and
    what hangs off it), calls through `insert_calls`, then UPDATEs with their parameters."""

    rows: Rows = ()
    sink: CallSink | None = None
    calls: Sequence[StagedCall] = ()
    updates: Updates = ()


@dataclass(frozen=True)
class _Pending:
    """A `Work` handed over, and the future its committer resolves."""

    done: asyncio.Future[None]
    work: Work


class GroupCommit:
    """Commits writes together when they arrive while others are being committed."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        *,
        max_flushes: int = 2,
        max_batch: int = 128,
    ) -> None:
        # A connection, not a session: nothing here is tracked by the ORM, and a session's
        # set-up and state bookkeeping per transaction cost more CPU than the statements.
        self.engine: AsyncEngine = sessionmaker.kw["bind"]
        self.max_flushes = max_flushes
        self.max_batch = max_batch
        self._queue: list[_Pending] = []
        self._flushers: set[asyncio.Task[None]] = set()
        # Connections kept between transactions, with when each was last used: a checkout and
        # check-in of the pool per transaction cost a third of a small transaction's CPU. Kept
        # apart by whether they autocommit (`_transaction`), so none changes mode.
        self._held: dict[bool, list[tuple[AsyncConnection, float]]] = {False: [], True: []}
        self._autocommits = self.engine.dialect.name == "postgresql"

    async def store(self, sink: CallSink, call: StagedCall) -> None:
        """Commit one judge call through `insert_calls`; raise what the transaction raised."""
        await self.commit(Work(sink=sink, calls=(call,)))

    async def commit(self, work: Work) -> None:
        """Commit a job's writes together; raise what the transaction raised."""
        future = asyncio.get_running_loop().create_future()
        await self._hand_over(_Pending(future, work=work))

    async def _hand_over(self, pending: _Pending) -> None:
        self._queue.append(pending)
        if len(self._flushers) < self.max_flushes:
            self._flushers.add(asyncio.create_task(self._flush()))
        try:
            await asyncio.shield(pending.done)
        except asyncio.CancelledError:
            pending.done.add_done_callback(_outcome_is_nobodys)
            raise

    async def wait_idle(self) -> None:
        """Return once no write is waiting or in flight."""
        while self._flushers:
            await asyncio.gather(*self._flushers, return_exceptions=True)

    async def aclose(self) -> None:
        """Wait for the writes in flight, then give the kept connections back (shutdown, before
        the engine goes)."""
        await self.wait_idle()
        for held in self._held.values():
            while held:
                await held.pop()[0].close()

    async def _flush(self) -> None:
        try:
            while self._queue:
                batch = self._queue[: self.max_batch]
                del self._queue[: self.max_batch]
                await self._commit(batch)
        finally:
            # Leave `_flushers` in the same step as the last look at the queue. A done callback
            # runs one step later, and a write handed over in between found the finished
            # flusher still counted, started none and waited forever (issue 36's hang).
            self._flushers -= {asyncio.current_task()}
            if self._queue and not self._flushers:
                _cancel_waiting(self._queue)  # cancelled itself (shutdown): nobody flushes

    async def _commit(self, batch: list[_Pending]) -> None:
        try:
            await self._transaction(batch)
        except IntegrityError as exc:
            if len(batch) == 1:
                _resolve(batch, exc)
                return
            for pending in batch:  # one conflicting row must not fail the others
                await self._commit([pending])
        except asyncio.CancelledError:
            for pending in batch:
                pending.done.cancel()
            raise
        except Exception as exc:  # the database is down: every write of the batch hears it
            _resolve(batch, exc)
        else:
            _resolve(batch, None)

    async def _transaction(self, batch: list[_Pending]) -> None:
        merged = _Merged.of(batch)
        # One statement is atomic by itself (an executemany too, in asyncpg): on PostgreSQL it
        # goes without BEGIN and COMMIT, one round trip instead of three, and most batches are
        # one statement (BENCHMARKS.md: less CPU for the API and PostgreSQL at c=1).
        autocommit = self._autocommits and merged.statements == 1
        connection = await self._connection(autocommit)
        try:
            async with connection.begin():
                await merged.apply(connection)
        except BaseException:
            # Its state is unknown (cancelled mid-statement, or the server went away): back to
            # the pool, which discards it if it is broken.
            await asyncio.shield(connection.close())
            raise
        self._held[autocommit].append((connection, time.monotonic()))

    async def _connection(self, autocommit: bool) -> AsyncConnection:
        """A kept connection used moments ago, else one from the pool (which pings a
        connection that sat idle: `app.db.ping_when_idle`), in the mode asked for."""
        held = self._held[autocommit]
        while held:
            connection, used_at = held.pop()
            if time.monotonic() - used_at < IDLE_BEFORE_PING_S:
                return connection
            # Idle too long to trust without a ping (the server may have restarted meanwhile),
            # and a check-in would make the pool take it for fresh: dropped, not returned.
            await connection.invalidate()
            await connection.close()
        connection = await self.engine.connect()
        if autocommit:  # the pool sets the default level again when it is given back
            await connection.execution_options(isolation_level="AUTOCOMMIT")
        return connection


@dataclass
class _Merged:
    """What a batch writes, merged: rows (one INSERT a table), calls (one `insert_calls` a
    kind), then updates (one executemany a statement)."""

    rows: dict[Any, list[dict[str, Any]]] = field(default_factory=dict)
    calls: dict[int, tuple[CallSink, list[StagedCall]]] = field(default_factory=dict)
    updates: dict[Executable, list[dict[str, Any]]] = field(default_factory=dict)

    @classmethod
    def of(cls, batch: list[_Pending]) -> _Merged:
        merged = cls()
        for work in (pending.work for pending in batch):
            for table, values in work.rows:
                merged.rows.setdefault(table, []).extend(values)
            if work.sink is not None and work.calls:
                merged.calls.setdefault(id(work.sink), (work.sink, []))[1].extend(work.calls)
            for statement, parameters in work.updates:
                merged.updates.setdefault(statement, []).append(parameters)
        return merged

    @property
    def statements(self) -> int:
        """How many statements `apply` sends (calls with children are two)."""
        rows = sum(1 for values in self.rows.values() if values)
        calls = sum(2 if with_children(staged) else 1 for _, staged in self.calls.values())
        return rows + calls + len(self.updates)

    async def apply(self, connection: AsyncConnection) -> None:
        await insert_rows(connection, list(self.rows.items()))
        for sink, staged in self.calls.values():
            await insert_calls(connection, sink, staged)
        for statement, many in self.updates.items():
            await connection.execute(statement, _one_or_many(many))


async def insert_rows(connection: AsyncConnection, rows: Rows) -> None:
    """One INSERT a table, in the order given."""
    for table, values in rows:
        if values:
            await connection.execute(_insert(table), _one_or_many(values))


@lru_cache(maxsize=32)
def _insert(table: Any) -> Insert:
    return insert(table)


def _one_or_many(rows: list[dict[str, Any]]) -> dict[str, Any] | list[dict[str, Any]]:
    # One row as a dict: a list makes SQLAlchemy take the executemany path, which costs more
    # for one row than the statement.
    return rows[0] if len(rows) == 1 else rows


def _resolve(batch: list[_Pending], error: Exception | None) -> None:
    for pending in batch:
        if pending.done.done():
            continue
        if error is None:
            pending.done.set_result(None)
        else:
            pending.done.set_exception(error)


def _cancel_waiting(queue: list[_Pending]) -> None:
    """Tell writers whose turn will never come (the flushers were cancelled) at once."""
    while queue:
        queue.pop().done.cancel()


def _outcome_is_nobodys(done: asyncio.Future[None]) -> None:
    # The caller went away; reading the outcome keeps asyncio from logging it as unretrieved.
    if not done.cancelled():
        done.exception()
