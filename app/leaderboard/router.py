"""`GET /v1/leaderboard`: ratings of generating models from debiased outcomes."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import AfterValidator, StringConstraints

from app.db import utcnow
from app.deps import KeeperDep, ReadKey, SessionmakerDep
from app.fields import ModelName, check_text
from app.leaderboard.params import leaderboard_query
from app.leaderboard.schemas import Leaderboard
from app.leaderboard.service import LeaderboardCacheDep, get_leaderboard
from app.ledger.callscope import Origin
from app.params import MomentParam, parse_since_until
from app.problems import FILTERED_READ_PROBLEMS

router = APIRouter(tags=["leaderboard"])


# No NUL bytes or lone surrogates: the database could not compare them. A tag is key:value.
TagFilter = Annotated[str, StringConstraints(max_length=321), AfterValidator(check_text)]


@router.get("/v1/leaderboard", operation_id="get_leaderboard", responses=FILTERED_READ_PROBLEMS)
async def read_leaderboard(
    _: ReadKey,
    sessionmaker: SessionmakerDep,
    cache: LeaderboardCacheDep,
    keeper: KeeperDep,
    baseline: Annotated[ModelName | None, Query()] = None,
    since: MomentParam = None,
    until: MomentParam = None,
    tag: Annotated[list[TagFilter] | None, Query(max_length=16)] = None,
    origin: Annotated[
        Origin,
        Query(description="whose comparisons: callers' `traffic`, drift `canary` runs, or `all`"),
    ] = "traffic",
) -> Leaderboard:
    """Bradley-Terry ratings with bootstrap CIs; raw and length-controlled win rates vs baseline."""
    start, end = parse_since_until(since, until, now=utcnow())
    query = leaderboard_query(baseline, start, end, tag, keeper, origin)
    return await get_leaderboard(sessionmaker, cache, query)
