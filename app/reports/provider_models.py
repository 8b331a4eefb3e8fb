"""The models a judge's provider reported, per judge and per series bucket.

The rollups do not key on `provider_model` (an attribute of the answer, not of the judge's
config), and a DISTINCT over the window's calls reads every one of them (2.3 s over 5M calls in
a 30-day window of 10M, measured). On PostgreSQL a loose index scan walks the index
(judge_name, provider_model, started_at) instead: from each call found it jumps to the next
bucket of the same model (or, outside the window, to the window's start or to the next model),
one index probe per (model, bucket) with calls: 30 days of hourly buckets of a judge are about
720 probes (0.13 s over 10M calls), daily ones about 30. The probes compare the whole index key as
a row: only that index can answer them, so the planner cannot pick the time index and filter.
SQLite (small deployments and tests) groups the window's calls.

The calls are every call of the judge in the window: the version, protocol, tag and origin filters
do not narrow them (the provider serves every call of the judge alike, a drift canary's too), and
placebo comparisons and running ones count (each call is an answer the provider gave).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, select, text
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import UTCDateTime
from app.ledger.callscope import ReportFilters, bucket_of
from app.ledger.models import JudgeCall
from app.reports.series import bucket_start

# Past any call: the walk's `until` when the report has none.
NO_END = datetime(9999, 1, 1, tzinfo=UTC)
STEPS = {"day": timedelta(days=1), "hour": timedelta(hours=1)}

# From (judge, '', since), each step finds the next index entry at or after a key: the same
# model's next bucket, the window's start, or (past the window) the next model.
WALK = text(
    """
WITH RECURSIVE walk AS (
  SELECT n.provider_model AS model, n.started_at AS at
  FROM (SELECT c.judge_name, c.provider_model, c.started_at FROM judge_calls c
        WHERE (c.judge_name, c.provider_model, c.started_at) >= (:judge, '', :since)
        ORDER BY c.judge_name, c.provider_model, c.started_at LIMIT 1) n
  WHERE n.judge_name = :judge
  UNION ALL
  SELECT n.provider_model, n.started_at
  FROM walk w, LATERAL (
    SELECT c.judge_name, c.provider_model, c.started_at FROM judge_calls c
    WHERE (c.judge_name, c.provider_model, c.started_at) >= (:judge, w.model, CASE
      WHEN w.at < :since THEN :since
      WHEN w.at >= :until THEN 'infinity'::timestamptz
      ELSE date_trunc(:unit, w.at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' + :step END)
    ORDER BY c.judge_name, c.provider_model, c.started_at LIMIT 1) n
  WHERE n.judge_name = :judge
)
SELECT model, date_trunc(:unit, at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS bucket
FROM walk WHERE at >= :since AND at < :until
"""
).bindparams(
    bindparam("since", type_=UTCDateTime()),
    bindparam("until", type_=UTCDateTime()),
)


@dataclass
class ProviderModels:
    """Models per judge over the window, and per (judge, bucket start)."""

    by_judge: dict[str, list[str]] = field(default_factory=dict)
    by_bucket: dict[tuple[str, datetime], set[str]] = field(default_factory=dict)


async def walked(session: AsyncSession, filters: ReportFilters, judge: str) -> list[Any]:
    """(model, bucket) of one judge by the loose index scan (PostgreSQL)."""
    params = {
        "judge": judge,
        "since": filters.since,
        "until": filters.until or NO_END,
        "unit": filters.bucket,
        "step": STEPS[filters.bucket],
    }
    return list((await session.execute(WALK, params)).all())


async def grouped(session: AsyncSession, filters: ReportFilters, judge: str) -> list[Any]:
    """(model, bucket) of one judge by grouping its calls in the window (SQLite)."""
    call = JudgeCall
    bucket = bucket_of(session, call.started_at, filters.bucket)
    query = (
        select(call.provider_model, bucket)
        .where(
            call.judge_name == judge,
            call.provider_model.is_not(None),
            call.started_at >= filters.since,
        )
        .group_by(call.provider_model, bucket)
    )
    if filters.until is not None:
        query = query.where(call.started_at < filters.until)
    return list((await session.execute(query)).all())


async def provider_models(
    session: AsyncSession, filters: ReportFilters, judges: list[str]
) -> ProviderModels:
    """Which models each judge's provider reported in the window, and in which buckets."""
    find = walked if session.get_bind().dialect.name == "postgresql" else grouped
    result = ProviderModels()
    for judge in judges:
        seen: set[str] = set()
        for model, bucket in await find(session, filters, judge):
            seen.add(model)
            result.by_bucket.setdefault((judge, bucket_start(bucket)), set()).add(model)
        result.by_judge[judge] = sorted(seen)
    return result
