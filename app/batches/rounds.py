"""The provider rounds: every `provider_tick_s`, in each worker (or the API without Redis), one
round looks up unclear submissions, submits, polls what is due, and wakes the waiting items
whose requests are all resolved.

It owns the order of the steps and the loop that runs them; the steps themselves are
app/batches/job_lookups.py, job_submissions.py and job_polls.py. Every step is claimed by a
conditional UPDATE, so any number of processes may run rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import structlog
from sqlalchemy import select, update

from app import metrics
from app.background import running, survive
from app.batches.job_lookups import Lookups
from app.batches.job_polls import Polls
from app.batches.job_submissions import Submissions
from app.batches.models import BatchItem, ItemStatus, ProviderRequest
from app.batches.provider_requests import RESOLVED
from app.batches.queue import ItemQueue
from app.db import utcnow
from app.jobs.kind import Services

log = structlog.get_logger()


class ProviderRounds:
    """Submits, polls and wakes; every step is claimed by a conditional UPDATE, so any number
    of processes may run rounds and each request is submitted once and each job polled once."""

    def __init__(self, services: Services, queue: ItemQueue) -> None:
        self.sessionmaker = services.sessionmaker
        self.queue = queue
        self.lookups = Lookups(services)
        self.submissions = Submissions(services)
        self.polls = Polls(services)

    async def tick(self) -> None:
        """One round: take back stalled submissions, submit, poll what is due, wake. A step
        that fails is logged and the others still run (one bad row must not stop every batch)."""
        steps = (
            self.lookups.resolve_unclear,
            self.submissions.submit_ready,
            self.polls.poll_due,
            self.wake_ready,
        )
        failures = 0
        for step in steps:
            outcome = "ok"
            try:
                await step()
            except Exception as exc:  # the next round retries
                survive(exc)
                log.warning("provider_step_failed", step=step.__name__, error=type(exc).__name__)
                outcome, failures = "failed", failures + 1
            metrics.PROVIDER_STEPS.labels(step.__name__, outcome).inc()
        if not failures:
            metrics.record_loop_success("provider_rounds")

    async def wake_ready(self) -> int:
        """Queue again the waiting items whose requests are all resolved (a new wave: its
        attempts start over); the number sent."""
        unresolved = (
            select(ProviderRequest.custom_id)
            .where(ProviderRequest.item_id == BatchItem.id, ProviderRequest.state != RESOLVED)
            .exists()
        )
        async with self.sessionmaker() as session:
            ids = list(
                await session.scalars(
                    update(BatchItem)
                    .where(BatchItem.status == ItemStatus.WAITING, ~unresolved)
                    .values(status=ItemStatus.QUEUED, attempts=0, enqueued_at=utcnow())
                    .returning(BatchItem.id)
                )
            )
            await session.commit()
        if ids:
            await self.queue.enqueue(ids)
        return len(ids)


async def _rounds_forever(rounds: ProviderRounds, interval_s: float) -> None:
    while True:
        try:
            await rounds.tick()
        except Exception as exc:  # an outage must not end the loop; the next round retries
            survive(exc)
            log.warning("provider_round_failed", error=type(exc).__name__, detail=str(exc)[:200])
        await asyncio.sleep(interval_s)


@contextlib.asynccontextmanager
async def run_provider_rounds(services: Services, queue: ItemQueue) -> AsyncIterator[None]:
    """Run a provider round every `provider_tick_s` while open."""
    rounds = ProviderRounds(services, queue)
    async with running(_rounds_forever(rounds, services.settings.provider_tick_s)):
        yield
