"""`length_score.sessions` counts score sessions, not (reviewer, session) correlations (issue 21):
three reviewers on 8 sessions are 8 sessions, below the 10 that tier `preliminary` needs."""

from __future__ import annotations

from datetime import timedelta

from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.ledger.callscope import ReportFilters
from app.reports.bias import build_report
from app.scoring.schemas import LengthScoreSection
from tests.scoring.builders import sim_sessions, store_sessions

REVIEWERS = {"rev-a": 0.0, "rev-b": 0.3, "rev-c": -0.3}


async def length_score(url: str, sessions: int) -> LengthScoreSection:
    """The bias report's length_score over `sessions` sessions scored by three reviewers."""
    engine = create_engine(url)
    try:
        maker = create_sessionmaker(engine)
        data = sim_sessions(REVIEWERS, sessions=sessions, responses=6, seed=5, length_bias=1.0)
        await store_sessions(maker, data)
        async with maker() as db:
            filters = ReportFilters(since=utcnow() - timedelta(days=1))
            report = await build_report(db, filters, Settings())
    finally:
        await engine.dispose()
    assert report.length_score is not None
    return report.length_score


async def test_sessions_count_sessions_and_set_the_tier(clean_pg: str) -> None:
    section = await length_score(clean_pg, sessions=8)
    per_reviewer = sum(r.sessions for r in section.by_reviewer)
    assert per_reviewer > 10  # the pooled correlations: one per reviewer and session
    assert section.sessions == 8
    assert (section.tier, section.reason, section.pooled_r) == (
        "insufficient",
        "insufficient_data",
        None,
    )


async def test_enough_sessions_show_the_pooled_correlation(clean_pg: str) -> None:
    section = await length_score(clean_pg, sessions=12)
    assert section.sessions == 12
    assert section.tier == "preliminary"
    assert section.pooled_r is not None
    assert sum(r.sessions for r in section.by_reviewer) > 12
