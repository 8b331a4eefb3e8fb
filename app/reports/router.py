"""`GET /v1/bias-report` (alias `GET /bias-report`): how each judge is swayed, from stored calls."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated, Any

from fastapi import APIRouter, Query

from app.comparisons.callscope import Bucket, ReportFilters
from app.comparisons.queries import as_utc, parse_tag_filters
from app.db import utcnow
from app.deps import KeeperDep, ReadKey, SessionDep, SettingsDep
from app.errors import ValidationProblem
from app.privacy import TextKeeper
from app.reports.bias import build_report
from app.reports.schemas import BiasReport

router = APIRouter(tags=["reports"])
DEFAULT_WINDOW = timedelta(days=30)
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/problem+json": {}}}
    for code, text in [(401, "no valid key"), (403, "missing scope"), (422, "invalid filters")]
}


def report_filters(judge: str | None, judge_version: int | None, since: datetime | None,
                   until: datetime | None, tag: list[str] | None, protocol: str | None,
                   bucket: Bucket, rubric: str | None = None, *,
                   keeper: TextKeeper) -> ReportFilters:
    """Validated filters; without `since`, the 30 days before `until` (or now)."""
    end = as_utc(until, "until") if until is not None else None
    try:
        start = as_utc(since) if since is not None else (end or utcnow()) - DEFAULT_WINDOW
    except OverflowError as exc:  # `until` too close to year 1 for a 30-day default window
        raise ValidationProblem("/since: give a since for an until this early") from exc
    if end is not None and end <= start:
        raise ValidationProblem("/until: must be after since")
    return ReportFilters(since=start, until=end, judge=judge, judge_version=judge_version,
                         tags=tuple(parse_tag_filters(tag or [], keeper)), protocol=protocol,
                         bucket=bucket, rubric=rubric)


@router.get("/v1/bias-report", operation_id="get_bias_report", responses=PROBLEMS)
async def get_bias_report(
    _: ReadKey, session: SessionDep, settings: SettingsDep, keeper: KeeperDep,
    judge: Annotated[str | None, Query(max_length=100)] = None,
    judge_version: Annotated[int | None, Query(ge=1)] = None,
    since: datetime | None = None,
    until: datetime | None = None,
    tag: Annotated[list[str] | None, Query(max_length=16)] = None,
    protocol: Annotated[str | None, Query(max_length=16)] = None,
    bucket: Bucket = "day",
    rubric: Annotated[str | None, Query(max_length=64)] = None,
) -> BiasReport:
    """Position, consistency, label, placebo, length, self-preference, human agreement,
    confidence and reviewer calibration per judge, with time series."""
    filters = report_filters(judge, judge_version, since, until, tag, protocol, bucket, rubric,
                             keeper=keeper)
    return await build_report(session, filters, settings)


router.add_api_route("/bias-report", get_bias_report, methods=["GET"], include_in_schema=False,
                     response_model=BiasReport)
