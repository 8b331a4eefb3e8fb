"""`/v1/canaries`: create canaries (admin), read them, run them now, list their runs."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.batches.queue import BatchQueueDep
from app.canaries import baselines, reads, runs, service
from app.canaries.schemas import (
    BaselinePin,
    CanaryCreate,
    CanaryList,
    CanaryRead,
    CanaryRunCreate,
    CanaryRunList,
    CanaryRunRead,
    DriftAcknowledgement,
)
from app.deps import AdminKey, KeeperDep, ReadKey, SessionDep, SettingsDep
from app.errors import ValidationProblem
from app.jobs.http import JobsDep
from app.problems import problem_responses

router = APIRouter(prefix="/v1/canaries", tags=["canaries"])
PROBLEMS = problem_responses(
    (401, "no valid key"),
    (403, "missing scope"),
    (404, "no such canary (or run)"),
    (409, "a canary with this name exists, or the run to pin has not finished"),
    (422, "invalid request, or privacy mode (canaries need the texts)"),
)
Limit = Annotated[int, Query(ge=1, le=200)]
Cursor = Annotated[str | None, Query(max_length=500)]


@router.post("", status_code=201, operation_id="create_canary", responses=PROBLEMS)
async def create_canary(
    body: CanaryCreate,
    principal: AdminKey,
    session: SessionDep,
    settings: SettingsDep,
    keeper: KeeperDep,
) -> CanaryRead:
    """Copy stored comparisons (by ids, or the newest with a tag) and their gold labels into a
    frozen set that re-runs against the judges: on `interval`, when a judge's version or
    provider-reported model changes, and on `POST /v1/canaries/{name}/runs`."""
    canary = await service.create(session, body, principal, settings, keeper)
    return await reads.canary_read(session, canary, settings.min_effect)


@router.get("", operation_id="list_canaries", responses=PROBLEMS)
async def list_canaries(
    _: ReadKey, session: SessionDep, settings: SettingsDep, limit: Limit = 50, cursor: Cursor = None
) -> CanaryList:
    """The canaries by name, each with its latest run; pages like every list."""
    page, next_cursor = await service.list_page(session, limit=limit, cursor=cursor)
    items = [await reads.canary_read(session, c, settings.min_effect) for c in page]
    return CanaryList(items=items, next_cursor=next_cursor)


@router.get("/{name}", operation_id="get_canary", responses=PROBLEMS)
async def get_canary(
    name: str, _: ReadKey, session: SessionDep, settings: SettingsDep
) -> CanaryRead:
    """One canary and its latest run."""
    canary = await service.get(session, name)
    return await reads.canary_read(session, canary, settings.min_effect)


@router.post("/{name}/runs", status_code=202, operation_id="run_canary", responses=PROBLEMS)
async def run_canary(
    name: str,
    _: AdminKey,
    session: SessionDep,
    services: JobsDep,
    queue: BatchQueueDep,
    body: CanaryRunCreate | None = None,
) -> CanaryRunRead:
    """Run now, through the batch queue; follow it here or as a batch."""
    canary = await service.get(session, name)  # an unknown name is 404 in any mode
    service.check_texts_kept(services.settings)
    judges = body.judges if body and body.judges else canary.judges
    for i, judge in enumerate(judges):
        if judge not in canary.judges:
            raise ValidationProblem(f"/judges/{i}: '{judge}' is not one of the canary's judges")
    run = await runs.start_manual(services, queue, canary, judges)
    return reads.run_read(run)


@router.get("/{name}/runs", operation_id="list_canary_runs", responses=PROBLEMS)
async def list_canary_runs(
    name: str,
    _: ReadKey,
    session: SessionDep,
    settings: SettingsDep,
    limit: Limit = 50,
    cursor: Cursor = None,
) -> CanaryRunList:
    """The canary's runs, newest first, each with its per-judge figures and drift once settled."""
    canary = await service.get(session, name)
    page, next_cursor = await reads.runs_page(
        session, canary, settings.min_effect, limit=limit, cursor=cursor
    )
    return CanaryRunList(items=[reads.run_read(r) for r in page], next_cursor=next_cursor)


@router.post("/{name}/baseline", operation_id="pin_canary_baseline", responses=PROBLEMS)
async def pin_canary_baseline(
    name: str, body: BaselinePin, _: AdminKey, session: SessionDep, settings: SettingsDep
) -> CanaryRead:
    """Pin a finished run as its judges' baseline: later runs of the same judge version are
    compared with it as well as with their previous run. Clears their drift flags."""
    canary = await service.get(session, name)
    await baselines.pin(session, canary, body, settings.min_effect)
    return await reads.canary_read(session, canary, settings.min_effect)


@router.post("/{name}/acknowledge", operation_id="acknowledge_canary_drift", responses=PROBLEMS)
async def acknowledge_canary_drift(
    name: str,
    _: AdminKey,
    session: SessionDep,
    settings: SettingsDep,
    body: DriftAcknowledgement | None = None,
) -> CanaryRead:
    """Clear the drift flag of the canary's judges (or some of them): it stays set from the
    run that raised it until then. A later run that still differs from the baseline flags
    again; pin a baseline to accept a change as the new normal."""
    canary = await service.get(session, name)
    await baselines.acknowledge(session, canary, body or DriftAcknowledgement())
    return await reads.canary_read(session, canary, settings.min_effect)
