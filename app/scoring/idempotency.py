"""Idempotency-Key on `POST /v1/score` (PRODUCT.md "Idempotency"), as on compare.

Scoped per API key, kept 24 h. The key is reserved when the session row is inserted; while that
session runs, a repeat is 409 `idempotency-in-progress`. Same key and body: the stored answer.
Same key, other body: 409 `idempotency-conflict`. A `failed` (502) session releases its key.
"""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import utcnow
from app.errors import IdempotencyConflict, IdempotencyInProgress
from app.privacy import TextKeeper
from app.scoring import answers, queries, sweeper
from app.scoring.models import ScoreSession
from app.scoring.schemas import ScoreRequest, ScoreSessionRead

IDEMPOTENCY_TTL = timedelta(hours=24)


def stored_key(idempotency_key: str | None, keeper: TextKeeper) -> str | None:
    """The key as stored and looked up (its HMAC in privacy mode); an empty header is no key,
    not the key ""."""
    return keeper.token(idempotency_key) if idempotency_key else None


def request_hash(request: ScoreRequest) -> str:
    """SHA-256 of the canonical JSON of the validated request."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


async def find_replay(
    sessionmaker: async_sessionmaker[AsyncSession],
    key_id: str,
    key: str,
    digest: str,
    grace_s: float,
) -> ScoreSessionRead | None:
    """The stored answer for a repeated Idempotency-Key, or None to run afresh."""
    async with sessionmaker() as session:
        existing = await session.scalar(
            select(ScoreSession).where(
                ScoreSession.api_key_id == key_id, ScoreSession.idempotency_key == key
            )
        )
        if existing is None:
            return None
        if existing.created_at < utcnow() - IDEMPOTENCY_TTL:
            existing.idempotency_key = None  # expired: release the key
            await session.commit()
            return None
        await sweeper.close_if_interrupted(session, existing, grace_s)
        if existing.status == "running":
            left = max(1, int((existing.deadline_at - utcnow()).total_seconds()) + 1)
            raise IdempotencyInProgress(
                "the first request with this key is still running",
                headers={"Retry-After": str(left)},
            )
        if existing.status == "failed":  # released by close_if_interrupted
            return None
        if existing.request_hash != digest:
            raise IdempotencyConflict("this Idempotency-Key was used with a different body")
        return answers.to_read(await queries.load_session(session, existing))
