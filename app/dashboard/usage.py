"""Cost and latency per judge and UTC day: the overview's operating charts (issue 43).

One grouped query over the report's own scope of calls (`app.ledger.callscope.scope`: the same
window, tags, judge and origin, folded comparisons only), placebo comparisons included, since
their calls are paid and timed like any other. Cost is the sum of the stored `cost_usd` with the
count of calls that carry one (`priced_calls`); latency is the mean and the maximum of every
call's `latency_ms`, failed calls included (a timeout is latency a caller waited for).
"""

from __future__ import annotations

from sqlalchemy import func
from sqlalchemy.ext.asyncio import AsyncSession

from app.dashboard import charts
from app.dashboard.charts import Chart, Row
from app.ledger.callscope import ReportFilters, bucket_of, calls_query, fetch, scope
from app.ledger.models import JudgeCall
from app.reports.series import bucket_start


async def usage_rows(session: AsyncSession, filters: ReportFilters) -> list[Row]:
    """One row per judge and UTC day with calls, cost and latency, oldest day first."""
    day = bucket_of(session, JudgeCall.started_at, "day")
    query = calls_query(
        day.label("bucket"),
        JudgeCall.judge_name,
        func.count().label("calls"),
        func.sum(JudgeCall.cost_usd).label("cost_usd"),
        func.count(JudgeCall.cost_usd).label("priced_calls"),
        func.avg(JudgeCall.latency_ms).label("latency_ms_mean"),
        func.max(JudgeCall.latency_ms).label("latency_ms_max"),
        conditions=scope(filters, placebo="include"),
    ).group_by(day, JudgeCall.judge_name)
    rows = [
        {
            "bucket": bucket_start(r.bucket).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "judge": r.judge_name,
            "calls": r.calls,
            "cost_usd": None if r.cost_usd is None else round(float(r.cost_usd), 6),
            "priced_calls": r.priced_calls,
            "latency_ms_mean": round(float(r.latency_ms_mean), 1),
            "latency_ms_max": round(float(r.latency_ms_max), 1),
        }
        for r in await fetch(session, query)
    ]
    return sorted(rows, key=lambda row: (row["bucket"], row["judge"]))


async def usage_charts(session: AsyncSession, filters: ReportFilters) -> list[Chart]:
    """The cost and the latency of each judge by day."""
    rows = await usage_rows(session, filters)
    return [
        Chart(
            "cost_by_day",
            "Cost by day and judge (USD, calls with a stored cost)",
            charts.measure_series_chart("Cost by day", rows, "cost_usd", "cost (USD)"),
            empty="No call with a stored cost in this window.",
        ),
        Chart(
            "latency_by_day",
            "Mean call latency by day and judge (ms; the tooltip gives the slowest call too)",
            charts.measure_series_chart(
                "Mean latency by day", rows, "latency_ms_mean", "mean latency (ms)"
            ),
            empty="No calls in this window.",
        ),
    ]
