"""`GET /v1/bias-report` (alias `GET /bias-report`): how each judge is swayed, from stored calls."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query

from app.deps import KeeperDep, ReadKey, SessionDep, SettingsDep
from app.ledger.callscope import Bucket, Origin
from app.params import JudgeParam, MomentParam, TagParams
from app.problems import FILTERED_READ_PROBLEMS
from app.reports.bias import build_report
from app.reports.params import check_known_names, report_filters
from app.reports.schemas import BiasReport

router = APIRouter(tags=["reports"])


@router.get("/v1/bias-report", operation_id="get_bias_report", responses=FILTERED_READ_PROBLEMS)
async def get_bias_report(
    _: ReadKey,
    session: SessionDep,
    settings: SettingsDep,
    keeper: KeeperDep,
    judge: JudgeParam = None,
    judge_version: Annotated[int | None, Query(ge=1)] = None,
    since: MomentParam = None,
    until: MomentParam = None,
    tag: TagParams = None,
    protocol: Annotated[str | None, Query(max_length=16)] = None,
    bucket: Bucket = "day",
    rubric: Annotated[str | None, Query(max_length=64)] = None,
    origin: Annotated[
        Origin,
        Query(description="whose comparisons: callers' `traffic`, drift `canary` runs, or `all`"),
    ] = "traffic",
) -> BiasReport:
    """Position, consistency, label, placebo, length, self-preference, human agreement,
    confidence and reviewer calibration per judge, with time series."""
    filters = report_filters(
        judge,
        judge_version,
        since,
        until,
        tag,
        protocol,
        bucket,
        rubric,
        keeper=keeper,
        origin=origin,
    )
    await check_known_names(session, filters)
    return await build_report(session, filters, settings)


router.add_api_route(
    "/bias-report",
    get_bias_report,
    methods=["GET"],
    include_in_schema=False,
    response_model=BiasReport,
)
