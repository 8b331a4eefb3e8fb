"""Item leases in the database: claim, renew, finish, and hand back what nobody is running.

A process runs an item only while it holds the item's lease (`lease_owner`, `lease_expires_at`),
taken by one conditional UPDATE, so two deliveries of the same message never run it twice at once.
Times are the processes' clocks (UTC); a lease is far longer than any sane clock skew.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, func, literal, or_, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.batches.models import TERMINAL, BatchItem, ItemStatus
from app.db import UTCDateTime, rowcount, utcnow

Sessionmaker = async_sessionmaker[AsyncSession]


@dataclass(frozen=True)
class Claim:
    """An item this process holds the lease of."""

    item_id: str
    owner: str
    batch_id: str
    kind: str
    target_id: str
    payload: str | None
    encrypted: bool
    attempts: int
    origin: str  # stored with its comparison: `traffic`, or `canary` for a canary's run


async def claim(
    sessionmaker: Sessionmaker, item_id: str, owner: str, lease_s: float
) -> Claim | None:
    """Take the item's lease if it is queued or its lease expired; None when someone has it."""
    now = utcnow()
    claimable = or_(
        BatchItem.status == ItemStatus.QUEUED,
        and_(BatchItem.status == ItemStatus.RUNNING, BatchItem.lease_expires_at < now),
    )
    async with sessionmaker() as session:
        row = (
            await session.execute(
                update(BatchItem)
                .where(BatchItem.id == item_id, claimable)
                .values(
                    status=ItemStatus.RUNNING,
                    lease_owner=owner,
                    lease_expires_at=now + timedelta(seconds=lease_s),
                    attempts=BatchItem.attempts + 1,
                    started_at=func.coalesce(BatchItem.started_at, literal(now, UTCDateTime())),
                )
                .returning(
                    BatchItem.batch_id,
                    BatchItem.kind,
                    BatchItem.target_id,
                    BatchItem.payload,
                    BatchItem.encrypted,
                    BatchItem.attempts,
                    BatchItem.origin,
                )
            )
        ).first()
        await session.commit()
    if row is None:
        return None
    return Claim(item_id, owner, *row)


def held(claim: Claim) -> Any:
    """The item's row while this process holds its lease."""
    return and_(
        BatchItem.id == claim.item_id,
        BatchItem.lease_owner == claim.owner,
        BatchItem.status == ItemStatus.RUNNING,
    )


async def renew(sessionmaker: Sessionmaker, claim: Claim, lease_s: float) -> bool:
    """Extend the lease; False when this process no longer holds it."""
    async with sessionmaker() as session:
        result = await session.execute(
            update(BatchItem)
            .where(held(claim))
            .values(lease_expires_at=utcnow() + timedelta(seconds=lease_s))
        )
        await session.commit()
    return rowcount(result) == 1


async def finish(
    sessionmaker: Sessionmaker,
    claim: Claim,
    status: str,
    error_kind: str | None = None,
    error: str | None = None,
) -> bool:
    """Finish the item; its payload is deleted (privacy mode keeps texts only until then)."""
    assert status in TERMINAL
    async with sessionmaker() as session:
        result = await session.execute(
            update(BatchItem)
            .where(held(claim))
            .values(
                status=status,
                finished_at=utcnow(),
                lease_owner=None,
                lease_expires_at=None,
                payload=None,
                error_kind=error_kind,
                error=error,
            )
        )
        await session.commit()
    return rowcount(result) == 1


async def release(sessionmaker: Sessionmaker, claim: Claim) -> bool:
    """Hand the item back to the queue unfinished (shutdown); the attempt does not count."""
    async with sessionmaker() as session:
        result = await session.execute(
            update(BatchItem)
            .where(held(claim))
            .values(
                status=ItemStatus.QUEUED,
                lease_owner=None,
                lease_expires_at=None,
                enqueued_at=utcnow(),
                attempts=BatchItem.attempts - 1,
            )
        )
        await session.commit()
    return rowcount(result) == 1


async def _requeue(sessionmaker: Sessionmaker, condition: Any) -> list[str]:
    async with sessionmaker() as session:
        ids = await session.scalars(
            update(BatchItem)
            .where(condition)
            .values(
                status=ItemStatus.QUEUED,
                lease_owner=None,
                lease_expires_at=None,
                enqueued_at=utcnow(),
            )
            .returning(BatchItem.id)
        )
        found = list(ids)
        await session.commit()
    return found


async def requeue_expired(sessionmaker: Sessionmaker) -> list[str]:
    """Running items whose holder stopped renewing (a killed process): queued again."""
    expired = and_(BatchItem.status == ItemStatus.RUNNING, BatchItem.lease_expires_at < utcnow())
    return await _requeue(sessionmaker, expired)


async def requeue_waiting(sessionmaker: Sessionmaker, enqueued_before: datetime) -> list[str]:
    """Queued items sent before `enqueued_before` and never picked up: their send time reset."""
    waiting = and_(BatchItem.status == ItemStatus.QUEUED, BatchItem.enqueued_at < enqueued_before)
    return await _requeue(sessionmaker, waiting)


async def requeue_unfinished(sessionmaker: Sessionmaker) -> list[str]:
    """Every queued and running item (start-up of the embedded queue, the only runner)."""
    return await _requeue(
        sessionmaker, BatchItem.status.in_((ItemStatus.QUEUED, ItemStatus.RUNNING))
    )
