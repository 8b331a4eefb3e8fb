"""Cost and latency per judge and UTC day (`app/dashboard/usage.py`) on PostgreSQL and on the
embedded SQLite, against sums done here in Python over the stored call rows (placebo calls
included, calls outside the window or of canary comparisons left out)."""

from __future__ import annotations

from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from app.dashboard.usage import usage_rows
from app.db import create_engine, create_sessionmaker
from app.ledger.callscope import ReportFilters
from app.ledger.fold import rebuild
from app.schema import upgrade
from tests.dashboard.seed import traffic
from tests.reports.builders import BASE_TIME


def expected(calls: list[dict[str, Any]], kept: set[str]) -> list[dict[str, Any]]:
    """The rows the query must give, summed here per (day, judge)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for call in calls:
        if call["comparison_id"] in kept:
            day = call["started_at"].strftime("%Y-%m-%dT00:00:00Z")
            groups[(day, call["judge_name"])].append(call)
    rows = []
    for (day, judge), group in sorted(groups.items()):
        costs = [c["cost_usd"] for c in group if c.get("cost_usd") is not None]
        latencies = [c["latency_ms"] for c in group]
        rows.append(
            {
                "bucket": day,
                "judge": judge,
                "calls": len(group),
                "cost_usd": round(sum(costs), 6) if costs else None,
                "priced_calls": len(costs),
                "latency_ms_mean": round(sum(latencies) / len(latencies), 1),
                "latency_ms_max": round(max(latencies), 1),
            }
        )
    return rows


@pytest.fixture(params=["postgresql", "sqlite"])
def database(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A migrated database of either backend."""
    if request.param == "postgresql":
        url: str = request.getfixturevalue("clean_pg")
        return url
    url = f"sqlite+aiosqlite:///{tmp_path / 'usage.db'}"
    upgrade(url)
    return url


async def test_cost_and_latency_per_judge_and_day_equal_the_sums_of_the_stored_calls(
    database: str,
) -> None:
    data = traffic()
    canary = data.comparison(at=BASE_TIME)  # a canary's re-run: left out, not traffic
    for row in data.comparisons:
        row.setdefault("origin", "traffic")
    data.comparisons[-1]["origin"] = "canary"
    data.swap("first", "second", comparison_id=canary, judge="judge-a", at=BASE_TIME)
    data.calls[-1].update(latency_ms=99_999.0, cost_usd=5.0)
    data.calls[-2].update(latency_ms=99_999.0, cost_usd=5.0)
    await data.insert(database)
    traffic_ids = {c["id"] for c in data.comparisons if c["origin"] == "traffic"}
    assert any(c["placebo"] for c in data.comparisons)  # placebo calls are counted too

    engine = create_engine(database)
    async with create_sessionmaker(engine)() as session:
        await rebuild(session)  # folded, as the report reads them (the folder's job)
        await session.commit()
        rows = await usage_rows(session, ReportFilters(since=BASE_TIME - timedelta(days=30)))
        later = await usage_rows(session, ReportFilters(since=BASE_TIME))
    await engine.dispose()

    want = expected(data.calls, traffic_ids)
    assert [r["bucket"] for r in rows] == [r["bucket"] for r in want]
    for got, should in zip(rows, want, strict=True):
        assert got == pytest.approx(should), (got, should)
    assert {r["judge"] for r in rows if r["cost_usd"] is None} == {"judge-c"}  # no prices
    # The window bounds the calls: only the second day's.
    assert later == [r for r in rows if r["bucket"] >= BASE_TIME.strftime("%Y-%m-%dT00:00:00Z")]
