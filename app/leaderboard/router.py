"""`GET /v1/leaderboard`: ratings of generating models from debiased outcomes."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import AfterValidator, StringConstraints

from app.db import utcnow
from app.deps import KeeperDep, ReadKey, SessionmakerDep
from app.fields import check_text
from app.leaderboard.params import leaderboard_query
from app.leaderboard.schemas import Leaderboard
from app.leaderboard.service import LeaderboardCacheDep, get_leaderboard
from app.ledger.callscope import Origin
from app.params import MomentParam, parse_since_until

router = APIRouter(tags=["leaderboard"])
PROBLEMS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/problem+json": {}}}
    for code, text in [(401, "no valid key"), (403, "missing scope"), (422, "invalid filters")]
}


# No NUL bytes or lone surrogates: the database could not compare them. A tag is key:value.
ModelName = Annotated[
    str, StringConstraints(min_length=1, max_length=200), AfterValidator(check_text)
]
TagFilter = Annotated[str, StringConstraints(max_length=321), AfterValidator(check_text)]


@router.get("/v1/leaderboard", operation_id="get_leaderboard", responses=PROBLEMS)
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
