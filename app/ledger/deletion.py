"""Deleting stored comparisons: out of the rollups first, then their calls and rows (their tags
and labels go with them: foreign keys cascade). One rule for the purge, the API's delete and the
demo's clean-up."""

from __future__ import annotations

from sqlalchemy import Select, delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import rowcount
from app.jobs.models import UNFINISHED
from app.ledger import fold
from app.ledger.models import Comparison, JudgeCall


async def delete_stopped(session: AsyncSession, chosen: Select[str]) -> tuple[int, int]:
    """Delete the comparisons among `chosen` (a query of ids) that stopped running; a running
    or waiting one is left (its calls are still coming). (comparisons, calls) deleted; the
    caller commits."""
    stopped = select(Comparison.id).where(
        Comparison.id.in_(chosen), Comparison.status.not_in(UNFINISHED)
    )
    await fold.unfold(session, Comparison.id.in_(stopped))
    calls = await session.execute(delete(JudgeCall).where(JudgeCall.comparison_id.in_(stopped)))
    comparisons = await session.execute(delete(Comparison).where(Comparison.id.in_(stopped)))
    return rowcount(comparisons), rowcount(calls)
