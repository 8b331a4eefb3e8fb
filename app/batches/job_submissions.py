"""Submitting: a batch whose wave is complete has each judge's pending requests claimed into
provider jobs (split at the provider's limits) and sent, each request into one job only.

Apart from the lookups and the polls because it is the one step that sends requests and so
spends money: every path out of a submission either stores the provider's job id, takes the
requests back for the next round, fails them for good, or marks the outcome unknown for a
lookup before anything is sent again.
"""

from __future__ import annotations

import contextlib
import uuid
from datetime import datetime, timedelta

import structlog
from sqlalchemy import delete, select, update

from app import metrics
from app.background import survive
from app.batches.models import (
    Batch,
    BatchItem,
    ItemStatus,
    ProviderJob,
    ProviderJobState,
    ProviderRequest,
)
from app.batches.provider_jobs import (
    SUBMIT_LEASE_S,
    RoundStep,
    job_error,
    submit_metadata,
    submitted_values,
)
from app.batches.provider_keys import unseal
from app.batches.provider_requests import (
    PENDING,
    SUBMITTED,
    cancel_pending,
    fail_requests,
    in_job,
    release_jobs,
)
from app.db import rowcount, utcnow
from app.errors import ServiceUnavailable
from app.judging.batchapi import BatchApi, BatchRequest, ReportedBatchJob
from app.judging.providers.http import HttpJudge
from app.judging.retries import ProviderCallError

log = structlog.get_logger()

# Submissions the provider refused for good: the requests fail instead of being sent again.
REFUSED_FOR_GOOD = frozenset({"bad_request", "auth", "unsupported_parameter"})
# Submission failures after which the provider may still have created the job: the row becomes
# `unclear` and the provider's jobs are looked up by its metadata before anything is resent.
OUTCOME_UNKNOWN = frozenset({"timeout", "connection", "server_error"})


class Submissions(RoundStep):
    """Claims and sends pending requests; a conditional UPDATE puts each in one job only."""

    async def submit_ready(self) -> None:
        """Submit the pending requests of every batch whose wave is complete (no item queued or
        running), per judge."""
        busy = (
            select(BatchItem.id)
            .where(
                BatchItem.batch_id == ProviderRequest.batch_id,
                BatchItem.status.in_((ItemStatus.QUEUED, ItemStatus.RUNNING)),
            )
            .exists()
        )
        async with self.sessionmaker() as session:
            ready = (
                await session.execute(
                    select(ProviderRequest.batch_id, ProviderRequest.judge_name, Batch.cancelled_at)
                    .join(Batch, Batch.id == ProviderRequest.batch_id)
                    .where(ProviderRequest.state == PENDING, ~busy)
                    .distinct()
                )
            ).all()
        for batch_id, judge_name, cancelled_at in ready:
            try:
                if cancelled_at is not None:  # nothing new goes out for a cancelled batch
                    async with self.sessionmaker() as session:
                        await cancel_pending(session, batch_id, self.settings)
                        await session.commit()
                else:
                    await self.submit_judge(batch_id, judge_name)
            except Exception as exc:  # one batch must not hold up the others
                survive(exc)
                log.warning("provider_submit_failed", batch=batch_id, error=type(exc).__name__)

    async def submit_judge(self, batch_id: str, judge_name: str) -> None:
        """Every pending request of one judge of one batch, in jobs within the provider's
        limits; a judge that no longer has a batch API gets its items woken to run live."""
        try:
            judge = await self.batch_judge(judge_name)
        except ServiceUnavailable:
            return  # not callable from this process now (its key, say): the next round retries
        if judge is None:
            await self.drop_pending(batch_id, judge_name)
            return
        api = judge.batch_api()
        while await self.submit_one(batch_id, judge, api):
            pass

    async def submit_one(self, batch_id: str, judge: HttpJudge, api: BatchApi) -> bool:
        """Claim up to a job's worth of pending requests and submit them; False when none was
        left (or the provider refused: the next round tries again)."""
        job_id, now, judge_name = str(uuid.uuid4()), utcnow(), judge.config.name
        claimed = await self.claim_requests(batch_id, judge, job_id, api, now)
        if not claimed:
            return False
        try:
            status = await api.submit(claimed, submit_metadata(batch_id, job_id))
        except ProviderCallError as exc:
            log.warning(
                "provider_submit_failed", judge=judge_name, kind=exc.kind, error=exc.message
            )
            refused = exc.kind in REFUSED_FOR_GOOD
            metrics.PROVIDER_JOBS.labels("refused" if refused else "submit_failed").inc()
            if refused:
                await self.refused(job_id, exc)
            elif exc.kind not in OUTCOME_UNKNOWN:
                await self.unclaim(job_id)  # refused for now (rate limited): next round
            else:  # the provider may have the job: look it up before sending anything again
                await self.unclear(job_id, f"{exc.kind}: {exc.message}")
            return False
        except Exception as exc:  # anything else: the outcome is just as unknown
            survive(exc)
            log.warning("provider_submit_failed", judge=judge_name, error=type(exc).__name__)
            metrics.PROVIDER_JOBS.labels("submit_failed").inc()
            await self.unclear(job_id, f"the submission failed: {type(exc).__name__}")
            return False
        try:
            stored = await self.store_submitted(job_id, status)
        except Exception as exc:  # the answer could not be stored: the job may exist
            survive(exc)
            log.warning("provider_job_not_stored", judge=judge_name, error=type(exc).__name__)
            await self.unclear(job_id, f"the job could not be stored: {type(exc).__name__}")
            return False
        if not stored:
            # Given up on meanwhile (its requests went to another job): this one goes unused.
            log.warning("provider_job_orphaned", judge=judge_name, job=status.id)
            with contextlib.suppress(ProviderCallError):
                await api.cancel(status.id)
            return False
        log.info("provider_job_submitted", judge=judge_name, job=status.id, requests=len(claimed))
        metrics.PROVIDER_JOBS.labels("submitted").inc()
        return True

    async def store_submitted(self, job_id: str, status: ReportedBatchJob) -> bool:
        """Store the provider's id at once (also over a lookup still running: the answer is
        certain); False when the submission was given up on meanwhile."""
        async with self.sessionmaker() as session:
            finished = await session.execute(
                update(ProviderJob)
                .where(
                    ProviderJob.id == job_id,
                    ProviderJob.state.in_((ProviderJobState.SUBMITTING, ProviderJobState.UNCLEAR)),
                )
                .values(**submitted_values(status, self.settings))
            )
            await session.commit()
        return rowcount(finished) == 1

    async def refused(self, job_id: str, error: ProviderCallError) -> None:
        """A submission the provider refused for good: its requests fail with the refusal."""
        async with self.sessionmaker() as session:
            await fail_requests(session, self.settings, error.kind, error.message, *in_job(job_id))
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id)
                .values(
                    state=ProviderJobState.FAILED,
                    ended_at=utcnow(),
                    error=job_error(self.settings, error.message),
                )
            )
            await session.commit()

    async def claim_requests(
        self, batch_id: str, judge: HttpJudge, job_id: str, api: BatchApi, now: datetime
    ) -> list[BatchRequest]:
        """A new job row holding up to `api.max_requests` pending requests within
        `api.max_bytes` (those past it go back to pending for the next job)."""
        pending = (
            select(ProviderRequest.custom_id)
            .where(
                ProviderRequest.batch_id == batch_id,
                ProviderRequest.judge_name == judge.config.name,
                ProviderRequest.state == PENDING,
            )
            # An item's requests side by side: a job that expires half done finishes whole items.
            .order_by(
                ProviderRequest.created_at, ProviderRequest.item_id, ProviderRequest.custom_id
            )
            .limit(api.max_requests)
        )
        async with self.sessionmaker() as session:
            session.add(
                ProviderJob(
                    id=job_id,
                    batch_id=batch_id,
                    judge_name=judge.config.name,
                    provider=judge.config.provider,
                    state=ProviderJobState.SUBMITTING,
                    request_count=0,
                    succeeded=0,
                    failed=0,
                    created_at=now,
                    next_poll_at=now + timedelta(seconds=SUBMIT_LEASE_S),
                    polls=0,
                    cancel_requested=False,
                )
            )
            await session.flush()
            # `state == PENDING` again outside the subquery: a concurrent claim that took a row
            # first makes PostgreSQL's recheck skip it, so no request is in two jobs.
            rows = (
                await session.execute(
                    update(ProviderRequest)
                    .where(
                        ProviderRequest.custom_id.in_(pending.scalar_subquery()),
                        ProviderRequest.state == PENDING,
                    )
                    .values(state=SUBMITTED, job_id=job_id)
                    .returning(
                        ProviderRequest.created_at,
                        ProviderRequest.item_id,
                        ProviderRequest.custom_id,
                        ProviderRequest.body,
                        ProviderRequest.encrypted,
                    )
                )
            ).all()
            requests: list[BatchRequest] = []
            over: list[str] = []
            size = 0
            # RETURNING keeps no order: the job's order is the claim's.
            for _at, _item, custom_id, body, encrypted in sorted(rows, key=lambda r: r[:3]):
                assert body is not None  # kept until the request is resolved
                request = BatchRequest(custom_id, unseal(self.settings, body, encrypted))
                size += api.request_size(request)
                if requests and size > api.max_bytes:
                    over.append(custom_id)
                else:
                    requests.append(request)
            if over:
                await session.execute(
                    update(ProviderRequest)
                    .where(ProviderRequest.custom_id.in_(over))
                    .values(state=PENDING, job_id=None)
                )
            if not requests:
                await session.rollback()
                return []
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id)
                .values(request_count=len(requests))
            )
            await session.commit()
        return requests

    async def unclaim(self, job_id: str) -> None:
        """A submission the provider refused: its requests go back to pending, the row goes."""
        async with self.sessionmaker() as session:
            await release_jobs(session, [job_id])
            await session.commit()

    async def drop_pending(self, batch_id: str, judge_name: str) -> None:
        """Pending requests of a judge without a batch API now (changed or retired): dropped,
        so that their items wake and run the judge live."""
        async with self.sessionmaker() as session:
            await session.execute(
                delete(ProviderRequest).where(
                    ProviderRequest.batch_id == batch_id,
                    ProviderRequest.judge_name == judge_name,
                    ProviderRequest.state == PENDING,
                )
            )
            await session.commit()
