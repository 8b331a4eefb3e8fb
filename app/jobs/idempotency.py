"""Idempotency-Key (PRODUCT.md "Idempotency"), one behaviour for every kind of request.

Scoped per API key, kept 24 h. The key is reserved when the row is inserted. Same key and body:
the stored answer. Same key, other body: 409 `idempotency-conflict`. While a job runs, a repeat
is 409 `idempotency-in-progress` with Retry-After the time its deadline leaves. A job that a
killed process left running is closed first (`closing.close_if_orphaned`): with a result it
replays it; without one it released its key, like any `failed` job, and the request runs afresh.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any, Protocol, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import utcnow
from app.errors import IdempotencyConflict, IdempotencyInProgress
from app.jobs.models import Idempotent, JobColumns
from app.privacy import TextKeeper

IDEMPOTENCY_TTL = timedelta(hours=24)
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


def in_progress(row: JobColumns | None) -> IdempotencyInProgress:
    """The 409 for a key whose job runs: retry once its deadline has passed, not sooner."""
    left = 1 if row is None else max(1, int((row.deadline_at - utcnow()).total_seconds()) + 1)
    return IdempotencyInProgress(
        "the first request with this key is still running", headers={"Retry-After": str(left)}
    )
