"""Polling: each running provider job is looked at when due (one process per poll, backing
off), asked to cancel when its batch was, and once it has ended its results are mapped onto its
requests by `custom_id` and its files deleted at the provider.

Apart from submitting because a job, once the provider has it, is only ever read: nothing here
sends a request, and a job that fails whole hands its requests back to be submitted once more.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app import metrics
from app.batches.models import ProviderJob, ProviderJobState, ProviderRequest
from app.batches.provider_jobs import RoundStep, past_deadline, status_values
from app.batches.provider_keys import result_json, seal
from app.batches.provider_requests import PENDING, RESOLVED, SUBMITTED, fail_requests, in_job
from app.db import rowcount, utcnow
from app.errors import ServiceUnavailable
from app.judging.batchapi import BatchApi, ReportedBatchJob, RequestResult
from app.judging.retries import ProviderCallError

log = structlog.get_logger()

NO_RESULT = "the provider's job ended without a result for this request"
JUDGE_GONE = "the judge was retired while its provider batch job ran"
OVERDUE = "the provider's batch job did not end (or could not be read) by its deadline"
FAILED_TWICE = "the provider failed the batch job whole, twice"


class Polls(RoundStep):
    """Polls the jobs that are due and maps the results of those that ended."""

    async def poll_due(self) -> None:
        """Poll every running job that is due; each is claimed by moving its next poll on."""
        now = utcnow()
        async with self.sessionmaker() as session:
            due = (
                await session.execute(
                    select(ProviderJob.id, ProviderJob.next_poll_at, ProviderJob.polls).where(
                        ProviderJob.state == ProviderJobState.RUNNING,
                        ProviderJob.next_poll_at <= now,
                    )
                )
            ).all()
        await self.each_claimed(due, self.claim_poll, self.poll, "provider_poll_failed")

    async def claim_poll(self, job_id: str, seen: datetime, polls: int) -> bool:
        """Move the job's next poll on (doubling the wait); False when another process did."""
        wait = min(
            self.settings.provider_poll_max_s,
            self.settings.provider_poll_min_s * 2 ** min(polls, 20),
        )
        async with self.sessionmaker() as session:
            result = await session.execute(
                update(ProviderJob)
                .where(
                    ProviderJob.id == job_id,
                    ProviderJob.state == ProviderJobState.RUNNING,
                    ProviderJob.next_poll_at == seen,
                )
                .values(next_poll_at=utcnow() + timedelta(seconds=wait), polls=polls + 1)
            )
            await session.commit()
        return rowcount(result) == 1

    async def poll(self, job_id: str) -> None:
        """Look at one job: cancel it if asked, store its counts, and map its results once it
        has ended. A job long past the provider's own deadline is given up on."""
        async with self.sessionmaker() as session:
            job = await session.get(ProviderJob, job_id)
            if job is None or job.external_id is None:
                return
            external_id, judge_name, cancel = job.external_id, job.judge_name, job.cancel_requested
            overdue = past_deadline(job.expires_at, job.submitted_at or job.created_at, utcnow())
        try:
            judge = await self.http_judge(judge_name)
        except ServiceUnavailable:
            return  # not callable from this process now: the next poll retries
        if judge is None:
            # Retired (or no longer an HTTP judge): nothing can poll the job with its key now.
            log.warning("provider_job_without_judge", judge=judge_name, job=external_id)
            await self.resolve(job_id, [], missing=JUDGE_GONE)
            return
        api = judge.batch_api()
        try:
            status = await self.cancel_or_retrieve(api, external_id, cancel or overdue)
            await self.record_status(job_id, status, cancel_sent=cancel)
            if status.ended and status.failed_whole:
                await self.failed_whole(job_id)
            elif status.ended:
                async with contextlib.aclosing(api.results(status)) as chunks:
                    async for results in chunks:  # stored as parsed: memory holds one chunk
                        await self.store_results(job_id, results)
                await self.resolve(job_id)
            elif overdue:
                await self.resolve(job_id, [], missing=OVERDUE)
        except ProviderCallError as exc:
            log.warning("provider_poll_failed", job=external_id, kind=exc.kind, error=exc.message)
            if overdue:  # the provider's deadline passed long ago: give the job up
                await self.resolve(job_id, [], missing=OVERDUE)
            return
        if status.ended:
            with contextlib.suppress(ProviderCallError):
                await api.cleanup(status)

    @staticmethod
    async def cancel_or_retrieve(api: BatchApi, external_id: str, cancel: bool) -> ReportedBatchJob:
        """The job as the provider sees it, asked to cancel first when the batch was; a cancel
        the provider refuses as a bad request (the job has ended meanwhile) is not asked
        again."""
        if cancel:
            try:
                return await api.cancel(external_id)
            except ProviderCallError as exc:
                if exc.kind != "bad_request":
                    raise  # transient: the next poll asks again
        return await api.retrieve(external_id)

    async def record_status(
        self, job_id: str, status: ReportedBatchJob, *, cancel_sent: bool
    ) -> None:
        """The provider's state and counts on the job row."""
        values = status_values(status, self.settings)
        if cancel_sent:
            values["cancel_requested"] = False
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob).where(ProviderJob.id == job_id).values(**values)
            )
            await session.commit()

    async def store_results(self, job_id: str, results: Sequence[RequestResult]) -> None:
        """Results of the job's submitted requests (others, not its own, are ignored)."""
        table: Any = ProviderRequest.__table__
        rows = []
        for result in results:
            sealed, encrypted = seal(self.settings, result_json(result))
            rows.append({"b_id": result.custom_id, "b_result": sealed, "b_encrypted": encrypted})
        if not rows:
            return
        async with self.sessionmaker() as session:
            connection = await session.connection()
            await connection.execute(
                update(table)
                .where(
                    table.c.custom_id == bindparam("b_id"),
                    table.c.job_id == job_id,
                    table.c.state == SUBMITTED,
                )
                .values(
                    state=RESOLVED,
                    result=bindparam("b_result"),
                    encrypted=bindparam("b_encrypted"),
                    body=None,
                ),
                rows,
            )
            await session.commit()

    async def resolve(
        self, job_id: str, results: Sequence[RequestResult] = (), missing: str = NO_RESULT
    ) -> None:
        """The job has ended: `results` are stored, and each submitted request still without
        one fails, saying `missing`."""
        await self.store_results(job_id, results)
        async with self.sessionmaker() as session:
            await fail_requests(session, self.settings, "server_error", missing, *in_job(job_id))
            await end_job(session, job_id, ProviderJobState.ENDED)
            await session.commit()
        log.info("provider_job_mapped", job=job_id)
        metrics.PROVIDER_JOBS.labels("ended").inc()

    async def failed_whole(self, job_id: str) -> None:
        """A job the provider failed whole: its requests are submitted once more; those that
        were already in a failed job fail (`batch_failed`)."""
        async with self.sessionmaker() as session:
            second = ProviderRequest.job_failures >= 1
            await fail_requests(
                session, self.settings, "batch_failed", FAILED_TWICE, *in_job(job_id), second
            )
            await session.execute(
                update(ProviderRequest)
                .where(*in_job(job_id))
                .values(state=PENDING, job_id=None, job_failures=ProviderRequest.job_failures + 1)
            )
            await end_job(session, job_id, ProviderJobState.FAILED)
            await session.commit()
        log.warning("provider_job_failed_whole", job=job_id)
        metrics.PROVIDER_JOBS.labels("failed_whole").inc()


async def end_job(session: AsyncSession, job_id: str, state: str) -> None:
    """The job row as the provider left it for good: `ended` (mapped) or `failed` (whole)."""
    await session.execute(
        update(ProviderJob).where(ProviderJob.id == job_id).values(state=state, ended_at=utcnow())
    )
