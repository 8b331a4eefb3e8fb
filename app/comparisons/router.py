"""`POST /v1/compare` (alias `POST /compare`) and the stored comparisons."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.comparisons import deletion, queries, service
from app.comparisons.schemas import (
    CompareRequest,
    ComparisonList,
    ComparisonRead,
    ComparisonsDeleted,
    Status,
)
from app.db import utcnow
from app.deps import AdminKey, CompareKey, KeeperDep, ReadKey, SessionDep, SettingsDep
from app.jobs.http import AnsweringDep, IdempotencyKeyHeader, JobsDep
from app.jobs.known import check_known_judge
from app.jobs.lifecycle import read_job, run_request
from app.ledger.models import JudgeCall
from app.params import JudgeParam, MomentParam, TagParams, parse_since_until, parse_tag_filters

router = APIRouter(tags=["comparisons"])


@router.post("/v1/compare", operation_id="compare")
async def create_comparison(
    body: CompareRequest,
    principal: CompareKey,
    jobs: JobsDep,
    kind: service.CompareKindDep,
    answer: AnsweringDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> ComparisonRead:
    """Compare two responses with debiased, swapped-order judge calls."""
    return await answer(run_request(kind, body, principal, idempotency_key, jobs))


router.add_api_route(
    "/compare",
    create_comparison,
    methods=["POST"],
    include_in_schema=False,
    response_model=ComparisonRead,
)


@router.get("/v1/comparisons/{comparison_id}", operation_id="get_comparison")
async def get_comparison(
    comparison_id: str,
    _: ReadKey,
    session: SessionDep,
    settings: SettingsDep,
    kind: service.CompareKindDep,
) -> ComparisonRead:
    """One stored comparison with every call."""
    return await read_job(kind, session, comparison_id, settings.sweep_grace_s)


@router.get("/v1/comparisons", operation_id="list_comparisons")
async def list_comparisons(
    _: ReadKey,
    session: SessionDep,
    keeper: KeeperDep,
    judge: JudgeParam = None,
    tag: TagParams = None,
    status: Status | None = None,
    since: MomentParam = None,
    until: MomentParam = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> ComparisonList:
    """Stored comparisons, newest first; tags are `key:value` and ANDed."""
    start, end = parse_since_until(since, until, now=utcnow())
    await check_known_judge(session, judge, None, (JudgeCall,))
    return await queries.list_comparisons(
        session,
        limit=limit,
        cursor=cursor,
        judge=judge,
        tags=parse_tag_filters(tag or [], keeper),
        status=status,
        since=start,
        until=end,
    )


@router.delete("/v1/comparisons/{comparison_id}", operation_id="delete_comparison")
async def delete_comparison(
    comparison_id: str, principal: AdminKey, session: SessionDep
) -> ComparisonsDeleted:
    """Delete one comparison with its calls, tags and labels (409 while it runs); logged."""
    return await deletion.delete_one(session, comparison_id, principal)


@router.delete("/v1/comparisons", operation_id="delete_comparisons")
async def delete_comparisons(
    principal: AdminKey, session: SessionDep, keeper: KeeperDep, tag: TagParams = None
) -> ComparisonsDeleted:
    """Delete every comparison with all the `key:value` tags given (at least one) that stopped
    running, with their calls, tags and labels; logged."""
    tags = parse_tag_filters(tag or [], keeper)
    return await deletion.delete_tagged(session, tags, principal)
