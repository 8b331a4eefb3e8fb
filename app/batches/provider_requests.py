"""The stored provider requests' states and the writes that move them, shared by the deferral
(which stores them), the cancel (which resolves the unsent ones) and the rounds (which submit,
resolve and release them).

A request is `pending` (stored, in no job), `submitted` (in one job) or `resolved` (it holds a
result or a failure). These writes live in one place so that every path resolves a request the
same way: with its body dropped and its result sealed as `provider_keys` seals it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.batches.models import ProviderJob, ProviderJobState, ProviderRequest
from app.batches.provider_keys import seal
from app.config import Settings
from app.db import utcnow

Sessionmaker = async_sessionmaker[AsyncSession]

PENDING, SUBMITTED, RESOLVED = "pending", "submitted", "resolved"
NOT_SENT = "the batch was cancelled before it was sent"


async def fail_requests(
    session: AsyncSession, settings: Settings, kind: str, message: str, *where: Any
) -> None:
    """The requests matching `where` resolve as failed calls of `kind` saying `message`."""
    result, encrypted = seal(settings, {"error_kind": kind, "error": message})
    await session.execute(
        update(ProviderRequest)
        .where(*where)
        .values(state=RESOLVED, result=result, encrypted=encrypted, body=None)
    )


def in_job(job_id: str) -> tuple[Any, Any]:
    """The requests a job holds that have no result yet."""
    return ProviderRequest.job_id == job_id, ProviderRequest.state == SUBMITTED


async def release_jobs(session: AsyncSession, job_ids: Sequence[str]) -> None:
    """Job rows whose submission did not go through: their requests go back to pending and the
    rows go."""
    await session.execute(
        update(ProviderRequest)
        .where(ProviderRequest.job_id.in_(job_ids), ProviderRequest.state == SUBMITTED)
        .values(state=PENDING, job_id=None)
    )
    await session.execute(delete(ProviderJob).where(ProviderJob.id.in_(job_ids)))


async def forget_requests(sessionmaker: Sessionmaker, item_id: str) -> None:
    """A finished item's results are in its calls: its requests (texts quoted) are deleted;
    its jobs keep their counts."""
    async with sessionmaker() as session:
        await session.execute(delete(ProviderRequest).where(ProviderRequest.item_id == item_id))
        await session.commit()


def has_requests(item: Any) -> Any:
    """Whether an item has provider requests: a queued one was woken with its answers in, and
    a cancel lets it run so that its waiting comparison finishes with them."""
    return select(ProviderRequest.custom_id).where(ProviderRequest.item_id == item.id).exists()


async def cancel_batch(session: AsyncSession, batch_id: str, settings: Settings) -> None:
    """In the cancelling transaction: the batch's provider jobs are asked to cancel (by the
    next poll), and requests not yet submitted resolve as cancelled, so that their items wake
    and finish with what they have."""
    await session.execute(
        update(ProviderJob)
        .where(
            ProviderJob.batch_id == batch_id,
            ProviderJob.state.in_(
                (ProviderJobState.SUBMITTING, ProviderJobState.UNCLEAR, ProviderJobState.RUNNING)
            ),
        )
        .values(cancel_requested=True, next_poll_at=utcnow())
    )
    await cancel_pending(session, batch_id, settings)


async def cancel_pending(session: AsyncSession, batch_id: str, settings: Settings) -> None:
    """The batch's requests not submitted yet resolve as cancelled calls (also those that become
    pending after the cancel: a delivery that began before it, a submission taken back)."""
    in_batch = (ProviderRequest.batch_id == batch_id, ProviderRequest.state == PENDING)
    await fail_requests(session, settings, "cancelled", NOT_SENT, *in_batch)
