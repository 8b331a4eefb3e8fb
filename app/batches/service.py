"""`POST /v1/batches` and `DELETE /v1/batches/{id}`: validate, store the items, send their ids."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.auth.keys import Principal
from app.batches import provider, queries
from app.batches.models import Batch, BatchItem, BatchStatus, ItemStatus
from app.batches.queue import ItemQueue
from app.batches.schemas import BatchCreate, BatchItemIn, BatchRead
from app.config import Settings
from app.db import utcnow
from app.errors import (
    Forbidden,
    IdempotencyInProgress,
    NotFound,
    ValidationProblem,
)
from app.jobs import idempotency
from app.judges import crypto
from app.judges import service as judges_service
from app.judges.registry import JudgeRegistry
from app.privacy import TextKeeper

Sessionmaker = async_sessionmaker[AsyncSession]


@dataclass(frozen=True)
class SubmitOutcome:
    """The batch, and whether it was replayed from an earlier request with the same key."""

    batch: BatchRead
    replayed: bool


def check_scopes(principal: Principal, items: Sequence[BatchItemIn]) -> None:
    """Compare items need the `compare` scope and score items the `score` scope."""
    for kind in sorted({item.kind for item in items}):
        if kind not in principal.scopes and "admin" not in principal.scopes:
            raise Forbidden(f"this API key lacks the '{kind}' scope its {kind} items need")


def check_shape(items: Sequence[BatchItemIn], settings: Settings) -> None:
    """At most `max_batch_items` items; client item ids unique within the batch."""
    if len(items) > settings.max_batch_items:
        raise ValidationProblem(f"/items: at most {settings.max_batch_items} items per batch")
    seen: set[str] = set()
    for i, item in enumerate(items):
        if item.item_id is not None:
            if item.item_id in seen:
                raise ValidationProblem(f"/items/{i}/item_id: '{item.item_id}' is used twice")
            seen.add(item.item_id)


async def check_requests(
    items: Sequence[BatchItemIn],
    settings: Settings,
    registry: JudgeRegistry,
    sessionmaker: Sessionmaker,
) -> None:
    """What `POST /v1/compare` or `/v1/score` would reject is rejected now, with the item's
    pointer (a score item whose responses exceed a reviewer's call size fails when it runs: that
    depends on the plan, drawn then)."""
    async with sessionmaker() as session:
        known = {judge.name for judge, _ in await judges_service.list_judges(session)}
    for i, item in enumerate(items):
        request = item.compare if item.compare is not None else item.score
        assert request is not None
        where = f"/items/{i}/{item.kind}"
        names = registry.panel_or_default(request.judges)
        unknown = [j for j, name in enumerate(names) if name not in known]
        if unknown:
            pointer = f"{where}/judges/{unknown[0]}" if request.judges else f"{where}/judges"
            raise ValidationProblem(f"{pointer}: unknown or retired judge '{names[unknown[0]]}'")
        if request.timeout_s is not None and request.timeout_s > settings.compare_timeout_s:
            raise ValidationProblem(
                f"{where}/timeout_s: at most {settings.compare_timeout_s} seconds"
            )


def item_rows(
    batch_id: str, items: Sequence[BatchItemIn], settings: Settings, keeper: TextKeeper
) -> list[dict[str, Any]]:
    """The items as rows; in privacy mode each payload is encrypted until it is processed and
    each item id is kept as its HMAC (results keep their submission `position`)."""
    now, encrypted = utcnow(), settings.privacy == "hash"
    rows = []
    for position, item in enumerate(items):
        request = item.compare if item.compare is not None else item.score
        assert request is not None
        payload = request.model_dump_json()
        rows.append(
            {
                "id": str(uuid.uuid4()),
                "batch_id": batch_id,
                "position": position,
                "item_id": keeper.token(item.item_id) if item.item_id is not None else None,
                "kind": item.kind,
                "target_id": str(uuid.uuid4()),
                "status": ItemStatus.QUEUED,
                "payload": crypto.encrypt(settings.secret_key, payload) if encrypted else payload,
                "encrypted": encrypted,
                "attempts": 0,
                "enqueued_at": now,
            }
        )
    return rows


async def submit(
    body: BatchCreate,
    principal: Principal,
    idempotency_key: str | None,
    settings: Settings,
    sessionmaker: Sessionmaker,
    registry: JudgeRegistry,
    queue: ItemQueue,
    keeper: TextKeeper,
) -> SubmitOutcome:
    """Store the batch and its items as `queued`, then send each item's id to the queue."""
    idempotency_key = idempotency.stored_key(idempotency_key, keeper)
    check_scopes(principal, body.items)
    check_shape(body.items, settings)
    # Its HMAC in privacy mode: a plain hash would confirm a guessed body.
    digest = keeper.token(idempotency.request_hash(body))
    if idempotency_key:
        replay = await find_replay(sessionmaker, principal.key_id, idempotency_key, digest)
        if replay is not None:
            return SubmitOutcome(replay, replayed=True)
    await check_requests(body.items, settings, registry, sessionmaker)
    batch = Batch(
        id=str(uuid.uuid4()),
        created_at=utcnow(),
        api_key_id=principal.key_id,
        idempotency_key=idempotency_key,
        request_hash=digest,
        item_count=len(body.items),
        mode=body.mode,
    )
    rows = item_rows(batch.id, body.items, settings, keeper)
    async with sessionmaker() as session:
        session.add(batch)
        try:
            await session.flush()
            await session.execute(insert(BatchItem), rows)
            await session.commit()
        except IntegrityError as exc:  # a concurrent request with the same key won the insert
            await session.rollback()
            if idempotency_key:
                replay = await find_replay(sessionmaker, principal.key_id, idempotency_key, digest)
                if replay is not None:
                    return SubmitOutcome(replay, replayed=True)
            raise IdempotencyInProgress(
                "a request with this Idempotency-Key is running", headers={"Retry-After": "1"}
            ) from exc
    await queue.enqueue([row["id"] for row in rows])
    return SubmitOutcome(queries.new_batch_read(batch), replayed=False)


async def find_replay(
    sessionmaker: Sessionmaker, key_id: str, key: str, digest: str
) -> BatchRead | None:
    """The stored batch for a repeated Idempotency-Key, or None to create one."""
    async with sessionmaker() as session:
        existing = await idempotency.find_holder(session, Batch, key_id, key)
        if existing is None:
            return None
        idempotency.check_body(existing, digest)
        return await queries.read_batch(session, existing)


async def cancel(session: AsyncSession, batch_id: str, settings: Settings) -> BatchRead:
    """Cancel the items nobody started; running items finish. Cancelling twice is harmless, and
    a batch with nothing left to run (completed or failed) is left as it is: a no-op, 200 with
    the batch unchanged, so that a cleanup that deletes every batch it made never turns a
    finished batch into a "cancelled" one. In provider mode its provider jobs are cancelled
    too: waiting items finish with the answers that came in (`provider.cancel_batch`)."""
    batch = await session.get(Batch, batch_id)
    if batch is None:
        raise NotFound(f"no batch with id '{batch_id}'")
    now = utcnow()
    unfinished = (
        select(BatchItem.id)
        .where(
            BatchItem.batch_id == batch_id,
            BatchItem.status.in_((ItemStatus.QUEUED, ItemStatus.RUNNING, ItemStatus.WAITING)),
        )
        .exists()
    )
    # One statement: a worker finishing the last item meanwhile cannot slip between a check
    # and the write.
    await session.execute(
        update(Batch)
        .where(Batch.id == batch_id, Batch.cancelled_at.is_(None), unfinished)
        .values(cancelled_at=now)
        .execution_options(synchronize_session=False)
    )
    not_started = [BatchItem.batch_id == batch_id, BatchItem.status == ItemStatus.QUEUED]
    if batch.mode == "provider":
        not_started.append(~provider.has_requests(BatchItem))
    await session.execute(
        update(BatchItem)
        .where(*not_started)
        .values(status=ItemStatus.CANCELLED, finished_at=now, payload=None)
    )
    if batch.mode == "provider":
        await provider.cancel_batch(session, batch_id, settings)
    await session.commit()
    await session.refresh(batch)
    return await queries.read_batch(session, batch)


# What a batch says while nothing will run its items.
NO_WORKER_HINT = (
    "no `fairpair worker` is running: the items wait until one starts (with this server's "
    "FAIRPAIR_REDIS_URL and FAIRPAIR_DATABASE_URL)"
)


async def with_workers(batches: list[BatchRead], queue: ItemQueue) -> list[BatchRead]:
    """The batches with who runs them and until when a rate limit holds them, on those with
    items left (workers counted once for all)."""
    unfinished = [b.status in (BatchStatus.QUEUED, BatchStatus.RUNNING) for b in batches]
    if not any(unfinished):
        return batches
    workers = await queue.live_workers()
    hint = NO_WORKER_HINT if workers == 0 else None
    left_ids = [b.id for b, left in zip(batches, unfinished, strict=True) if left]
    waits = await queue.rate_limits.until(left_ids)
    return [
        batch.model_copy(
            update={"workers": workers, "hint": hint, "rate_limited_until": waits.get(batch.id)}
        )
        if left
        else batch
        for batch, left in zip(batches, unfinished, strict=True)
    ]
