"""Leave-one-judge-out rank agreement: Kendall τ-b against scipy, the refitted boards against
choix, and the leaderboard's answer on PostgreSQL (stored rows and a real sim panel through
`POST /v1/compare`) and SQLite."""

from __future__ import annotations

import asyncio
import itertools
import math
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import numpy as np
import pytest
from scipy import special, stats
from sqlalchemy import insert

from app import stats as app_stats
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.leaderboard import service
from app.leaderboard.judges_out import PanelOutcome, leave_one_judge_out
from app.leaderboard.queries import LeaderboardFilters
from app.ledger.models import JudgeCall
from app.schema import upgrade
from tests.leaderboard.test_leaderboard import (
    StoredComparisons,
    choix_theta,
    get_board,
    post_comparisons,
    sim_response,
)
from tests.support.rows import call_row

# Kendall τ-b


def scipy_tau(x: list[float], y: list[float]) -> float | None:
    tau = float(stats.kendalltau(x, y).statistic)
    return None if math.isnan(tau) else tau


def test_kendall_tau_b_equals_scipy_with_and_without_ties() -> None:
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 14))
        # Few distinct values: ties on one side, the other, and both.
        x = rng.integers(0, int(rng.integers(1, 6)), n).astype(float).tolist()
        y = rng.integers(0, int(rng.integers(1, 6)), n).astype(float).tolist()
        expected = scipy_tau(x, y)
        found = app_stats.kendall_tau_b(x, y)
        if expected is None:
            assert found is None
        else:
            assert found == pytest.approx(expected, abs=1e-12)
    strengths = rng.normal(size=9).tolist()
    assert app_stats.kendall_tau_b(strengths, strengths) == 1.0
    assert app_stats.kendall_tau_b(strengths, [-s for s in strengths]) == -1.0
    assert app_stats.kendall_tau_b([1.0], [2.0]) is None
    with pytest.raises(ValueError, match="same length"):
        app_stats.kendall_tau_b([1.0, 2.0], [1.0])


# The pure function against an independent refit

JUDGES = ("judge-a", "judge-b", "judge-noisy")
STRENGTHS = {"m-1": 1.2, "m-2": 0.6, "m-3": 0.1, "m-4": -0.4, "m-5": -1.1}


def majority(winners: list[str]) -> str:
    """The panel rule, written out again: more A than B votes → A, the mirror → B, else tie."""
    a, b = winners.count("A"), winners.count("B")
    return "A" if a > b else "B" if b > a else "tie"


def simulate_panel(n: int, seed: int) -> list[tuple[str, str, dict[str, str]]]:
    """Comparisons of random model pairs, each judged by all three judges, by two, or by
    judge-b alone: two follow the strengths, the noisy one flips a coin."""
    rng = np.random.default_rng(seed)
    names = list(STRENGTHS)
    out = []
    for k in range(n):
        a, b = (names[int(i)] for i in rng.choice(len(names), 2, replace=False))
        panel = JUDGES if k % 3 else JUDGES[k % 2 :: 2] if k % 2 else JUDGES[:2]
        votes = {}
        for judge in panel:
            p = 0.5 if judge == "judge-noisy" else special.expit(STRENGTHS[a] - STRENGTHS[b])
            votes[judge] = "tie" if rng.random() < 0.1 else "A" if rng.random() < p else "B"
        out.append((a, b, votes))
    return out


def expected_board(
    comparisons: list[tuple[str, str, dict[str, str]]],
) -> dict[str, tuple[int, int, int, float | None]]:
    """Per judge (voted, n, changed, τ) by the written-out rule, choix and scipy: τ between a
    choix fit without the judge and one of the stored (all-judge) verdicts."""
    full_games = [(a, b, majority(list(v.values()))) for a, b, v in comparisons]
    full = choix_theta(sorted({m for g in full_games for m in g[:2]}), full_games)
    answer = {}
    judges = sorted({name for _, _, votes in comparisons for name in votes})
    for judge in judges:
        games, voted, changed = [], 0, 0
        for a, b, votes in comparisons:
            rest = [w for name, w in votes.items() if name != judge]
            voted += judge in votes
            if judge in votes and not rest:
                continue
            winner = majority(rest) if judge in votes else majority(list(votes.values()))
            changed += winner != majority(list(votes.values()))
            games.append((a, b, winner))
        theta = choix_theta(sorted({m for g in games for m in g[:2]}), games)
        common = sorted(set(theta) & set(full))
        tau = scipy_tau([full[m] for m in common], [theta[m] for m in common])
        answer[judge] = (voted, len(games), changed, tau)
    return answer


def outcomes_of(comparisons: list[tuple[str, str, dict[str, str]]]) -> list[PanelOutcome]:
    return [
        PanelOutcome(a, b, majority(list(v.values())), tuple(sorted(v.items())))  # type: ignore[arg-type]
        for a, b, v in comparisons
    ]


def test_each_judge_left_out_equals_a_choix_refit_and_scipy_tau() -> None:
    comparisons = simulate_panel(400, seed=3)
    found = leave_one_judge_out(outcomes_of(comparisons))
    assert found is not None
    expected = expected_board(comparisons)
    assert [j.judge for j in found] == list(JUDGES)
    for judge in found:
        voted, n, changed, tau = expected[judge.judge]
        assert (judge.voted, judge.n, judge.changed, judge.models) == (voted, n, changed, 5)
        assert judge.kendall_tau == pytest.approx(tau, abs=1e-12)
    by_name = {j.judge: j for j in found}
    # Leaving the coin-flipper out changes little; a judge that follows the strengths can matter.
    assert by_name["judge-noisy"].kendall_tau == 1.0
    assert by_name["judge-noisy"].changed > 0


def test_one_judge_is_no_panel_and_a_lone_judges_outcomes_drop_out() -> None:
    assert leave_one_judge_out(outcomes_of([("m-1", "m-2", {"solo": "A"})] * 5)) is None
    comparisons = [
        *[("m-1", "m-2", {"solo": "A"})] * 5,
        ("m-1", "m-2", {"other": "B", "solo": "A"}),
        ("m-2", "m-3", {"other": "B"}),
        ("m-1", "m-3", {"other": "A", "solo": "A"}),
    ]
    other, solo = leave_one_judge_out(outcomes_of(comparisons)) or []
    expected = expected_board(comparisons)
    assert (solo.judge, solo.voted, solo.n, solo.changed, solo.models) == ("solo", 7, 3, 1, 3)
    assert (other.voted, other.n, other.changed, other.models) == (3, 7, 1, 3)
    for found in (solo, other):
        assert found.kendall_tau == pytest.approx(expected[found.judge][3], abs=1e-12)
    # A comparison with no stored judge results keeps its stored verdict whoever is left out.
    bare = PanelOutcome("m-2", "m-3", "B", ())
    again = leave_one_judge_out([*outcomes_of(comparisons), bare]) or []
    assert [j.n for j in again] == [8, 4]


# Through the API


def panel_rows(comparisons: list[tuple[str, str, dict[str, str]]]) -> StoredComparisons:
    """The comparisons as stored rows: the panel verdict and each judge's result."""
    stored = StoredComparisons()
    for a, b, votes in comparisons:
        results = {
            name: {"winner": w, "confidence": 0.8, "position_consistent": True}
            for name, w in votes.items()
        }
        stored.add(a, b, majority(list(votes.values())), judge_results=results)
    return stored


async def insert_audits(url: str, stored: StoredComparisons, judge: str) -> None:
    """Mark `judge` as an audit (not a voter) on every stored comparison by its calls' role."""
    rows = []
    for row in stored.rows:
        call = call_row(row["id"], 0)
        rows.append({**call, "judge_name": judge, "role": "audit"})
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        await session.execute(insert(JudgeCall), rows)
        await session.commit()
    await engine.dispose()


def with_auditor(
    comparisons: list[tuple[str, str, dict[str, str]]],
) -> list[tuple[str, str, dict[str, str]]]:
    """The same comparisons with an auditor whose result always says B: it must not vote."""
    return [(a, b, {**votes, "auditor": "B"}) for a, b, votes in comparisons]


@pytest.fixture
async def client(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    started: httpx2.AsyncClient = await live_factory(settings_factory())
    return started


async def test_the_answer_lists_each_judge_left_out_as_the_oracles_do(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    comparisons = simulate_panel(300, seed=4)
    stored = panel_rows(with_auditor(comparisons))
    # The stored verdict is the voters' (the auditor's B never counted).
    for row, (_, _, votes) in zip(stored.rows, comparisons, strict=True):
        row["winner"] = majority(list(votes.values()))
    await stored.insert(clean_pg)
    await insert_audits(clean_pg, stored, "auditor")

    board = await get_board(client, reader)
    section = board["fragility"]["leave_one_judge_out"]
    expected = expected_board(comparisons)
    assert (section["reason"], section["outcomes"]) == (None, 300)
    assert [j["judge"] for j in section["judges"]] == list(JUDGES)
    for judge in section["judges"]:
        voted, n, changed, tau = expected[judge["judge"]]
        assert (judge["voted"], judge["n"], judge["changed"]) == (voted, n, changed)
        assert judge["kendall_tau"] == pytest.approx(tau, abs=1e-12)
    taus = [j["kendall_tau"] for j in section["judges"]]
    assert section["min_kendall_tau"] == min(taus)


async def test_a_single_judge_board_says_so(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    stored = panel_rows([(a, b, {"judge-b": v["judge-b"]}) for a, b, v in simulate_panel(60, 5)])
    await stored.insert(clean_pg)
    board = await get_board(client, reader)
    section = board["fragility"]["leave_one_judge_out"]
    assert section == {
        "outcomes": 60,
        "judges": [],
        "min_kendall_tau": None,
        "reason": "single_judge",
    }


SIM_PANEL = """
default_panel = ["sim-sharp", "sim-sharp-2", "sim-coin"]

[[judges]]
name = "sim-sharp"
provider = "sim"
model = "sim-sharp"

[judges.sim]
beta = 2.5
seed = 1

[[judges]]
name = "sim-sharp-2"
provider = "sim"
model = "sim-sharp-2"

[judges.sim]
beta = 2.5
seed = 2

[[judges]]
name = "sim-coin"
provider = "sim"
model = "sim-coin"

[judges.sim]
beta = 0.0
seed = 3
"""


async def test_a_sim_panel_through_compare_reads_its_own_judge_results(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(SIM_PANEL))
    quality = {"q-1": -1.0, "q-2": 0.0, "q-3": 1.0, "q-4": 2.0}
    bodies = [
        {
            "prompt": "Explain tides.",
            "response_a": sim_response(a, quality[a]),
            "response_b": sim_response(b, quality[b]),
        }
        for pair in itertools.combinations(quality, 2)
        for k in range(8)
        for a, b in [pair if k % 2 else pair[::-1]]
    ]
    await post_comparisons(client, comparer, bodies)
    stored = await client.get("/v1/comparisons", headers=comparer, params={"limit": 100})
    assert stored.status_code == 200, stored.text
    board = await get_board(client, comparer)
    section = board["fragility"]["leave_one_judge_out"]
    assert [j["judge"] for j in section["judges"]] == ["sim-coin", "sim-sharp", "sim-sharp-2"]
    for judge in section["judges"]:
        assert (judge["voted"], judge["n"], judge["models"]) == (48, 48, 4)
        assert -1.0 <= judge["kendall_tau"] <= 1.0
    # Each verdict the API shows per judge is what the leave-one-out refit re-votes: recount
    # the changes from the comparisons' own answers.
    items = stored.json()["items"]
    assert len(items) == 48
    changes: Counter[str] = Counter()
    for item in items:
        votes = {
            entry["judge"]: entry["result"]["winner"]
            for entry in item["judges"]
            if entry["role"] == "voter" and entry["result"] is not None
        }
        for judge in votes:
            rest = [w for name, w in votes.items() if name != judge]
            changes[judge] += majority(rest) != item["winner"]
    assert {j["judge"]: j["changed"] for j in section["judges"]} == dict(changes)


async def test_postgresql_and_sqlite_agree_on_leave_one_judge_out(
    clean_pg: str, tmp_path: Path
) -> None:
    stored = panel_rows(simulate_panel(200, seed=6))
    sqlite_url = f"sqlite+aiosqlite:///{tmp_path}/judges-out.db"
    await asyncio.to_thread(upgrade, sqlite_url)
    query = service.LeaderboardQuery(LeaderboardFilters())
    answers = []
    for url in (clean_pg, sqlite_url):
        await stored.insert(url)
        await insert_audits(url, StoredComparisons(rows=stored.rows[:50]), "judge-b")
        engine = create_engine(url)
        board = await service.get_leaderboard(
            create_sessionmaker(engine), service.LeaderboardCache(), query
        )
        await engine.dispose()
        assert board.fragility is not None
        answers.append(board.fragility.leave_one_judge_out.model_dump(mode="json"))
    assert answers[0] == answers[1]
    judge_b = next(j for j in answers[0]["judges"] if j["judge"] == "judge-b")
    # An audit on 50 comparisons is not a vote there.
    voted_b = sum("judge-b" in v for _, _, v in simulate_panel(200, seed=6)[50:])
    assert judge_b["voted"] == voted_b
