"""`/v1/judges/{name}/card`: run a judge's bias battery (admin) and read its card."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.batches.queue import BatchQueueDep
from app.cards import service
from app.cards.schemas import CardRead, CardRunStarted
from app.deps import AdminKey, ReadKey, SessionDep, SettingsDep
from app.jobs.http import JobsDep
from app.problems import problem_responses

router = APIRouter(prefix="/v1/judges", tags=["judges"])
PROBLEMS = problem_responses(
    (401, "no valid key"),
    (403, "missing scope"),
    (404, "no such judge"),
    (422, "a version the judge never had, a retired judge, or privacy mode"),
)


@router.post("/{name}/card", status_code=202, operation_id="run_judge_card", responses=PROBLEMS)
async def run_judge_card(
    name: str, principal: AdminKey, session: SessionDep, services: JobsDep, queue: BatchQueueDep
) -> CardRunStarted:
    """Queue the judge's probe battery through the batch queue; answers its stated cost (calls
    and price at the judge's prices) and the run's id. Its card fills as the items finish."""
    return await service.start(services, queue, session, name, principal.key_id)


@router.get("/{name}/card", operation_id="get_judge_card", responses=PROBLEMS)
async def get_judge_card(
    name: str,
    _: ReadKey,
    session: SessionDep,
    settings: SettingsDep,
    version: Annotated[int | None, Query(ge=1, le=1_000_000)] = None,
) -> CardRead:
    """The card of the judge's current version (or `version`): per probe family the wrong
    side's share with its Wilson CI, tier and mark, and the change from the previous version."""
    return await service.read(session, settings, name, version)
