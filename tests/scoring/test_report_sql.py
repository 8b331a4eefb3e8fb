"""The report's scoring sections from SQL sums equal the pure math on the same stored data,
on PostgreSQL and on SQLite; the model sees through unbalanced designs; positions and lengths."""

from __future__ import annotations

import asyncio
import math
import shutil
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, create_sessionmaker, utcnow
from app.schema import upgrade
from app.scoring import stats as ss
from app.scoring.queries import ScoringFilters
from app.scoring.report import scoring_sections
from app.scoring.schemas import ScoringSections
from tests.scoring.builders import CallData, SessionData, score_rows, sim_sessions, store_sessions
from tests.scoring.test_stats import statsmodels_fit, sum_coded_effects

OFFSETS = {"rev-a": -0.8, "rev-b": 0.0, "rev-c": 0.5, "rev-d": 0.2}


SCORING_TABLES = "scores, score_calls, score_responses, score_session_tags, score_sessions"


@pytest.fixture(scope="module")
async def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated once; each test gets a copy."""
    path = tmp_path_factory.mktemp("scoring") / "template.db"
    await asyncio.to_thread(upgrade, f"sqlite+aiosqlite:///{path}")
    return path


@pytest.fixture(params=["postgresql", "sqlite"])
async def maker(
    request: pytest.FixtureRequest, pg_url: str, sqlite_template: Path, tmp_path: Path
) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    """A migrated database of each backend, emptied of scores after the test."""
    url = pg_url
    if request.param == "sqlite":
        shutil.copy(sqlite_template, tmp_path / "scores.db")
        url = f"sqlite+aiosqlite:///{tmp_path / 'scores.db'}"
    engine = create_engine(url)
    yield create_sessionmaker(engine)
    if request.param == "postgresql":
        async with engine.begin() as conn:
            await conn.execute(text(f"TRUNCATE {SCORING_TABLES} RESTART IDENTITY CASCADE"))
    await engine.dispose()


async def sections(maker: async_sessionmaker[AsyncSession], **filters: object) -> ScoringSections:
    async with maker() as db:
        scope = ScoringFilters(since=utcnow() - timedelta(days=1), **filters)  # type: ignore[arg-type]
        return await scoring_sections(db, scope)


def approx(value: object) -> object:
    return pytest.approx(value, rel=1e-9, abs=1e-12)


async def test_sql_sums_give_the_same_numbers_as_the_math_on_the_same_stored_data(
    maker: async_sessionmaker[AsyncSession],
) -> None:
    data = sim_sessions(OFFSETS, sessions=40, responses=4, seed=11, skip=0.25, first_slot_bonus=0.3)
    await store_sessions(maker, data)
    report = await sections(maker)
    oracle = ss.reviewer_calibration(score_rows(data), 1, 5)
    assert len(report.reviewers) == len(oracle["reviewers"]) == 4
    for got, want in zip(report.reviewers, oracle["reviewers"], strict=True):
        assert got.reviewer == want["reviewer"]
        assert (got.n, got.n_total, got.tier, got.reason) == (
            want["n"], want["n_total"], want["tier"], want["reason"]
        )  # fmt: skip
        assert got.classification == want["classification"]
        for name in ("raw_mean", "sd", "offset", "z"):
            assert getattr(got, name) == approx(want[name]), name
        assert got.ci95 == approx(want["ci95"])
        assert got.sampled is False
    position, expected = report.position_score, oracle["position_score"]
    assert position.position_p == approx(expected["position_p"])
    assert position.variance_of_position_means == approx(expected["variance_of_position_means"])
    assert position.variance_flag == expected["variance_flag"]
    assert [(p.position, p.n) for p in position.by_position] == [
        (p["position"], p["n"]) for p in expected["by_position"]
    ]
    for got_p, want_p in zip(position.by_position, expected["by_position"], strict=True):
        assert got_p.effect == approx(want_p["effect"])
        assert got_p.ci95 == approx(want_p["ci95"])


async def test_the_model_recovers_offsets_an_unbalanced_design_hides_from_raw_means(
    maker: async_sessionmaker[AsyncSession],
) -> None:
    # The harsh reviewer only sees the sessions with the better responses, so its raw mean is
    # the highest; the item effects absorb the quality and its offset comes out harsh.
    rng = np.random.default_rng(5)
    truth = {"harsh": -1.6, "fair": 0.0, "kind": 1.2}
    data = []
    for s in range(90):
        good = s % 2 == 0
        quality = rng.normal(3.0 if good else -1.0, 0.3, 4)
        reviewers = ["harsh", "fair"] if good else ["fair", "kind"]
        calls = []
        for name in reviewers:
            order = [int(i) for i in rng.permutation(4)]
            scores = [float(5 + quality[i] + truth[name] + rng.normal(0, 0.3)) for i in order]
            calls.append(CallData(name, order, scores))
        data.append(SessionData(f"u{s}", [100] * 4, calls))
    # Two reviewers that only ever meet each other, and one that never meets anybody.
    for s in range(20):
        pair = [CallData(n, [0, 1, 2], [5.0 + s % 3, 4.0, 6.0]) for n in ("island-1", "island-2")]
        data.append(SessionData(f"i{s}", [100] * 3, pair))
        data.append(SessionData(f"l{s}", [100] * 3, [CallData("loner", [0, 1, 2], [5, 4, 6])]))
    await store_sessions(maker, data, low=1, high=10)
    report = {r.reviewer: r for r in (await sections(maker)).reviewers}
    raw = {name: report[name].raw_mean or 0.0 for name in truth}
    assert raw["harsh"] > raw["fair"] > raw["kind"]  # raw means point the wrong way
    centre = sum(truth.values()) / 3
    for name, offset in truth.items():
        assert report[name].offset == pytest.approx(offset - centre, abs=0.1)
    assert report["harsh"].classification == "harsh"
    assert report["kind"].classification == "generous"
    for name in ("island-1", "island-2"):
        assert (report[name].offset, report[name].reason) == (None, "disconnected_design")
    assert (report["loner"].offset, report["loner"].reason) == (None, "insufficient_data")


async def test_fisher_pooled_length_correlation_equals_a_hand_computation(
    maker: async_sessionmaker[AsyncSession],
) -> None:
    data = sim_sessions(
        {"rev-a": 0.0, "rev-b": 0.3}, sessions=30, responses=6, seed=3, length_bias=1.0
    )
    await store_sessions(maker, data)
    report = (await sections(maker)).length_score
    pairs: dict[str, list[tuple[float, int]]] = {}
    for session in data:
        for call in session.calls:
            x = [session.lengths[i] for i in call.order]
            if len(set(x)) > 1 and len(set(call.scores)) > 1:
                r = float(np.corrcoef(x, call.scores)[0, 1])
                pairs.setdefault(call.reviewer, []).append((r, len(x)))
    for got, used in [(report, [p for v in pairs.values() for p in v]), *(
        (b, pairs[b.reviewer]) for b in report.by_reviewer
    )]:  # fmt: skip
        kept = [(r, n) for r, n in used if abs(r) < 1]
        z = np.array([math.atanh(r) for r, _ in kept])
        w = np.array([n - 3.0 for _, n in kept])
        z_bar = float((w * z).sum() / w.sum())
        q = float((w * (z - z_bar) ** 2).sum())
        half = 1.959963984540054 / math.sqrt(w.sum())
        # Overall, sessions count sessions: two reviewers of one session are one session.
        assert got.sessions == (len(data) if got is report else len(kept))
        assert got.pooled_r == approx(math.tanh(z_bar))
        assert got.ci95 == approx((math.tanh(z_bar - half), math.tanh(z_bar + half)))
        assert got.q == approx(q)
        assert got.i2 == approx(max(0.0, (q - (len(kept) - 1)) / q))
    assert report.pooled_r is not None
    assert report.pooled_r > 0.3


@pytest.mark.parametrize(("bonus", "shows"), [(0.6, True), (0.0, False)])
async def test_a_first_slot_bonus_shows_as_a_position_effect_only_when_present(
    maker: async_sessionmaker[AsyncSession], bonus: float, shows: bool
) -> None:
    data = sim_sessions(OFFSETS, sessions=40, responses=4, seed=21, first_slot_bonus=bonus)
    await store_sessions(maker, data)
    position = (await sections(maker)).position_score
    first = position.by_position[0]
    assert first.position == 1
    assert first.ci95 is not None
    assert position.position_p is not None
    if shows:  # γ₁ = 0.6·3/4 under the sum-to-zero coding
        assert first.ci95[0] > 0
        assert first.effect == pytest.approx(0.45, abs=0.15)
        assert position.position_p < 0.05
    else:
        assert all(p.ci95 and p.ci95[0] <= 0 <= p.ci95[1] for p in position.by_position)
        assert position.position_p >= 0.05


async def test_filters_narrow_what_the_sections_cover(
    maker: async_sessionmaker[AsyncSession],
) -> None:
    data = sim_sessions(OFFSETS, sessions=10, responses=4, seed=2)
    tagged = [SessionData(s.id, s.lengths, s.calls, {"team": "a"}) for s in data[:5]] + data[5:]
    await store_sessions(maker, tagged)
    other = sim_sessions({"rev-a": 0, "rev-b": 0}, sessions=3, responses=3, seed=4)
    await store_sessions(
        maker, [SessionData("o" + s.id, s.lengths, s.calls) for s in other], rubric="r-2"
    )
    everything = await sections(maker)
    assert {(r.rubric, r.n_total) for r in everything.reviewers} >= {("r-test", 40), ("r-2", 9)}
    assert everything.position_score.rubric == "r-test"  # the rubric with the most scores
    one = await sections(maker, judge="rev-a", rubric="r-2")
    assert [(r.reviewer, r.rubric) for r in one.reviewers] == [("rev-a", "r-2")]
    assert one.position_score.rubric == "r-2"
    assert {b.reviewer for b in one.length_score.by_reviewer} <= {"rev-a"}
    team = await sections(maker, tags=(("team", "a"),), rubric="r-test")
    assert {r.n_total for r in team.reviewers} == {20}
    later = await sections(maker, until=utcnow() - timedelta(hours=1))
    assert later.reviewers == []
    assert later.position_score.reason == "insufficient_data"


def with_own_family_audit(
    data: list[SessionData], reviewer: str, favour: float
) -> list[SessionData]:
    """`reviewer` scores response 0 of every session as a conflicted audit, `favour` higher."""
    out = []
    for session in data:
        calls = []
        for call in session.calls:
            if call.reviewer == reviewer:
                scores = [
                    s + favour if i == 0 else s
                    for i, s in zip(call.order, call.scores, strict=True)
                ]
                call = CallData(call.reviewer, call.order, scores, audit=frozenset({0}))
            calls.append(call)
        out.append(SessionData(session.id, session.lengths, calls))
    return out


async def test_reviewer_offsets_are_fitted_on_counted_scores_only_not_on_audit_scores(
    maker: async_sessionmaker[AsyncSession],
) -> None:
    """A reviewer that favours its own family's response on its audit scores (kept out of
    every mean) keeps the offset the counted scores give it: statsmodels' OLS on those."""
    data = sim_sessions(OFFSETS, sessions=40, responses=4, seed=13)
    data = with_own_family_audit(data, "rev-c", favour=1.0)
    await store_sessions(maker, data)
    report = {r.reviewer: r for r in (await sections(maker)).reviewers}
    counted = ss.connected_rows(ss.informative_rows(score_rows(data, counted_only=True)))
    offsets, _ = sum_coded_effects(statsmodels_fit(counted), "reviewer")
    names = sorted({row.reviewer for row in counted})
    assert [report[name].offset for name in names] == approx([float(o) for o in offsets])
    everything = ss.connected_rows(ss.informative_rows(score_rows(data)))
    with_audit, _ = sum_coded_effects(statsmodels_fit(everything), "reviewer")
    assert with_audit[names.index("rev-c")] - offsets[names.index("rev-c")] > 0.1  # it matters
    own = [row.score for row in score_rows(data, counted_only=True) if row.reviewer == "rev-c"]
    assert (report["rev-c"].n_total, report["rev-c"].raw_mean) == (len(own), approx(np.mean(own)))
