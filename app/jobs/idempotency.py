"""Idempotency-Key (PRODUCT.md "Idempotency"), one behaviour for every kind of request.

Scoped per API key, kept 24 h. The key is reserved when the row is inserted. Same key and body:
the stored answer. Same key, other body: 409 `idempotency-conflict`. While a job runs, a repeat
is 409 `idempotency-in-progress` with Retry-After the time it is expected to need still (see
`in_progress`). A job that a
killed process left running is closed first (`closing.close_if_orphaned`): with a result it
replays it; without one it released its key, like any `failed` job, and the request runs afresh.
"""

from __future__ import annotations

import hashlib
import json
import math
import statistics
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import utcnow
from app.errors import IdempotencyConflict, IdempotencyInProgress
from app.jobs.models import Idempotent, JobColumns
from app.privacy import TextKeeper

IDEMPOTENCY_TTL = timedelta(hours=24)
# The newest jobs of a kind whose durations predict a running one's (an index scan this long).
RECENT_JOBS = 100
Row = TypeVar("Row", bound=Idempotent)


class Dumpable(Protocol):
    """A validated request (a pydantic model)."""

    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


def request_hash(request: Dumpable) -> str:
    """SHA-256 of the canonical JSON of the validated request."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def stored_key(idempotency_key: str | None, keeper: TextKeeper) -> str | None:
    """The key as stored and looked up (its HMAC in privacy mode); an empty header is no key,
    not the key ""."""
    return keeper.token(idempotency_key) if idempotency_key else None


async def find_holder(session: AsyncSession, table: type[Row], key_id: str, key: str) -> Row | None:
    """The live row holding `key` for the API key, or None (an expired one releases it)."""
    existing = await session.scalar(
        select(table).where(table.api_key_id == key_id, table.idempotency_key == key)
    )
    if existing is None:
        return None
    if existing.created_at < utcnow() - IDEMPOTENCY_TTL:
        existing.idempotency_key = None  # expired: release the key
        await session.commit()
        return None
    return existing


def check_body(row: Idempotent, digest: str) -> None:
    """409 when the key was used with another body (`digest` as stored)."""
    if row.request_hash != digest:
        raise IdempotencyConflict("this Idempotency-Key was used with a different body")


async def typical_duration(session: AsyncSession, table: type[JobColumns]) -> float | None:
    """The median seconds from start to finish of the kind's keyed requests that finished,
    among its `RECENT_JOBS` newest jobs; None when there are none.

    Keyed jobs only: a request with an Idempotency-Key is a synchronous one, like the holder a
    repeat waits for, whereas batch items carry no key and a provider-mode item takes hours.
    """
    newest = (
        select(table.created_at, table.completed_at, table.idempotency_key)
        .order_by(table.created_at.desc())
        .limit(RECENT_JOBS)
        .subquery()
    )
    rows = await session.execute(
        select(newest.c.created_at, newest.c.completed_at).where(
            newest.c.completed_at.is_not(None), newest.c.idempotency_key.is_not(None)
        )
    )
    durations = [(done - start).total_seconds() for start, done in rows]
    return statistics.median(durations) if durations else None


def expected_left(row: JobColumns, typical_s: float | None) -> int:
    """Whole seconds until the running job is expected to have finished, at least 1.

    The typical duration less the time it has run; when it has run longer than that (or no job
    finished to learn from), half the time it has run so far, so that repeats back off
    geometrically instead of polling; never past its deadline, by which it has finished.
    """
    now = utcnow()
    elapsed = max(0.0, (now - row.created_at).total_seconds())
    deadline_left = (row.deadline_at - now).total_seconds() + 1
    if typical_s is not None and typical_s > elapsed:
        guess = typical_s - elapsed
    else:
        guess = elapsed / 2
    return max(1, math.ceil(min(guess, deadline_left)))


async def in_progress(
    session: AsyncSession, table: type[JobColumns], row: JobColumns | None
) -> IdempotencyInProgress:
    """The 409 for a key whose job runs, with Retry-After the time it is expected to need still
    (`expected_left`), not the whole deadline: a 4 s comparison is not retried after 29 s."""
    left = 1 if row is None else expected_left(row, await typical_duration(session, table))
    return IdempotencyInProgress(
        "the first request with this key is still running", headers={"Retry-After": str(left)}
    )
