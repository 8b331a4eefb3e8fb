"""Submissions whose outcome is unknown: the provider may have made a paid job that no row
knows. Each is looked up at the provider by its metadata before anything is sent again, and
adopted when exactly one unknown job matches, or given up on (its requests back to pending, or
failed after MAX_UNCLEAR_SUBMISSIONS such submissions).

Apart from submitting because it runs on its own clock (UNCLEAR_LOOKUP_S after the outcome went
unknown, or a submission lease after a submitter was killed) and must never send anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

import structlog
from sqlalchemy import and_, or_, select, update

from app.batches.models import ProviderJob, ProviderJobState, ProviderRequest
from app.batches.provider_jobs import (
    LOOKUP_SKEW_S,
    MAX_LOOKUPS,
    MAX_UNCLEAR_SUBMISSIONS,
    SUBMIT_LEASE_S,
    RoundStep,
    submit_metadata,
    submitted_values,
)
from app.batches.provider_requests import PENDING, fail_requests, in_job
from app.db import rowcount, utcnow
from app.errors import ServiceUnavailable
from app.judging.batchapi import ReportedBatchJob
from app.judging.providers.http import TRANSFER_TIMEOUT_S
from app.judging.retries import ProviderCallError

log = structlog.get_logger()

SUBMIT_UNCLEAR = (
    f"submitted to the provider's batch API {MAX_UNCLEAR_SUBMISSIONS} times without a known "
    "outcome (no job id came back and no job was found by its metadata)"
)


class Lookups(RoundStep):
    """Looks up submissions whose outcome is unknown; one process looks up each."""

    async def resolve_unclear(self) -> None:
        """Submissions whose outcome is unknown (`unclear`, or `submitting` past its lease: a
        killed submitter) are looked up at the provider; one process looks up each."""
        now = utcnow()
        async with self.sessionmaker() as session:
            due = (
                await session.execute(
                    select(ProviderJob.id, ProviderJob.state, ProviderJob.next_poll_at).where(
                        or_(
                            and_(
                                ProviderJob.state == ProviderJobState.SUBMITTING,
                                ProviderJob.next_poll_at < now,
                            ),
                            and_(
                                ProviderJob.state == ProviderJobState.UNCLEAR,
                                ProviderJob.next_poll_at <= now,
                            ),
                        )
                    )
                )
            ).all()
        await self.each_claimed(due, self.claim_lookup, self.look_up, "provider_lookup_failed")

    async def claim_lookup(self, job_id: str, state: str, seen: datetime) -> bool:
        """Take the row for one lookup (a lookup killed midway is retried after its lease)."""
        async with self.sessionmaker() as session:
            result = await session.execute(
                update(ProviderJob)
                .where(
                    ProviderJob.id == job_id,
                    ProviderJob.state == state,
                    ProviderJob.next_poll_at == seen,
                )
                .values(
                    state=ProviderJobState.UNCLEAR,
                    next_poll_at=utcnow() + timedelta(seconds=TRANSFER_TIMEOUT_S),
                )
            )
            await session.commit()
        return rowcount(result) == 1

    async def look_up(self, job_id: str) -> None:
        """Find the job an unclear submission may have made, by its metadata (Anthropic keeps
        none: by its size and creation time); adopt it when exactly one unknown job matches, or
        give the submission up."""
        async with self.sessionmaker() as session:
            job = await session.get(ProviderJob, job_id)
            if job is None or job.state != ProviderJobState.UNCLEAR:
                return
            batch_id, judge_name, lookups = job.batch_id, job.judge_name, job.polls
            count, created_at = job.request_count, job.created_at
        try:
            judge = await self.batch_judge(judge_name)
        except ServiceUnavailable:  # not callable from this process now: later, or another
            await self.defer_lookup(job_id, lookups)
            return
        if judge is None:
            await self.give_up(job_id, "the judge has no batch API any more to look the job up")
            return
        skew = timedelta(seconds=LOOKUP_SKEW_S)
        window = (created_at - skew, created_at + timedelta(seconds=SUBMIT_LEASE_S) + skew)
        try:
            found = await judge.batch_api().find(submit_metadata(batch_id, job_id), count, window)
        except ProviderCallError as exc:
            log.warning("provider_lookup_failed", job=job_id, kind=exc.kind, error=exc.message)
            if lookups + 1 < MAX_LOOKUPS:
                await self.defer_lookup(job_id, lookups + 1)
                return
            found = []
        fresh = await self.unknown_jobs(found)
        if len(fresh) == 1:
            await self.adopt(job_id, fresh[0])
        else:
            await self.give_up(job_id, f"{len(fresh)} matching jobs found at the provider")

    async def unknown_jobs(self, found: Sequence[ReportedBatchJob]) -> list[ReportedBatchJob]:
        """The jobs found that no row holds already."""
        if not found:
            return []
        async with self.sessionmaker() as session:
            known = set(
                await session.scalars(
                    select(ProviderJob.external_id).where(
                        ProviderJob.external_id.in_([job.id for job in found])
                    )
                )
            )
        return [job for job in found if job.id not in known]

    async def adopt(self, job_id: str, status: ReportedBatchJob) -> None:
        """The provider has the job after all: poll it like any submitted job."""
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == ProviderJobState.UNCLEAR)
                .values(**submitted_values(status, self.settings), polls=0)
            )
            await session.commit()
        log.warning("provider_job_found_by_lookup", job=status.id)

    async def give_up(self, job_id: str, reason: str) -> None:
        """No job was made (as far as can be told): the requests go back to pending, or fail
        once they were in MAX_UNCLEAR_SUBMISSIONS such submissions; the row stays `abandoned`."""
        async with self.sessionmaker() as session:
            taken = await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == ProviderJobState.UNCLEAR)
                .values(
                    state=ProviderJobState.ABANDONED,
                    ended_at=utcnow(),
                    error=f"not submitted: {reason}",
                )
            )
            if rowcount(taken) != 1:  # the submission finished meanwhile
                await session.rollback()
                return
            last = ProviderRequest.unclear_submissions >= MAX_UNCLEAR_SUBMISSIONS - 1
            await fail_requests(
                session, self.settings, "submit_unclear", SUBMIT_UNCLEAR, *in_job(job_id), last
            )
            await session.execute(
                update(ProviderRequest)
                .where(*in_job(job_id))
                .values(
                    state=PENDING,
                    job_id=None,
                    unclear_submissions=ProviderRequest.unclear_submissions + 1,
                )
            )
            await session.commit()
        log.warning("provider_submission_given_up", job=job_id, reason=reason)
