"""Group commit for the request path's writes: judge calls and verdicts.

A write is sent the moment it is handed over, unless `max_flushes` transactions are already in
flight; then it waits for one of them and goes with whatever else arrived meanwhile in the next.
An idle process pays one transaction per write, as before; a busy one pays a share of one, which
is where the request path's CPU went (a transaction costs a checkout, a ping, BEGIN and COMMIT
whatever it carries).

No-loss: `run` returns only once its write is committed, and no answer is sent before every write
of the comparison returned, so a crash can lose only writes nobody was told about, exactly as with
a transaction per write; a write waits for at most the transactions in flight before it. A caller
that is cancelled (shutdown) does not take its write back: it is committed all the same.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event, insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from sqlalchemy.orm import Session

from app.comparisons.models import JudgeCall
from app.comparisons import rollups

Write = Callable[[AsyncSession], Awaitable[None]]
_STAGED_CALLS = "fairpair.staged_calls"


def stage_call(session: AsyncSession, values: dict[str, Any]) -> None:
    """Insert a judge call (its column values) when `session` commits.

    The calls staged in one transaction go in one Core INSERT and are folded into the report's
    rollups in the same transaction, as an ORM flush of `JudgeCall` objects would fold them:
    the ORM's unit of work per object cost more CPU than the insert itself.
    """
    session.info.setdefault(_STAGED_CALLS, []).append(values)


@event.listens_for(Session, "before_commit")
def _insert_staged_calls(session: Session) -> None:
    staged = session.info.pop(_STAGED_CALLS, None)
    if not staged:
        return
    session.flush()  # rows the calls refer to, added through the ORM, go first
    connection = session.connection()
    ids = connection.execute(insert(JudgeCall).returning(JudgeCall.id), staged).scalars().all()
    rollups.fold_calls(connection, list(ids))


@dataclass(frozen=True)
class _Pending:
    write: Write
    done: asyncio.Future[None]


class GroupCommit:
    """Commits writes together when they arrive while others are being committed."""

    def __init__(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        *,
        max_flushes: int = 2,
        max_batch: int = 128,
    ) -> None:
        self.sessionmaker = sessionmaker
        self.max_flushes = max_flushes
        self.max_batch = max_batch
        self._queue: list[_Pending] = []
        self._flushers: set[asyncio.Task[None]] = set()

    async def run(self, write: Write) -> None:
        """Commit `write` (adds or statements on the session it is given); raise what it raised."""
        pending = _Pending(write, asyncio.get_running_loop().create_future())
        self._queue.append(pending)
        if len(self._flushers) < self.max_flushes:
            flusher = asyncio.create_task(self._flush())
            self._flushers.add(flusher)
            flusher.add_done_callback(self._flushers.discard)
        try:
            await asyncio.shield(pending.done)
        except asyncio.CancelledError:
            pending.done.add_done_callback(_outcome_is_nobodys)
            raise

    async def wait_idle(self) -> None:
        """Return once no write is waiting or in flight (shutdown, before the engine goes)."""
        while self._flushers:
            await asyncio.gather(*self._flushers, return_exceptions=True)

    async def _flush(self) -> None:
        while self._queue:
            batch = self._queue[: self.max_batch]
            del self._queue[: self.max_batch]
            await self._commit(batch)

    async def _commit(self, batch: list[_Pending]) -> None:
        try:
            async with self.sessionmaker() as session:
                for pending in batch:
                    await pending.write(session)
                await session.commit()
        except IntegrityError as exc:
            if len(batch) == 1:
                _settle(batch, exc)
                return
            for pending in batch:  # one conflicting row must not fail the others
                await self._commit([pending])
        except asyncio.CancelledError:
            for pending in batch:
                pending.done.cancel()
            raise
        except Exception as exc:  # the database is down: every write of the batch hears it
            _settle(batch, exc)
        else:
            _settle(batch, None)


def _settle(batch: list[_Pending], error: Exception | None) -> None:
    for pending in batch:
        if pending.done.done():
            continue
        if error is None:
            pending.done.set_result(None)
        else:
            pending.done.set_exception(error)


def _outcome_is_nobodys(done: asyncio.Future[None]) -> None:
    # The caller went away; reading the outcome keeps asyncio from logging it as unretrieved.
    if not done.cancelled():
        done.exception()
