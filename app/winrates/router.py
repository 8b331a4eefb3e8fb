"""`GET /v1/win-rates`: one model against a baseline, by the judges, by humans, and anchored."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import AfterValidator, StringConstraints

from app.deps import KeeperDep, ReadKey, SessionDep
from app.errors import ValidationProblem
from app.fields import check_text
from app.ledger.callscope import Origin
from app.params import JudgeParam, MomentParam, TagParams
from app.reports.params import check_known_names, report_filters
from app.winrates.schemas import WinRates
from app.winrates.service import read_win_rates

router = APIRouter(tags=["win-rates"])
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/problem+json": {}}}
    for code, text in [(401, "no valid key"), (403, "missing scope"), (422, "invalid filters")]
}
# A generating model's name as stored (`comparisons.model_a`): no NUL bytes or lone surrogates,
# which the database could not compare.
ModelName = Annotated[
    str, StringConstraints(min_length=1, max_length=200), AfterValidator(check_text)
]


@router.get("/v1/win-rates", operation_id="get_win_rates", responses=PROBLEMS)
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
