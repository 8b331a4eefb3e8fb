"""The leaderboard's query from its parameters: for its route and the dashboard's page."""

from __future__ import annotations

from datetime import datetime

from app.leaderboard.queries import LeaderboardFilters
from app.leaderboard.service import LeaderboardQuery
from app.ledger.callscope import Origin
from app.params import as_utc, check_order, parse_tag_filters
from app.privacy import TextKeeper


def utc_param(name: str, moment: datetime | None) -> datetime | None:
    """A time parameter in UTC (naive means UTC); 422 when out of range (`as_utc`)."""
    return None if moment is None else as_utc(moment, name)


def leaderboard_query(
    baseline: str | None,
    since: datetime | None,
    until: datetime | None,
    tag: list[str] | None,
    keeper: TextKeeper,
    origin: Origin = "traffic",
) -> LeaderboardQuery:
    """Validated filters; without `since`, every stored comparison counts (of the callers'
    traffic, unless `origin` asks for the canaries' runs or both)."""
    start, end = utc_param("since", since), utc_param("until", until)
    check_order(start, end)
    # Sorted, so that the same tags in another order share a cache entry.
    tags = tuple(sorted(parse_tag_filters(tag or [], keeper)))
    filters = LeaderboardFilters(since=start, until=end, tags=tags, origin=origin)
    return LeaderboardQuery(filters=filters, baseline=baseline)
