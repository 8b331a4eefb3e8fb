"""The folder: the report's rollups kept in step off the answer's path.

A comparison's calls are stored as plain INSERTs while it runs. Once it has stopped running,
`rollups.fold_pending` folds all of them at once and marks it `folded`, in one transaction. Two
callers do that:

- a loop beside the work (`run_folder`, every `fold_interval_s` in each API process), so that
  the backlog stays small whatever reads it;
- every reader of the rollups before its snapshot (`prepare_report`): the bias and labels
  reports count every comparison that stopped running before they began (waiting for the rows
  another folder is folding at that moment).

The report counts exactly the folded comparisons, calls of whole hours from the rollups and of
partial hours from the calls (`callscope.scope`), so it is exact in its snapshot whatever the
folder's lag. A process killed after a comparison stopped but before it was folded loses
nothing: the comparison is still not folded, and the next fold takes it.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import structlog
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.background import running, survive
from app.ledger.callscope import prepare
from app.ledger.fold import fold_pending

log = structlog.get_logger()

# Comparisons per folding transaction: a few fold statements carry this many at once, and a
# transaction holds their rows' locks only for as long as the statements take.
FOLD_BATCH = 500


async def fold_backlog(session: AsyncSession, *, wait: bool = False) -> int:
    """Fold every comparison that stopped running and is not folded yet, a transaction per
    `FOLD_BATCH` (committed); how many. The session is left outside a transaction.

    Comparisons another folder is folding are skipped; with `wait` (a report, which must count
    them) their rows are waited for instead, until none is left unfolded: a batch may then come
    back short of rows the other folder took, so only an empty one ends it."""
    total = 0
    while True:
        folded = await fold_pending(session, FOLD_BATCH, skip_locked=not wait)
        await session.commit()
        total += folded
        if folded == 0 or (folded < FOLD_BATCH and not wait):
            return total


async def _fold_forever(sessionmaker: async_sessionmaker[AsyncSession], interval_s: float) -> None:
    while True:
        await asyncio.sleep(interval_s)
        try:
            async with sessionmaker() as session:
                await fold_backlog(session)
        except Exception as exc:  # an outage must not kill the loop; the next round retries
            survive(exc)
            log.warning("fold_failed", error=type(exc).__name__)


@contextlib.asynccontextmanager
async def run_folder(
    sessionmaker: async_sessionmaker[AsyncSession], interval_s: float
) -> AsyncIterator[None]:
    """Fold the backlog every `interval_s` while the block runs."""
    async with running(_fold_forever(sessionmaker, interval_s)):
        yield


async def prepare_report(session: AsyncSession) -> None:
    """Before a report's first statement: fold the backlog, then `callscope.prepare` (one
    snapshot for the whole report). A section run inside a report reads that report's
    snapshot; reads the caller made before the report (a judge's existence) are committed
    first (the session keeps its objects: it does not expire them)."""
    transaction = session.get_transaction()
    if transaction is not None and session.info.get(_SNAPSHOT) is transaction:
        return
    if session.in_transaction():
        await session.commit()
    await fold_backlog(session, wait=True)
    await prepare(session)
    await session.connection()  # the report's transaction, begun (SQLite: prepare sets nothing)
    session.info[_SNAPSHOT] = session.get_transaction()


_SNAPSHOT = "report_snapshot"  # the transaction `prepare_report` set up, in `session.info`
