"""Retention: delete what is older than a cutoff, or only its texts."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.comparisons.models import Comparison, JudgeCall
from app.db import rowcount
from app.reports import rollups
from app.textpatterns import compile_linear

UNITS = {"d": "days", "h": "hours", "m": "minutes"}
_AGE = compile_linear(r"(\d+)([dhm])")


def parse_age(text: str) -> timedelta:
    """`90d`, `12h` or `30m` as a timedelta."""
    match = _AGE.fullmatch(text.strip())
    if match is None:
        raise ValueError(f"expected an age like 90d, 12h or 30m, got {text!r}")
    return timedelta(**{UNITS[match.group(2)]: int(match.group(1))})


@dataclass(frozen=True)
class Purged:
    """What a purge removed."""

    comparisons: int
    calls: int


async def purge(session: AsyncSession, cutoff: datetime, *, texts_only: bool) -> Purged:
    """Remove comparisons created before `cutoff` (never running ones), or only their texts."""
    old = select(Comparison.id).where(
        Comparison.created_at < cutoff, Comparison.status != "running"
    )
    if texts_only:
        comparisons = await session.execute(
            update(Comparison)
            .where(Comparison.id.in_(old))
            .values(prompt=None, response_a=None, response_b=None, reference=None)
        )
        calls = await session.execute(
            update(JudgeCall).where(JudgeCall.comparison_id.in_(old)).values(raw_output=None)
        )
    else:
        await rollups.unfold(session, JudgeCall.comparison_id.in_(old))
        calls = await session.execute(delete(JudgeCall).where(JudgeCall.comparison_id.in_(old)))
        comparisons = await session.execute(delete(Comparison).where(Comparison.id.in_(old)))
    await session.commit()
    return Purged(comparisons=rowcount(comparisons), calls=rowcount(calls))
