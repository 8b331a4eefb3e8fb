"""`/v1/experiments`: A/B experiments that decide, stop paying when decided, and stay valid
however often they are read (issue 41)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path

from app.batches.queue import BatchQueueDep
from app.deps import CompareKey, KeeperDep, ReadKey, SessionDep, SessionmakerDep, SettingsDep
from app.experiments import service
from app.experiments.schemas import ExperimentCreate, ExperimentList, ExperimentRead
from app.judges.registry import RegistryDep
from app.problems import problem_responses

router = APIRouter(tags=["experiments"])
ExperimentName = Annotated[str, Path(max_length=64, description="the experiment's name")]
PROBLEMS = problem_responses(
    (401, "no valid key"),
    (403, "missing scope"),
    (404, "no such experiment"),
    (409, "the name is taken"),
    (422, "invalid request"),
)


@router.post(
    "/v1/experiments", operation_id="create_experiment", status_code=201, responses=PROBLEMS
)
async def create_experiment(
    body: ExperimentCreate,
    principal: CompareKey,
    queue: BatchQueueDep,
    keeper: KeeperDep,
    settings: SettingsDep,
    sessionmaker: SessionmakerDep,
    registry: RegistryDep,
) -> ExperimentRead:
    """Start an experiment: with `items`, the service judges them until decided; without,
    comparisons join it by `POST /v1/compare` with `experiment`."""
    return await service.create(body, principal, settings, sessionmaker, registry, queue, keeper)


@router.get("/v1/experiments", operation_id="list_experiments", responses=PROBLEMS)
async def list_experiments(_: ReadKey, session: SessionDep) -> ExperimentList:
    """Experiments, newest first (the latest 200)."""
    return ExperimentList(experiments=await service.list_experiments(session))


@router.get("/v1/experiments/{name}", operation_id="get_experiment", responses=PROBLEMS)
async def get_experiment(name: ExperimentName, _: ReadKey, session: SessionDep) -> ExperimentRead:
    """Where the experiment stands: its decision, the win rate with its confidence sequence,
    and for item experiments the items judged and the calls saved."""
    return await service.read(session, await service.stored(session, name))


@router.delete("/v1/experiments/{name}", operation_id="cancel_experiment", responses=PROBLEMS)
async def cancel_experiment(
    name: ExperimentName, _: CompareKey, session: SessionDep, settings: SettingsDep
) -> ExperimentRead:
    """Cancel: no comparison joins it any more, and its items not started are cancelled."""
    return await service.cancel(session, name, settings)
