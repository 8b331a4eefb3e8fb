"""Closing score sessions that a cancelled fan-out or a killed process left `running`.

A session left running by a killed process is closed by the periodic sweep
(`app.comparisons.sweeper.sweep`), or sooner when it is next read (`GET`) or replayed (same
Idempotency-Key): `partial` when a reviewer scored, else `failed` (which releases the key), with
`error_kind` interrupted.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import exists, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import rowcount, utcnow
from app.scoring.models import ScoreCall, ScoreSession


def interrupted(session_id: str | None = None, grace_s: float | None = None) -> Any:
    """Running sessions to close: one by id, or every one past its deadline plus `grace_s`."""
    condition = ScoreSession.status == "running"
    if session_id is not None:
        condition &= ScoreSession.id == session_id
    if grace_s is not None:
        condition &= ScoreSession.deadline_at < utcnow() - timedelta(seconds=grace_s)
    return condition


async def close_interrupted(session: AsyncSession, condition: Any) -> int:
    """Mark running sessions `partial` (a reviewer scored) or `failed`, with `interrupted`."""
    scored = exists(
        select(ScoreCall.id).where(
            ScoreCall.session_id == ScoreSession.id, ScoreCall.scores.is_not(None)
        )
    )
    now = utcnow()
    partial = await session.execute(
        update(ScoreSession)
        .where(condition, scored)
        .values(status="partial", error_kind="interrupted", completed_at=now)
    )
    failed = await session.execute(
        update(ScoreSession)
        .where(condition)
        .values(status="failed", error_kind="interrupted", completed_at=now, idempotency_key=None)
    )
    return rowcount(partial) + rowcount(failed)


async def close_if_interrupted(session: AsyncSession, row: ScoreSession, grace_s: float) -> None:
    """Close one session if a killed process left it running past its deadline."""
    if await close_interrupted(session, interrupted(row.id, grace_s)):
        await session.commit()
        await session.refresh(row)


async def mark_interrupted(session_id: str, sessionmaker: async_sessionmaker[AsyncSession]) -> None:
    """Close a session whose fan-out was cancelled at shutdown."""
    async with sessionmaker() as session:
        await close_interrupted(session, interrupted(session_id))
        await session.commit()
