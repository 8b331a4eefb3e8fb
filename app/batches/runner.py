"""Runs one delivery of a batch item: take its lease, run its request, record the outcome.

The lease is renewed every third of its length while the item runs, so a slow item is never
handed to a second process; a process that finds its lease taken stops working on the item.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from dataclasses import dataclass

import structlog
from cryptography.fernet import InvalidToken
from pydantic import ValidationError
from sqlalchemy import select

from app import metrics
from app.batches import leases, provider
from app.batches.leases import Claim
from app.batches.models import Batch, ItemStatus
from app.batches.ratelimit import RateLimitNotes
from app.comparisons.schemas import CompareRequest
from app.comparisons.service import CompareKind
from app.errors import DATABASE_ERRORS, AppError, ServiceUnavailable
from app.jobs.kind import Delivery, Services
from app.jobs.lifecycle import run_item
from app.jobs.models import JobStatus
from app.judges import crypto
from app.judging.ratelimit import RATE_LIMIT_WAIT
from app.ledger import experiments
from app.scoring.calibration import CalibrationCache
from app.scoring.schemas import ScoreRequest
from app.scoring.service import ScoreKind

log = structlog.get_logger()
API_KEY_CACHE = 1000
# Failures that say nothing about the item: it runs again once the database is back.
POSTPONED: tuple[type[Exception], ...] = (ServiceUnavailable, *DATABASE_ERRORS)


class LeaseLostError(Exception):
    """Another process holds the item now (this one stalled past its lease)."""


@dataclass(frozen=True)
class ItemOutcome:
    """How a delivery ended: completed, failed with a problem type and a sentence, or waiting
    on the provider batch jobs its `deferred` calls go to."""

    status: ItemStatus
    error_kind: str | None = None
    error: str | None = None
    deferred: tuple[provider.PendingCall, ...] = ()


@dataclass(frozen=True)
class BatchOf:
    """What every item of a batch runs under: the key that submitted it, and its mode."""

    api_key_id: str
    mode: str


class ItemRunner:
    """Runs item deliveries; `slots` bounds them when the process has no other bound."""

    def __init__(
        self,
        services: Services,
        owner: str,
        slots: int | None = None,
        kinds: tuple[CompareKind, ScoreKind] | None = None,
        rate_limits: RateLimitNotes | None = None,
    ) -> None:
        self.services = services
        self.rate_limits = rate_limits
        # The process's kinds (the API's `State`); a worker makes its own.
        self.compare, self.score = kinds or (CompareKind(), ScoreKind(CalibrationCache()))
        self.owner = owner
        self.lease_s = services.settings.batch_lease_s
        self._slots = asyncio.Semaphore(slots) if slots else None
        self.waiting = 0
        self._active: dict[asyncio.Task[object], Claim | None] = {}
        self.released: list[str] = []
        self.stopping = False
        self._batches: dict[str, BatchOf] = {}
        # Each running experiment's sequence, carried on from item to item.
        self._sequences = experiments.RunningSequences()

    async def __call__(self, item_id: str) -> None:
        """Run one delivery of the item (a delivery of a finished or held item does nothing)."""
        task = asyncio.current_task()
        assert task is not None
        if self.stopping:
            return  # still queued in the database: sent again by the next process
        self._active[task] = None
        try:
            if self._slots is None:
                await self._deliver(task, item_id)
                return
            self.waiting += 1
            try:
                await self._slots.acquire()
            finally:
                self.waiting -= 1
            try:
                await self._deliver(task, item_id)
            finally:
                self._slots.release()
        finally:
            self._active.pop(task, None)

    async def _deliver(self, task: asyncio.Task[object], item_id: str) -> None:
        claim = await leases.claim(self.services.sessionmaker, item_id, self.owner, self.lease_s)
        if claim is None:
            return  # finished, cancelled, or running elsewhere under a live lease
        self._active[task] = claim
        structlog.contextvars.bind_contextvars(batch_id=claim.batch_id, item_id=claim.item_id)
        if self.rate_limits is not None:  # the judge calls' waits on a rate limit, for the batch
            RATE_LIMIT_WAIT.set(functools.partial(self.rate_limits.note, claim.batch_id))
        if claim.attempts > self.services.settings.batch_max_attempts:
            await self._finish(
                claim, ItemOutcome(ItemStatus.FAILED, "too-many-attempts", "delivered too often")
            )
            return
        try:
            outcome = await self._hold(claim)
        except asyncio.CancelledError:
            await asyncio.shield(self._hand_back(claim))
            raise
        except LeaseLostError:
            log.warning("batch_item_lease_lost", item_id=item_id)
            return
        except POSTPONED as exc:
            # The lease lapses and the item is sent again once the database is back.
            log.warning("batch_item_postponed", item_id=item_id, error=type(exc).__name__)
            return
        await self._finish(claim, outcome)

    async def _finish(self, claim: Claim, outcome: ItemOutcome) -> None:
        sessionmaker = self.services.sessionmaker
        if outcome.status == ItemStatus.WAITING:
            if not await provider.park(self.services, claim, outcome.deferred):
                log.warning("batch_item_lease_lost", item_id=claim.item_id)
            return
        # Not stored in privacy mode: a validation error quotes the item's input.
        error = self.services.keeper.text(outcome.error)
        held = await leases.finish(sessionmaker, claim, outcome.status, outcome.error_kind, error)
        if not held:
            log.warning("batch_item_lease_lost", item_id=claim.item_id)
            return
        metrics.record_batch_item(outcome.status)
        if (await self._batch_of(claim.batch_id)).mode == "provider":
            await provider.forget_requests(sessionmaker, claim.item_id)

    async def _hand_back(self, claim: Claim) -> None:
        with contextlib.suppress(*DATABASE_ERRORS):
            if await leases.release(self.services.sessionmaker, claim):
                self.released.append(claim.item_id)

    async def _hold(self, claim: Claim) -> ItemOutcome:
        """Run the item while renewing its lease; stop if the lease is lost."""
        work = asyncio.create_task(self._execute(claim))
        lost = asyncio.Event()
        beat = asyncio.create_task(self._heartbeat(claim, work, lost))
        try:
            return await work
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if lost.is_set() and task is not None and not task.cancelling():
                raise LeaseLostError(claim.item_id) from None
            work.cancel()
            await asyncio.gather(work, return_exceptions=True)
            raise
        finally:
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat

    async def _heartbeat(
        self, claim: Claim, work: asyncio.Task[ItemOutcome], lost: asyncio.Event
    ) -> None:
        while not work.done():
            await asyncio.sleep(self.lease_s / 3)
            try:
                if await leases.renew(self.services.sessionmaker, claim, self.lease_s):
                    continue
            except DATABASE_ERRORS:
                continue  # keep working; a lapsed lease shows at the next renewal
            lost.set()
            work.cancel()
            return

    async def _execute(self, claim: Claim) -> ItemOutcome:
        """Run the item's request; expected failures become a failed item, not a crash."""
        try:
            request = self._request(claim)
        except (ValueError, ValidationError, InvalidToken) as exc:
            return ItemOutcome(
                ItemStatus.FAILED, "validation-error", str(exc)[:500] or type(exc).__name__
            )
        # A redelivered item may have calls stored already: it finishes what it started.
        if claim.attempts == 1 and await self._experiment_stopped(request):
            return ItemOutcome(
                ItemStatus.CANCELLED, "experiment-stopped", "its experiment is decided or cancelled"
            )
        try:
            status, deferral = await self._run(claim, request)
        except ServiceUnavailable:
            raise
        except AppError as exc:
            return ItemOutcome(ItemStatus.FAILED, exc.slug, exc.detail)
        if status == JobStatus.WAITING and deferral is not None:
            return ItemOutcome(ItemStatus.WAITING, deferred=tuple(deferral.pending.values()))
        if status == JobStatus.FAILED:
            return ItemOutcome(
                ItemStatus.FAILED, "judges-failed", "no judge produced a result; calls stored"
            )
        return ItemOutcome(ItemStatus.COMPLETED)

    async def _experiment_stopped(self, request: CompareRequest | ScoreRequest) -> bool:
        """Whether the item belongs to an experiment that wants no more comparisons: asked
        before each item spends calls, which is how an experiment stops paying once decided."""
        if not isinstance(request, CompareRequest) or request.experiment is None:
            return False
        async with self.services.sessionmaker() as session:
            return await experiments.stopped(session, request.experiment, self._sequences)

    async def _run(
        self, claim: Claim, request: CompareRequest | ScoreRequest
    ) -> tuple[str, provider.ItemDeferral | None]:
        """Run the comparison or score session under the item's id: its status (`waiting` when
        calls went to provider batch jobs) and the deferral that took them. In a provider-mode
        batch a comparison's batch judges are deferred; score items run live."""
        batch = await self._batch_of(claim.batch_id)
        if isinstance(request, ScoreRequest):  # score items run live
            delivery = Delivery(claim.target_id, batch.api_key_id, claim.origin)
            _score, status = await run_item(self.score, request, delivery, self.services)
            return status, None
        deferral = None
        if batch.mode == "provider":
            deferral = await provider.deferral_for(self.services, claim)
        delivery = Delivery(claim.target_id, batch.api_key_id, claim.origin, deferral)
        _comparison, status = await run_item(self.compare, request, delivery, self.services)
        return status, deferral

    async def _batch_of(self, batch_id: str) -> BatchOf:
        """The key that submitted the batch (its comparisons and sessions are stored under it)
        and its mode; neither changes, so they are kept."""
        if batch_id not in self._batches:
            async with self.services.sessionmaker() as session:
                row = (
                    await session.execute(
                        select(Batch.api_key_id, Batch.mode).where(Batch.id == batch_id)
                    )
                ).first()
            if len(self._batches) >= API_KEY_CACHE:
                self._batches.clear()
            key, mode = row if row is not None else ("", "live")
            self._batches[batch_id] = BatchOf(key or "", mode)
        return self._batches[batch_id]

    def _request(self, claim: Claim) -> CompareRequest | ScoreRequest:
        if claim.payload is None:
            raise ValueError("the item's payload is gone")
        text = claim.payload
        if claim.encrypted:
            settings = self.services.settings
            text = crypto.decrypt(settings.secret_key, text, settings.secret_key_previous)
        if claim.kind == "score":
            return ScoreRequest.model_validate_json(text)
        return CompareRequest.model_validate_json(text)

    async def drain(self, grace_s: float) -> list[str]:
        """Stop; let running items finish within `grace_s` and hand back the rest; their ids.

        Deliveries still waiting for a slot stop at once: their items are queued, untouched.
        """
        self.stopping = True
        unclaimed = {task for task, claim in self._active.items() if claim is None}
        for task in unclaimed:
            task.cancel()
        running = set(self._active) - unclaimed
        if running:
            _done, pending = await asyncio.wait(running, timeout=grace_s)
            for task in pending:
                task.cancel()
        await asyncio.gather(*self._active, return_exceptions=True)
        released, self.released = self.released, []
        return released
