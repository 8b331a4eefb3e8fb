"""A provider job row's clock and its view of the provider: when a submission is taken over or
looked up, when a running job is given up on, and the columns the provider's answers fill.

It also holds `RoundStep`, what every step of a round (submitting, looking up, polling) runs on:
the services and the judge client a job goes through. The timings live here, apart from the
steps that use them, because more than one step reads each (a submission whose outcome is
unknown is looked up after `UNCLEAR_LOOKUP_S`, whichever step found it unknown).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import update

from app.background import survive
from app.batches.models import ProviderJob, ProviderJobState
from app.config import Settings
from app.db import utcnow
from app.errors import AppError, ServiceUnavailable
from app.jobs.kind import Services
from app.judging.batchapi import ReportedBatchJob
from app.judging.providers.http import TRANSFER_TIMEOUT_S, HttpJudge

log = structlog.get_logger()

# A job row whose submission has not finished this long after it was claimed was left by a
# killed process: its requests go back to pending. Longer than an upload and a create can take
# together (TRANSFER_TIMEOUT_S each), so a slow submission is never taken over while it runs.
SUBMIT_LEASE_S = 3 * TRANSFER_TIMEOUT_S
# A provider job still running this long after its own expiry is given up on: cancelled, and its
# requests fail (a provider that never ends a job must not hold items forever).
EXPIRY_GRACE_S = 3600.0
# Each submission whose outcome stays unknown may be a paid job nobody polls: a request is sent
# in at most this many, and the last one fails it (`submit_unclear`) instead of sending it again.
MAX_UNCLEAR_SUBMISSIONS = 3
# How long after an unknown outcome the lookup runs (a provider may list a new job a moment
# late), and how many failed lookups (its list endpoint erring) count as "not found".
UNCLEAR_LOOKUP_S = 30.0
MAX_LOOKUPS = 3
# Clock skew allowed between us and the provider when matching a job's creation time.
LOOKUP_SKEW_S = 300.0
# A job the provider gives no usable expiry is polled this long after its submission, then given
# up on as one past its deadline (both providers' window is 24 hours).
NO_EXPIRY_LIMIT_S = 25 * 3600.0


def submit_metadata(batch_id: str, job_id: str) -> dict[str, str]:
    """What a job is created with, and looked up by when its creation's outcome is unknown."""
    return {"fairpair_batch": batch_id, "fairpair_job": job_id}


def past_deadline(expires_at: datetime | None, submitted_at: datetime, now: datetime) -> bool:
    """Whether a job is given up on: an hour past the provider's expiry, or NO_EXPIRY_LIMIT_S
    after its submission when the provider gave none (never `expires_at + grace`: a far
    expiry would overflow)."""
    if expires_at is not None:
        return now - timedelta(seconds=EXPIRY_GRACE_S) > expires_at
    return now - timedelta(seconds=NO_EXPIRY_LIMIT_S) > submitted_at


def usable_expiry(expires_at: datetime | None) -> datetime | None:
    """The provider's expiry, or None when it is further off than any job of a 24-hour window
    can be (then the no-expiry limit applies, so a job is never polled forever)."""
    if expires_at is None or expires_at - utcnow() > timedelta(seconds=NO_EXPIRY_LIMIT_S):
        return None
    return expires_at


def job_error(settings: Settings, text: str | None) -> str | None:
    """A provider's error text as a job row keeps it: none in privacy mode, where it may quote
    the requests (as a judge call's error text is not stored there either)."""
    if not text or settings.privacy == "hash":
        return None
    return text[:2000]


def status_values(status: ReportedBatchJob, settings: Settings) -> dict[str, Any]:
    """The job row's columns from the provider's view of it."""
    return {
        "provider_state": status.state[:32],
        "succeeded": status.succeeded,
        "failed": status.failed,
        "expires_at": usable_expiry(status.expires_at),
        "input_file_id": status.input_file_id,
        "output_file_id": status.output_file_id,
        "error_file_id": status.error_file_id,
        "error": job_error(settings, status.error),
    }


def submitted_values(status: ReportedBatchJob, settings: Settings) -> dict[str, Any]:
    """The row of a job the provider has: polled from now on."""
    now = utcnow()
    return {
        "external_id": status.id,
        "state": ProviderJobState.RUNNING,
        "submitted_at": now,
        "next_poll_at": now + timedelta(seconds=settings.provider_poll_min_s),
        **status_values(status, settings),
    }


class RoundStep:
    """A step of the provider rounds: the services it runs on, the judge a job goes through (as
    the registry has it now), how due jobs are taken one by one (looking up and polling alike),
    and the two writes that schedule a lookup (submitting and looking up both find outcomes
    unknown)."""

    def __init__(self, services: Services) -> None:
        self.services = services
        self.settings = services.settings
        self.sessionmaker = services.sessionmaker

    async def each_claimed(
        self,
        due: Sequence[Sequence[Any]],
        claim: Callable[..., Awaitable[bool]],
        act: Callable[[str], Awaitable[None]],
        failed_event: str,
    ) -> None:
        """For each due row (a job id, then what its claim checks): claim the job, and act on it
        when this process got it. A job whose claim or act fails is logged as `failed_event`."""
        for job_id, *seen in due:
            try:
                if await claim(job_id, *seen):
                    await act(job_id)
            except Exception as exc:  # one job must not hold up the others
                survive(exc)
                log.warning(failed_event, job=job_id, error=type(exc).__name__)

    async def unclear(self, job_id: str, reason: str) -> None:
        """A submission whose outcome is unknown: looked up after UNCLEAR_LOOKUP_S."""
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == ProviderJobState.SUBMITTING)
                .values(
                    state=ProviderJobState.UNCLEAR,
                    error=reason[:2000],
                    next_poll_at=utcnow() + timedelta(seconds=UNCLEAR_LOOKUP_S),
                )
            )
            await session.commit()

    async def defer_lookup(self, job_id: str, lookups: int) -> None:
        """Look the job up again later, `lookups` failed so far."""
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == ProviderJobState.UNCLEAR)
                .values(polls=lookups, next_poll_at=utcnow() + timedelta(seconds=UNCLEAR_LOOKUP_S))
            )
            await session.commit()

    async def batch_judge(self, judge_name: str) -> HttpJudge | None:
        """The judge's current client when it has a batch API (to submit to)."""
        client = await self.http_judge(judge_name)
        return client if client is not None and client.config.has_batch_api else None

    async def http_judge(self, judge_name: str) -> HttpJudge | None:
        """The judge's current client when it reaches a provider over HTTP (to poll a job
        submitted through it); None for a judge retired meanwhile. A judge this process cannot
        call now (its key variable unset here, say) raises ServiceUnavailable: it is not gone."""
        try:
            async with self.sessionmaker() as session:
                (judge,) = await self.services.registry.resolve(session, [judge_name])
        except ServiceUnavailable:
            raise
        except AppError:
            return None
        return judge.client if isinstance(judge.client, HttpJudge) else None
