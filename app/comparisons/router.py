"""`POST /v1/compare` (alias `POST /compare`) and the stored comparisons."""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query, Request, Response

from app.comparisons import queries, service
from app.comparisons.schemas import CompareRequest, ComparisonList, ComparisonRead, Status
from app.deps import CompareKey, KeeperDep, ReadKey, SessionDep

router = APIRouter(tags=["comparisons"])


@router.post("/v1/compare", operation_id="compare")
async def create_comparison(
    body: CompareRequest,
    principal: CompareKey,
    request: Request,
    response: Response,
    idempotency_key: Annotated[str | None, Header(max_length=255)] = None,
) -> ComparisonRead:
    """Compare two responses with debiased, swapped-order judge calls."""
    services = service.Services(
        request.state.settings,
        request.state.sessionmaker,
        request.state.registry,
        request.state.pool,
        request.state.writes,
        text_keeper=request.state.keeper,
    )
    task = asyncio.create_task(service.compare(body, principal, idempotency_key, services))
    # The comparison outlives a disconnected client; shutdown drains what is in flight.
    in_flight: set[asyncio.Task[Any]] = request.state.in_flight
    in_flight.add(task)
    task.add_done_callback(in_flight.discard)
    outcome = await asyncio.shield(task)
    if outcome.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    if outcome.comparison.simulated:
        response.headers["Fairpair-Simulated"] = "true"
    return outcome.comparison


router.add_api_route(
    "/compare",
    create_comparison,
    methods=["POST"],
    include_in_schema=False,
    response_model=ComparisonRead,
)


@router.get("/v1/comparisons/{comparison_id}", operation_id="get_comparison")
async def get_comparison(comparison_id: str, _: ReadKey, session: SessionDep) -> ComparisonRead:
    """One stored comparison with every call."""
    return await queries.get_comparison(session, comparison_id)


@router.get("/v1/comparisons", operation_id="list_comparisons")
async def list_comparisons(
    _: ReadKey,
    session: SessionDep,
    keeper: KeeperDep,
    judge: Annotated[str | None, Query(max_length=100)] = None,
    tag: Annotated[list[str] | None, Query(max_length=16)] = None,
    status: Status | None = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> ComparisonList:
    """Stored comparisons, newest first; tags are `key:value` and ANDed."""
    return await queries.list_comparisons(
        session,
        limit=limit,
        cursor=cursor,
        judge=judge,
        tags=queries.parse_tag_filters(tag or [], keeper),
        status=status,
        since=since,
        until=until,
    )
