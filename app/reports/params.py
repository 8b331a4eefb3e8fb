"""The bias report's filters from its query parameters: for its route, the dashboard and the CLI,
so that they validate alike."""

from __future__ import annotations

from datetime import datetime, timedelta

from app.comparisons.callscope import Bucket, ReportFilters
from app.db import utcnow
from app.errors import ValidationProblem
from app.params import as_utc, check_order, parse_tag_filters
from app.privacy import TextKeeper

DEFAULT_WINDOW = timedelta(days=30)


def report_filters(
    judge: str | None,
    judge_version: int | None,
    since: datetime | None,
    until: datetime | None,
    tag: list[str] | None,
    protocol: str | None,
    bucket: Bucket,
    rubric: str | None = None,
    *,
    keeper: TextKeeper,
) -> ReportFilters:
    """Validated filters; without `since`, the 30 days before `until` (or now)."""
    end = as_utc(until, "until") if until is not None else None
    try:
        start = as_utc(since) if since is not None else (end or utcnow()) - DEFAULT_WINDOW
    except OverflowError as exc:  # `until` too close to year 1 for a 30-day default window
        raise ValidationProblem("/since: give a since for an until this early") from exc
    check_order(start, end)
    return ReportFilters(
        since=start,
        until=end,
        judge=judge,
        judge_version=judge_version,
        tags=tuple(parse_tag_filters(tag or [], keeper)),
        protocol=protocol,
        bucket=bucket,
        rubric=rubric,
    )
