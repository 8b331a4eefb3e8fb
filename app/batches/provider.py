"""Provider-mode batches: a judge with a batch API gets a batch's calls through its provider's
batch jobs (OpenAI's Batch API, Anthropic's Message Batches) at about half the price.

How an item runs (docs/BATCHES.md):
1. A delivery runs the item through the kernel as a live one, except that a batch judge's calls
   are deferred: `ItemDeferral` keeps what the judge would send, the kernel parks the job
   `waiting`, and `park` stores those requests by `custom_id` with the item `waiting` (no lease:
   no worker holds it, the reconciler and the sweeper skip it).
2. Every `provider_tick_s`, in each worker (or the API without Redis), `ProviderRounds.tick`:
   - submits: a batch none of whose items is queued or running has each judge's pending
     requests put into provider jobs (split at the provider's limits), claimed by one process;
   - polls each job that is due, one process each, backing off; an ended job has its results
     mapped onto its requests by `custom_id` and its files deleted at the provider; a job failed
     whole sends its requests once more, and fails them the second time;
   - wakes: a waiting item whose requests are all resolved is queued again.
3. That delivery asks the same requests (the draws are seeded per item), finds their answers
   and stores them as calls, parsed as live answers are; the protocol goes on (an adaptive
   pair's escalation is deferred in turn: the next wave) or the item finishes.

Over 500 lines until issue 38 splits it by concern: keys and sealing, the deferral, the rounds.
"""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import datetime, timedelta
from typing import Any

import structlog
from sqlalchemy import and_, bindparam, delete, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.background import running, survive
from app.batches.deferral import ItemDeferral, PendingCall, deferral_for, park
from app.batches.models import Batch, BatchItem, ProviderJob, ProviderRequest
from app.batches.provider_keys import result_json, seal, unseal
from app.batches.provider_requests import (
    PENDING,
    RESOLVED,
    SUBMITTED,
    cancel_batch,
    cancel_pending,
    fail_requests,
    forget_requests,
    has_requests,
    release_jobs,
)
from app.batches.queue import ItemQueue
from app.config import Settings
from app.db import rowcount, utcnow
from app.errors import AppError, ServiceUnavailable
from app.jobs.kind import Services
from app.judging.batchapi import BatchApi, BatchRequest, RequestResult
from app.judging.batchapi import ProviderJob as JobStatus
from app.judging.providers.http import TRANSFER_TIMEOUT_S, HttpJudge
from app.judging.retries import ProviderCallError

# What the runner, the batch service and the workers import from provider mode.
__all__ = [
    "ItemDeferral",
    "PendingCall",
    "cancel_batch",
    "deferral_for",
    "forget_requests",
    "has_requests",
    "park",
    "run_provider_rounds",
]

log = structlog.get_logger()
Sessionmaker = async_sessionmaker[AsyncSession]

# A job row whose submission has not finished this long after it was claimed was left by a
# killed process: its requests go back to pending. Longer than an upload and a create can take
# together (TRANSFER_TIMEOUT_S each), so a slow submission is never taken over while it runs.
SUBMIT_LEASE_S = 3 * TRANSFER_TIMEOUT_S
# A provider job still running this long after its own expiry is given up on: cancelled, and its
# requests fail (a provider that never ends a job must not hold items forever).
EXPIRY_GRACE_S = 3600.0
# Submissions the provider refused for good: the requests fail instead of being sent again.
REFUSED_FOR_GOOD = frozenset({"bad_request", "auth", "unsupported_parameter"})
# Submission failures after which the provider may still have created the job: the row becomes
# `unclear` and the provider's jobs are looked up by its metadata before anything is resent.
OUTCOME_UNKNOWN = frozenset({"timeout", "connection", "server_error"})
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
NO_RESULT = "the provider's job ended without a result for this request"
JUDGE_GONE = "the judge was retired while its provider batch job ran"
OVERDUE = "the provider's batch job did not end (or could not be read) by its deadline"
FAILED_TWICE = "the provider failed the batch job whole, twice"
SUBMIT_UNCLEAR = (
    f"submitted to the provider's batch API {MAX_UNCLEAR_SUBMISSIONS} times without a known "
    "outcome (no job id came back and no job was found by its metadata)"
)


# --- The rounds ------------------------------------------------------------------------------


class ProviderRounds:
    """Submits, polls and wakes; every step is claimed by a conditional UPDATE, so any number
    of processes may run rounds and each request is submitted once and each job polled once."""

    def __init__(self, services: Services, queue: ItemQueue) -> None:
        self.services = services
        self.settings = services.settings
        self.sessionmaker = services.sessionmaker
        self.queue = queue

    async def tick(self) -> None:
        """One round: take back stalled submissions, submit, poll what is due, wake. A step
        that fails is logged and the others still run (one bad row must not stop every batch)."""
        for step in (self.settle_unclear, self.submit_ready, self.poll_due, self.wake_ready):
            try:
                await step()
            except Exception as exc:  # the next round retries
                survive(exc)
                log.warning("provider_step_failed", step=step.__name__, error=type(exc).__name__)

    # Submitting

    async def settle_unclear(self) -> None:
        """Submissions whose outcome is unknown (`unclear`, or `submitting` past its lease: a
        killed submitter) are looked up at the provider; one process looks up each."""
        now = utcnow()
        async with self.sessionmaker() as session:
            due = (
                await session.execute(
                    select(ProviderJob.id, ProviderJob.state, ProviderJob.next_poll_at).where(
                        or_(
                            and_(ProviderJob.state == "submitting", ProviderJob.next_poll_at < now),
                            and_(ProviderJob.state == "unclear", ProviderJob.next_poll_at <= now),
                        )
                    )
                )
            ).all()
        for job_id, state, seen in due:
            try:
                if await self.claim_lookup(job_id, state, seen):
                    await self.look_up(job_id)
            except Exception as exc:  # one job must not hold up the others
                survive(exc)
                log.warning("provider_lookup_failed", job=job_id, error=type(exc).__name__)

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
                    state="unclear",
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
            if job is None or job.state != "unclear":
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

    async def defer_lookup(self, job_id: str, lookups: int) -> None:
        """Look the job up again later, `lookups` failed so far."""
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == "unclear")
                .values(polls=lookups, next_poll_at=utcnow() + timedelta(seconds=UNCLEAR_LOOKUP_S))
            )
            await session.commit()

    async def unknown_jobs(self, found: Sequence[JobStatus]) -> list[JobStatus]:
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

    async def adopt(self, job_id: str, status: JobStatus) -> None:
        """The provider has the job after all: poll it like any submitted job."""
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == "unclear")
                .values(**self.submitted_values(status), polls=0)
            )
            await session.commit()
        log.warning("provider_job_found_by_lookup", job=status.id)

    async def give_up(self, job_id: str, reason: str) -> None:
        """No job was made (as far as can be told): the requests go back to pending, or fail
        once they were in MAX_UNCLEAR_SUBMISSIONS such submissions; the row stays `abandoned`."""
        in_job = (ProviderRequest.job_id == job_id, ProviderRequest.state == SUBMITTED)
        async with self.sessionmaker() as session:
            taken = await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == "unclear")
                .values(state="abandoned", ended_at=utcnow(), error=f"not submitted: {reason}")
            )
            if rowcount(taken) != 1:  # the submission finished meanwhile
                await session.rollback()
                return
            last = ProviderRequest.unclear_submissions >= MAX_UNCLEAR_SUBMISSIONS - 1
            await fail_requests(
                session, self.settings, "submit_unclear", SUBMIT_UNCLEAR, *in_job, last
            )
            await session.execute(
                update(ProviderRequest)
                .where(*in_job)
                .values(
                    state=PENDING,
                    job_id=None,
                    unclear_submissions=ProviderRequest.unclear_submissions + 1,
                )
            )
            await session.commit()
        log.warning("provider_submission_given_up", job=job_id, reason=reason)

    async def submit_ready(self) -> None:
        """Submit the pending requests of every batch whose wave is complete (no item queued or
        running), per judge."""
        busy = (
            select(BatchItem.id)
            .where(
                BatchItem.batch_id == ProviderRequest.batch_id,
                BatchItem.status.in_(("queued", "running")),
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
            if exc.kind in REFUSED_FOR_GOOD:
                await self.refused(job_id, exc)
            elif exc.kind not in OUTCOME_UNKNOWN:
                await self.unclaim(job_id)  # refused for now (rate limited): next round
            else:  # the provider may have the job: look it up before sending anything again
                await self.unclear(job_id, f"{exc.kind}: {exc.message}")
            return False
        except Exception as exc:  # anything else: the outcome is just as unknown
            survive(exc)
            log.warning("provider_submit_failed", judge=judge_name, error=type(exc).__name__)
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
        return True

    def submitted_values(self, status: JobStatus) -> dict[str, Any]:
        """The row of a job the provider has: polled from now on."""
        now = utcnow()
        return {
            "external_id": status.id,
            "state": "running",
            "submitted_at": now,
            "next_poll_at": now + timedelta(seconds=self.settings.provider_poll_min_s),
            **status_values(status, self.settings),
        }

    async def store_submitted(self, job_id: str, status: JobStatus) -> bool:
        """Store the provider's id at once (also over a lookup still running: the answer is
        certain); False when the submission was given up on meanwhile."""
        async with self.sessionmaker() as session:
            finished = await session.execute(
                update(ProviderJob)
                .where(
                    ProviderJob.id == job_id,
                    ProviderJob.state.in_(("submitting", "unclear")),
                )
                .values(**self.submitted_values(status))
            )
            await session.commit()
        return rowcount(finished) == 1

    async def unclear(self, job_id: str, reason: str) -> None:
        """A submission whose outcome is unknown: looked up after UNCLEAR_LOOKUP_S."""
        async with self.sessionmaker() as session:
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id, ProviderJob.state == "submitting")
                .values(
                    state="unclear",
                    error=reason[:2000],
                    next_poll_at=utcnow() + timedelta(seconds=UNCLEAR_LOOKUP_S),
                )
            )
            await session.commit()

    async def refused(self, job_id: str, error: ProviderCallError) -> None:
        """A submission the provider refused for good: its requests fail with the refusal."""
        in_job = (ProviderRequest.job_id == job_id, ProviderRequest.state == SUBMITTED)
        async with self.sessionmaker() as session:
            await fail_requests(session, self.settings, error.kind, error.message, *in_job)
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id)
                .values(
                    state="failed", ended_at=utcnow(), error=job_error(self.settings, error.message)
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
                    state="submitting",
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

    # Polling

    async def poll_due(self) -> None:
        """Poll every running job that is due; each is claimed by moving its next poll on."""
        now = utcnow()
        async with self.sessionmaker() as session:
            due = (
                await session.execute(
                    select(ProviderJob.id, ProviderJob.next_poll_at, ProviderJob.polls).where(
                        ProviderJob.state == "running", ProviderJob.next_poll_at <= now
                    )
                )
            ).all()
        for job_id, seen, polls in due:
            try:
                if await self.claim_poll(job_id, seen, polls):
                    await self.poll(job_id)
            except Exception as exc:  # one job must not hold up the others
                survive(exc)
                log.warning("provider_poll_failed", job=job_id, error=type(exc).__name__)

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
                    ProviderJob.state == "running",
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
    async def cancel_or_retrieve(api: BatchApi, external_id: str, cancel: bool) -> JobStatus:
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

    async def record_status(self, job_id: str, status: JobStatus, *, cancel_sent: bool) -> None:
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
        in_job = (ProviderRequest.job_id == job_id, ProviderRequest.state == SUBMITTED)
        async with self.sessionmaker() as session:
            await fail_requests(session, self.settings, "server_error", missing, *in_job)
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id)
                .values(state="ended", ended_at=utcnow())
            )
            await session.commit()
        log.info("provider_job_mapped", job=job_id)

    async def failed_whole(self, job_id: str) -> None:
        """A job the provider failed whole: its requests are submitted once more; those that
        were already in a failed job fail (`batch_failed`)."""
        in_job = (ProviderRequest.job_id == job_id, ProviderRequest.state == SUBMITTED)
        async with self.sessionmaker() as session:
            second = ProviderRequest.job_failures >= 1
            await fail_requests(
                session, self.settings, "batch_failed", FAILED_TWICE, *in_job, second
            )
            await session.execute(
                update(ProviderRequest)
                .where(*in_job)
                .values(state=PENDING, job_id=None, job_failures=ProviderRequest.job_failures + 1)
            )
            await session.execute(
                update(ProviderJob)
                .where(ProviderJob.id == job_id)
                .values(state="failed", ended_at=utcnow())
            )
            await session.commit()
        log.warning("provider_job_failed_whole", job=job_id)

    # Waking

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
                    .where(BatchItem.status == "waiting", ~unresolved)
                    .values(status="queued", attempts=0, enqueued_at=utcnow())
                    .returning(BatchItem.id)
                )
            )
            await session.commit()
        if ids:
            await self.queue.enqueue(ids)
        return len(ids)


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


def status_values(status: JobStatus, settings: Settings) -> dict[str, Any]:
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
