"""`/v1/batches`: submit up to 10,000 compare or score items, follow them, read their results."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Query, Response
from fastapi.responses import StreamingResponse

from app.auth.keys import Principal
from app.batches import export, queries, service
from app.batches.models import BatchStatus
from app.batches.queue import BatchQueueDep, ItemQueue
from app.batches.schemas import (
    BatchCreate,
    BatchItemList,
    BatchList,
    BatchMode,
    BatchRead,
    BatchStatusField,
    ItemStatusField,
)
from app.db import utcnow
from app.deps import (
    CompareKey,
    KeeperDep,
    ReadKey,
    SessionDep,
    SessionmakerDep,
    SettingsDep,
    require,
)
from app.errors import ServiceUnavailable
from app.judges.registry import RegistryDep
from app.params import MomentParam, parse_since_until
from app.problems import problem_responses

router = APIRouter(tags=["batches"])
# A key needs one of these to submit a batch (each item's kind needs its own, checked once the
# body is read); the middleware checks them before it reads a body over the normal limit.
SUBMIT_SCOPES = ("compare", "score")
QUEUE_PROBE_S = 1.0
# Any string, as `/v1/comparisons/{id}` takes it: an id that names no batch is 404, whatever it
# looks like (a pattern here made a malformed id 422 on batches and 404 on comparisons).
BatchId = Annotated[str, Path(description="the batch's id")]
PROBLEMS = problem_responses(
    (401, "no valid key"),
    (403, "missing scope"),
    (404, "no such batch"),
    (409, "idempotency"),
    (413, "body too large (FAIRPAIR_MAX_BATCH_BYTES)"),
    (422, "invalid request"),
    (503, "database down, or (submitting) the batch queue's Redis"),
)


@router.post("/v1/batches", operation_id="create_batch", status_code=202, responses=PROBLEMS)
async def create_batch(
    body: BatchCreate,
    principal: Annotated[Principal, Depends(require(*SUBMIT_SCOPES))],
    response: Response,
    queue: BatchQueueDep,
    keeper: KeeperDep,
    settings: SettingsDep,
    sessionmaker: SessionmakerDep,
    registry: RegistryDep,
    idempotency_key: Annotated[str | None, Header(max_length=255)] = None,
) -> BatchRead:
    """Queue compare and score items to run in the background; 202 with the batch."""
    await require_reachable(queue)
    outcome = await service.submit(
        body,
        principal,
        idempotency_key,
        settings,
        sessionmaker,
        registry,
        queue,
        keeper,
    )
    response.headers["Location"] = f"/v1/batches/{outcome.batch.id}"
    if outcome.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    [batch] = await service.with_workers([outcome.batch], queue)
    return batch


@router.get("/v1/batches", operation_id="list_batches", responses=PROBLEMS)
async def list_batches(
    _: ReadKey,
    session: SessionDep,
    queue: BatchQueueDep,
    status: BatchStatusField | None = None,
    mode: BatchMode | None = None,
    since: MomentParam = None,
    until: MomentParam = None,
    limit: Annotated[int, Query(ge=1, le=100)] = 20,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> BatchList:
    """Batches, newest first, each as `GET /v1/batches/{id}` shows it; `since` and `until`
    bound when they were submitted."""
    start, end = parse_since_until(since, until, now=utcnow())
    page = await queries.list_batches(
        session,
        limit=limit,
        cursor=cursor,
        status=BatchStatus(status) if status else None,
        mode=mode,
        since=start,
        until=end,
    )
    page.items = await service.with_workers(page.items, queue)
    return page


@router.get("/v1/batches/{batch_id}", operation_id="get_batch", responses=PROBLEMS)
async def get_batch(
    batch_id: BatchId, _: ReadKey, session: SessionDep, queue: BatchQueueDep
) -> BatchRead:
    """A batch's status, counts by status, progress, times and cost so far, and while items
    are left, how many workers run them (with a `hint` when none does)."""
    [batch] = await service.with_workers([await queries.get_batch(session, batch_id)], queue)
    return batch


EXPORTS: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "a page of items; with `format`, every item as one file",
        "content": {media: {"schema": {"type": "string"}} for media in export.MEDIA_TYPES.values()},
    },
}


@router.get(
    "/v1/batches/{batch_id}/results",
    operation_id="list_batch_results",
    response_model=BatchItemList,
    responses={**PROBLEMS, **EXPORTS},
)
async def list_batch_results(
    batch_id: BatchId,
    _: ReadKey,
    session: SessionDep,
    sessionmaker: SessionmakerDep,
    status: ItemStatusField | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    format: Annotated[
        export.ExportFormat | None,
        Query(description="every item as one file: `jsonl` (as the pages show them) or `csv`"),
    ] = None,
) -> Any:
    """Items in submission order, each with its comparison (or score session) or its error;
    with `format`, all of them streamed as JSON Lines or CSV (`status`, `limit` and `cursor`
    then do not apply)."""
    if format is None:
        page: BatchItemList = await queries.list_results(
            session, batch_id, limit=limit, cursor=cursor, status=status
        )
        return page
    await queries.stored_batch(session, batch_id)  # 404 before the stream starts
    filename = f"batch-{batch_id[:36]}.{format}"
    return StreamingResponse(
        export.export(sessionmaker, batch_id, format),
        media_type=export.MEDIA_TYPES[format],
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


@router.delete("/v1/batches/{batch_id}", operation_id="cancel_batch", responses=PROBLEMS)
async def cancel_batch(
    batch_id: BatchId, _: CompareKey, session: SessionDep, settings: SettingsDep
) -> BatchRead:
    """Cancel the items not started yet; running items finish and keep their results. A batch
    with nothing left to run is left as it is (200, unchanged). In provider mode its provider
    jobs are cancelled, and waiting items finish with the answers that came in."""
    return await service.cancel(session, batch_id, settings)


async def require_reachable(queue: ItemQueue) -> None:
    """503 while the queue's Redis does not answer: workers could not be handed the items, so
    the caller hears it now and retries (with its Idempotency-Key) instead of waiting on a batch
    that cannot start. Reading and cancelling batches need only the database."""
    if queue.redis is None:
        return
    try:
        async with asyncio.timeout(QUEUE_PROBE_S):
            await queue.redis.ping()
    except Exception as exc:  # any failure: unreachable
        raise ServiceUnavailable(
            "the batch queue (Redis) is unreachable; nothing was stored",
            headers={"Retry-After": "5"},
        ) from exc
