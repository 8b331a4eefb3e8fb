"""`GET /v1/leaderboard`: ratings of generating models from debiased outcomes."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import AfterValidator, StringConstraints

from app.comparisons.queries import as_utc, parse_tag_filters
from app.deps import KeeperDep, ReadKey, SessionmakerDep
from app.errors import ValidationProblem
from app.fields import check_text
from app.leaderboard.queries import LeaderboardFilters
from app.leaderboard.schemas import Leaderboard
from app.leaderboard.service import LeaderboardCacheDep, LeaderboardQuery, get_leaderboard
from app.privacy import TextKeeper

router = APIRouter(tags=["leaderboard"])
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/problem+json": {}}}
    for code, text in [(401, "no valid key"), (403, "missing scope"), (422, "invalid filters")]
}


# No NUL bytes or lone surrogates: the database could not compare them. A tag is key:value.
ModelName = Annotated[str, StringConstraints(min_length=1, max_length=200),
                      AfterValidator(check_text)]
TagFilter = Annotated[str, StringConstraints(max_length=321), AfterValidator(check_text)]


def utc_param(name: str, moment: datetime | None) -> datetime | None:
    """A time parameter in UTC (naive means UTC); 422 when UTC cannot represent it."""
    if moment is None:
        return None
    try:
        return as_utc(moment).astimezone(UTC)
    except OverflowError as exc:
        raise ValidationProblem(f"/{name}: out of range") from exc


def leaderboard_query(
    baseline: str | None,
    since: datetime | None,
    until: datetime | None,
    tag: list[str] | None,
    keeper: TextKeeper,
) -> LeaderboardQuery:
    """Validated filters; without `since`, every stored comparison counts."""
    start, end = utc_param("since", since), utc_param("until", until)
    if start is not None and end is not None and end <= start:
        raise ValidationProblem("/until: must be after since")
    # Sorted, so that the same tags in another order share a cache entry.
    tags = tuple(sorted(parse_tag_filters(tag or [], keeper)))
    filters = LeaderboardFilters(since=start, until=end, tags=tags)
    return LeaderboardQuery(filters=filters, baseline=baseline)


@router.get("/v1/leaderboard", operation_id="get_leaderboard", responses=PROBLEMS)
async def read_leaderboard(
    _: ReadKey,
    sessionmaker: SessionmakerDep,
    cache: LeaderboardCacheDep,
    keeper: KeeperDep,
    baseline: Annotated[ModelName | None, Query()] = None,
    since: datetime | None = None,
    until: datetime | None = None,
    tag: Annotated[list[TagFilter] | None, Query(max_length=16)] = None,
) -> Leaderboard:
    """Bradley-Terry ratings with bootstrap CIs; raw and length-controlled win rates vs baseline."""
    query = leaderboard_query(baseline, since, until, tag, keeper)
    return await get_leaderboard(sessionmaker, cache, query)
