"""`GET /v1/win-rates`: one model against a baseline, by the judges, by humans, and anchored;
`GET /v1/alt-test`: whether each judge can replace a human labeler."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from app.deps import KeeperDep, ReadKey, SessionDep
from app.errors import ValidationProblem
from app.fields import ModelName
from app.ledger.callscope import Origin, ReportFilters
from app.params import JudgeParam, MomentParam, TagParams
from app.problems import FILTERED_READ_PROBLEMS
from app.reports.params import check_known_names, report_filters
from app.winrates.schemas import AltTest, WinRates
from app.winrates.service import read_alt_test, read_win_rates

router = APIRouter(tags=["win-rates"])


async def report_scope(
    session: SessionDep,
    keeper: KeeperDep,
    judge: JudgeParam = None,
    since: MomentParam = None,
    until: MomentParam = None,
    tag: TagParams = None,
    origin: Annotated[
        Origin,
        Query(description="whose comparisons: callers' `traffic`, drift `canary` runs, or `all`"),
    ] = "traffic",
) -> ReportFilters:
    """The report's filters, parsed by the report's parser so that they validate and default
    alike (a 30-day window), and a named judge checked."""
    filters = report_filters(
        judge, None, since, until, tag, None, "day", keeper=keeper, origin=origin
    )
    await check_known_names(session, filters)
    return filters


ScopeDep = Annotated[ReportFilters, Depends(report_scope)]


@router.get("/v1/win-rates", operation_id="get_win_rates", responses=FILTERED_READ_PROBLEMS)
async def get_win_rates(
    _: ReadKey,
    session: SessionDep,
    model: Annotated[ModelName, Query(description="the model whose win rate is estimated")],
    baseline: Annotated[ModelName, Query(description="the model it is compared with")],
    filters: ScopeDep,
) -> WinRates:
    """The win rate of `model` against `baseline` (ties count ½): from the judges' debiased
    verdicts, from the random queue's gold labels, and both combined by PPI++."""
    if model == baseline:
        raise ValidationProblem("/baseline: must differ from model")
    return await read_win_rates(session, model, baseline, filters)


@router.get("/v1/alt-test", operation_id="get_alt_test", responses=FILTERED_READ_PROBLEMS)
async def get_alt_test(
    _: ReadKey,
    session: SessionDep,
    filters: ScopeDep,
    epsilon: Annotated[
        float,
        Query(
            ge=0.0,
            le=1.0,
            description="cost-benefit margin granted to the judge: the authors suggest 0.2 for "
            "expert labelers, 0.15 for skilled ones, 0.1 for crowd workers",
        ),
    ] = 0.2,
    q: Annotated[
        float, Query(gt=0.0, lt=1.0, description="false discovery rate across labelers")
    ] = 0.05,
) -> AltTest:
    """Can each judge replace a human labeler? The alternative-annotator test (Calderon,
    Reichart and Dror, 2025) over the comparisons that several labelers labelled from the
    random queue: per labeler left out, a paired t-test with margin `epsilon`, Benjamini-
    Yekutieli across labelers; the judge passes when it wins against half of them or more."""
    return await read_alt_test(session, filters, epsilon, q)
