"""The dashboard's filters: query parameters, so that every view is a shareable link."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Annotated
from urllib.parse import urlencode

from fastapi import Depends, Query

from app.db import utcnow
from app.deps import KeeperDep, SessionDep
from app.errors import ValidationProblem
from app.ledger.callscope import ReportFilters
from app.params import JudgeParam, MomentParam, TagParams, as_utc, parse_since_until
from app.privacy import KEEP_TEXTS, TextKeeper
from app.reports.params import check_known_names, report_filters
from app.scoring.queries import ScoringFilters
from app.textpatterns import compile_linear

WINDOW = compile_linear(r"(\d{1,4})([hd])")
WINDOWS = ("24h", "7d", "30d", "90d")
MAX_WINDOW = timedelta(days=3660)


def parse_window(window: str) -> timedelta:
    """`24h`, `7d`, ...: a duration of hours or days."""
    match = WINDOW.fullmatch(window)
    if match is None:
        raise ValidationProblem("/window: use a number of hours or days, like 24h or 7d")
    amount, unit = int(match[1]), match[2]
    span = timedelta(hours=amount) if unit == "h" else timedelta(days=amount)
    if not timedelta(0) < span <= MAX_WINDOW:
        raise ValidationProblem("/window: out of range")
    return span


@dataclass(frozen=True)
class PageFilters:
    """Judge, time window (or since/until), tags and rubric, as given in the link."""

    judge: str | None = None
    window: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    tags: tuple[str, ...] = ()
    rubric: str | None = None
    # Tag values are matched as stored (their HMACs in privacy mode).
    keeper: TextKeeper = field(default=KEEP_TEXTS, repr=False)

    def start(self) -> datetime | None:
        """`since`, else `until` (or now) minus the window, else None (the report's default)."""
        if self.since is not None:
            return as_utc(self.since)
        if self.window is None:
            return None
        end = as_utc(self.until, "until") if self.until is not None else utcnow()
        return end - parse_window(self.window)

    def report(self) -> ReportFilters:
        """The bias report's filters, validated as the JSON route validates them."""
        return report_filters(
            self.judge,
            None,
            self.start(),
            self.until,
            list(self.tags),
            None,
            "day",
            keeper=self.keeper,
        )

    def scoring(self) -> ScoringFilters:
        """The scoring sections' filters over the same window."""
        base = self.report()
        return ScoringFilters(
            since=base.since, until=base.until, judge=self.judge, tags=base.tags, rubric=self.rubric
        )

    def query(self, **changes: str | None) -> str:
        """The filters as a query string, with some changed (None drops one)."""
        pairs: list[tuple[str, str]] = []
        values = {
            "judge": self.judge,
            "window": self.window,
            "rubric": self.rubric,
            "since": self.since.isoformat() if self.since else None,
            "until": self.until.isoformat() if self.until else None,
        }
        values.update(changes)
        pairs += [(k, v) for k, v in values.items() if v]
        pairs += [("tag", tag) for tag in self.tags]
        return urlencode(pairs)


async def page_filters(
    keeper: KeeperDep,
    session: SessionDep,
    judge: JudgeParam = None,
    window: Annotated[str | None, Query(max_length=8)] = None,
    since: MomentParam = None,
    until: MomentParam = None,
    tag: TagParams = None,
    rubric: Annotated[str | None, Query(max_length=100)] = None,
) -> PageFilters:
    """The filters of a page request; empty form fields count as absent."""
    since, until, window = since or None, until or None, window or None
    if since is not None and until is None and window is None and WINDOW.fullmatch(since.strip()):
        # An age alone is a window ending now: kept relative, the page's links and its cache
        # key stay the same from one request to the next.
        window, since = since.strip(), None
    start, end = parse_since_until(since, until, now=utcnow())
    filters = PageFilters(
        judge=judge or None,
        window=window,
        since=start,
        until=end,
        tags=tuple(t for t in tag or [] if t),
        rubric=rubric or None,
        keeper=keeper,
    )
    # Validate early, as the JSON report does: 422 before any page query runs.
    await check_known_names(session, replace(filters.report(), rubric=filters.rubric))
    return filters


FiltersDep = Annotated[PageFilters, Depends(page_filters)]
