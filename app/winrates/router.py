"""`GET /v1/win-rates`: one model against a baseline, by the judges, by humans, and anchored."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.deps import KeeperDep, ReadKey, SessionDep
from app.errors import ValidationProblem
from app.fields import ModelName
from app.ledger.callscope import Origin
from app.params import JudgeParam, MomentParam, TagParams
from app.problems import FILTERED_READ_PROBLEMS
from app.reports.params import check_known_names, report_filters
from app.winrates.schemas import WinRates
from app.winrates.service import read_win_rates

router = APIRouter(tags=["win-rates"])


@router.get("/v1/win-rates", operation_id="get_win_rates", responses=FILTERED_READ_PROBLEMS)
async def get_win_rates(
    _: ReadKey,
    session: SessionDep,
    keeper: KeeperDep,
    model: Annotated[ModelName, Query(description="the model whose win rate is estimated")],
    baseline: Annotated[ModelName, Query(description="the model it is compared with")],
    judge: JudgeParam = None,
    since: MomentParam = None,
    until: MomentParam = None,
    tag: TagParams = None,
    origin: Annotated[
        Origin,
        Query(description="whose comparisons: callers' `traffic`, drift `canary` runs, or `all`"),
    ] = "traffic",
) -> WinRates:
    """The win rate of `model` against `baseline` (ties count ½): from the judges' debiased
    verdicts, from the random queue's gold labels, and both combined by PPI++."""
    if model == baseline:
        raise ValidationProblem("/baseline: must differ from model")
    # The report's parser, so that the filters validate and default alike (a 30-day window).
    filters = report_filters(
        judge, None, since, until, tag, None, "day", keeper=keeper, origin=origin
    )
    await check_known_names(session, filters)
    return await read_win_rates(session, model, baseline, filters)
