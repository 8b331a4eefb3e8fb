"""`GET /v1/leaderboard` on PostgreSQL: Bradley-Terry against choix, the sim's strengths, the
length-controlled win rate against statsmodels and a length-biased sim, filters and the cache."""

from __future__ import annotations

import asyncio
import itertools
import math
import random
import threading
import time
import uuid
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import choix
import httpx2
import numpy as np
import pytest
import statsmodels.api as sm
from scipy import special
from sqlalchemy import insert

from app.comparisons.protocols import (
    CallOutcome,
    Order,
    Protocol,
    judge_verdict,
    mapped_winner,
)
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.judging.base import JudgeClient
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, SimKnobs
from app.leaderboard import queries, service
from app.leaderboard.fragility import flips_to_reorder
from app.leaderboard.queries import LeaderboardFilters
from app.leaderboard.ratings import LAMBDA
from app.ledger.models import Comparison, ComparisonTag
from app.schema import upgrade
from tests.comparisons.test_compare_api import sim_judges
from tests.support.rows import comparison_row, tag_rows

BASE_TIME = datetime(2026, 1, 10, 12, tzinfo=UTC)
Game = tuple[str, str, str]  # model_a, model_b, winner (A | B | tie)


@dataclass
class StoredComparisons:
    """Comparison rows (and tags) to insert directly: no HTTP, no judge."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)

    def add(
        self,
        model_a: str | None,
        model_b: str | None,
        winner: str | None,
        *,
        len_a: int = 500,
        len_b: int = 500,
        placebo: bool = False,
        status: str = "complete",
        tags: dict[str, str] | None = None,
        at: datetime = BASE_TIME,
        **columns: Any,
    ) -> None:
        """One stored comparison with its final verdict (`columns` add to its row)."""
        comparison_id = str(uuid.uuid4())
        self.rows.append(
            comparison_row(
                comparison_id, at, status=status, placebo=placebo, len_a=len_a, len_b=len_b,
                model_a=model_a, model_b=model_b, winner=winner, **columns,
            )
        )  # fmt: skip
        self.tags += tag_rows(comparison_id, tags)

    def add_games(self, games: list[Game], **fields: Any) -> None:
        """Several comparisons with default lengths."""
        for model_a, model_b, winner in games:
            self.add(model_a, model_b, winner, **fields)

    async def insert(self, database_url: str) -> None:
        """Write every row."""
        engine = create_engine(database_url)
        async with create_sessionmaker(engine)() as session:
            for model, rows in ((Comparison, self.rows), (ComparisonTag, self.tags)):
                if rows:
                    await session.execute(insert(model), rows)
            await session.commit()
        await engine.dispose()


def simulate_games(
    strengths: dict[str, float], n_games: int, seed: int, tie_share: float = 0.2
) -> list[Game]:
    """Bradley-Terry games between random pairs, with ties."""
    rng = np.random.default_rng(seed)
    names = list(strengths)
    games: list[Game] = []
    for _ in range(n_games):
        a, b = (names[int(k)] for k in rng.choice(len(names), size=2, replace=False))
        if rng.random() < tie_share:
            games.append((a, b, "tie"))
        else:
            won = rng.random() < special.expit(strengths[a] - strengths[b])
            games.append((a, b, "A" if won else "B"))
    return games


def choix_theta(names: list[str], games: list[Game]) -> dict[str, float]:
    """The oracle: decisive games entered twice, each tie once each way, alpha = λ, centred."""
    index = {name: k for k, name in enumerate(names)}
    data: list[tuple[int, int]] = []
    for a, b, winner in games:
        i, j = index[a], index[b]
        data += {"A": [(i, j), (i, j)], "B": [(j, i), (j, i)], "tie": [(i, j), (j, i)]}[winner]
    theta = choix.opt_pairwise(len(names), data, alpha=LAMBDA, tol=1e-10)
    return dict(zip(names, theta - theta.mean(), strict=True))


async def get_board(client: httpx2.AsyncClient, headers: dict[str, str], **params: Any) -> Any:
    response = await client.get("/v1/leaderboard", headers=headers, params=params)
    assert response.status_code == 200, response.text
    return response.json()


def by_model(board: Any) -> dict[str, Any]:
    return {row["model"]: row for row in board["models"]}


@pytest.fixture
async def client(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app on the test database (auth on)."""
    started: httpx2.AsyncClient = await live_factory(settings_factory())
    return started


# Bradley-Terry


async def test_ratings_equal_choix_and_skip_placebo_unfinished_unknown_and_self_pairs(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    strengths = {"m-a": 0.9, "m-b": 0.4, "m-c": 0.0, "m-d": -0.3, "m-e": -1.0, "m-f": 1.4}
    games = simulate_games(strengths, n_games=600, seed=1)
    stored = StoredComparisons()
    stored.add_games(games)
    # None of these is an outcome: counting any of them would move every θ.
    stored.add("m-a", "m-e", "A", placebo=True)
    for status in ("partial", "failed", "running"):
        stored.add("m-e", "m-a", "A", status=status)
    stored.add("m-e", None, "A")
    stored.add(None, "m-a", "B")
    stored.add("m-e", "m-e", "A")
    await stored.insert(clean_pg)

    board = await get_board(client, reader)
    oracle = choix_theta(sorted(strengths), games)
    rows = by_model(board)
    assert board["n"] == 600
    assert set(rows) == set(strengths)
    for name, row in rows.items():
        assert row["theta"] == pytest.approx(oracle[name], abs=1e-6)
        assert row["rating"] == pytest.approx(1000 + 400 * oracle[name] / math.log(10), abs=1e-4)
        assert row["ci95"][0] < row["rating"] < row["ci95"][1]
        assert row["reason"] is None
        mine = [g for g in games if name in g[:2]]
        wins = sum((g[2] == "A") == (g[0] == name) for g in mine if g[2] != "tie")
        ties = sum(g[2] == "tie" for g in mine)
        assert (row["games"], row["wins"], row["ties"]) == (len(mine), wins, ties)
        assert row["losses"] == len(mine) - wins - ties
    ranked = sorted(oracle, key=lambda name: -oracle[name])
    assert [row["model"] for row in board["models"]] == ranked
    assert [row["rank"] for row in board["models"]] == [1, 2, 3, 4, 5, 6]
    assert_fragility(board, games)


def assert_fragility(board: dict[str, Any], games: list[tuple[str, str, str]]) -> None:
    """The answer's fragility: separability counted from its own intervals, and each listed
    pair's flips equal to the pure function's on the same games (which the fragility tests
    check against brute force)."""
    models = board["models"]
    cis = [row["ci95"] for row in models]
    separated = sum(a[1] < b[0] or b[1] < a[0] for a, b in itertools.combinations(cis, 2))
    fragile = board["fragility"]
    assert (fragile["separable_pairs"], fragile["pairs"]) == (separated, 15)
    assert fragile["separability"] == pytest.approx(separated / 15)
    names = sorted(row["model"] for row in models)
    index = {name: k for k, name in enumerate(names)}
    y = {"A": 1.0, "tie": 0.5, "B": 0.0}
    as_games = [(index[a], index[b], y[w]) for a, b, w in games]
    top, second = models[0]["model"], models[1]["model"]
    first = fragile["adjacent"][0]
    assert (first["higher"], first["lower"]) == (top, second)
    assert first["flips"] == flips_to_reorder(6, as_games, index[top], index[second])
    assert first["flips"] is not None
    assert first["flips"] > 0
    for pair in fragile["adjacent"][1:]:
        assert pair["cis_overlap"]


async def test_a_disconnected_model_gets_null_rating_with_reason(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    stored = StoredComparisons()
    stored.add_games(simulate_games({"m-a": 0.5, "m-b": 0.0, "m-c": -0.5}, 90, seed=2))
    stored.add_games([("island-x", "island-y", "A")] * 3)
    await stored.insert(clean_pg)

    rows = by_model(await get_board(client, reader))
    for name in ("island-x", "island-y"):
        assert rows[name]["rating"] is None
        assert rows[name]["ci95"] is None
        assert rows[name]["theta"] is None
        assert rows[name]["rank"] is None
        assert rows[name]["reason"] == "disconnected"
        assert rows[name]["games"] == 3
    assert {rows[m]["rank"] for m in ("m-a", "m-b", "m-c")} == {1, 2, 3}
    assert sum(rows[m]["theta"] for m in ("m-a", "m-b", "m-c")) == pytest.approx(0, abs=1e-9)


async def post_comparisons(
    client: httpx2.AsyncClient, headers: dict[str, str], bodies: list[dict[str, Any]]
) -> None:
    """POST /v1/compare for every body, a few at a time."""
    gate = asyncio.Semaphore(8)

    async def one(body: dict[str, Any]) -> None:
        async with gate:
            response = await client.post("/v1/compare", headers=headers, json=body)
            assert response.status_code == 200, response.text

    await asyncio.gather(*(one(body) for body in bodies))


def sim_response(model: str, quality: float, length: int = 200) -> dict[str, str]:
    """A response of `model` with the sim's latent quality and `length` characters in all."""
    tail = f"\n[sim q={quality}]"
    return {
        "text": ("lorem ipsum " * (length // 12 + 1))[: length - len(tail)] + tail,
        "model": model,
    }


async def test_ratings_recover_sim_qualities_in_rank_order_through_compare(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(sim_judges(beta=2.5, seed=7)))
    quality = {"q-1": -1.0, "q-2": -0.5, "q-3": 0.0, "q-4": 0.5, "q-5": 1.0}
    # 20 comparisons per pair, sides alternating: adjacent models differ by 1.25 logit per call.
    # In 20,000 simulated replicates of this design the fitted order was never wrong.
    bodies = [
        {
            "prompt": "Explain tides.",
            "response_a": sim_response(a, quality[a]),
            "response_b": sim_response(b, quality[b]),
        }
        for pair in itertools.combinations(quality, 2)
        for k in range(20)
        for a, b in [pair if k % 2 else pair[::-1]]
    ]
    await post_comparisons(client, comparer, bodies)

    board = await get_board(client, comparer)
    assert board["n"] == 200
    assert [row["model"] for row in board["models"]] == ["q-5", "q-4", "q-3", "q-2", "q-1"]
    rows = by_model(board)
    assert all(row["games"] == 80 for row in rows.values())
    assert rows["q-5"]["ci95"][0] > rows["q-1"]["ci95"][1]
    # Served from cache until the next comparison completes.
    assert await get_board(client, comparer) == board
    await post_comparisons(client, comparer, bodies[:1])
    fresh = await get_board(client, comparer)
    assert (fresh["n"], fresh["computed_at"] > board["computed_at"]) == (201, True)


# Length-controlled win rate


def statsmodels_lc(y: list[float], delta: list[int]) -> tuple[float, float]:
    """LC and its SE from a binomial GLM on tanh(Δ/sd(Δ)), fractional y."""
    outcome, d = np.array(y), np.array(delta, dtype=float)
    design = np.column_stack([np.ones_like(outcome), np.tanh(d / np.std(d, ddof=1))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels warns on non-integer binomial counts
        fit = sm.GLM(outcome, design, family=sm.families.Binomial()).fit(tol=1e-13)
    p = special.expit(fit.params[0])
    return 100 * p, 100 * p * (1 - p) * fit.bse[0]


async def test_lc_win_rate_equals_statsmodels_glm_on_direct_comparisons_with_the_baseline(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    rng = np.random.default_rng(3)
    stored = StoredComparisons()
    y, delta = [], []
    for k in range(120):
        d = int(rng.normal(150, 400))
        p = special.expit(0.3 + 0.8 * np.tanh(d / 400))
        outcome = 0.5 if rng.random() < 0.15 else float(rng.random() < p)
        len_m, len_b = 1000 + d, 1000
        y.append(outcome)
        delta.append(d)
        # The model under test sits on either side; y is always from its side.
        if k % 2:
            stored.add(
                "model", "base", {1.0: "A", 0.5: "tie", 0.0: "B"}[outcome], len_a=len_m, len_b=len_b
            )
        else:
            stored.add(
                "base", "model", {1.0: "B", 0.5: "tie", 0.0: "A"}[outcome], len_a=len_b, len_b=len_m
            )
    # Not direct comparisons with the baseline, or not outcomes: no part of the LC fit.
    stored.add_games([("model", "other", "A")] * 20 + [("other", "base", "B")] * 20)
    stored.add("model", "base", "B", placebo=True, len_a=900, len_b=900)
    stored.add_games([("winner", "base", "A")] * 35)
    await stored.insert(clean_pg)

    board = await get_board(client, reader, baseline="base")
    rows = by_model(board)
    vs = rows["model"]["vs_baseline"]
    lc, lc_se = statsmodels_lc(y, delta)
    assert vs["n"] == 120
    assert vs["lc_win_rate"] == pytest.approx(lc, abs=1e-8)
    assert vs["lc_win_rate_se"] == pytest.approx(lc_se, abs=1e-8)
    assert vs["win_rate"] == pytest.approx(100 * np.mean(y))
    assert vs["win_rate_se"] == pytest.approx(100 * np.std(y, ddof=1) / math.sqrt(120))
    assert vs["lc_warning"] is bool(abs(lc - 100 * np.mean(y)) > 10)
    assert vs["reason"] is None
    assert rows["other"]["vs_baseline"]["n"] == 20
    assert rows["other"]["vs_baseline"]["lc_win_rate"] is None
    assert rows["other"]["vs_baseline"]["reason"] == "insufficient_data"
    assert rows["winner"]["vs_baseline"] == {
        "n": 35,
        "win_rate": 100.0,
        "win_rate_se": 0.0,
        "lc_win_rate": None,
        "lc_win_rate_se": None,
        "lc_warning": False,
        "reason": "separation",
    }
    assert rows["base"]["vs_baseline"] is None
    assert board["filters"]["baseline"] == "base"
    assert board["baseline_comparisons"] == 120 + 20 + 35
    # Without a baseline there is nothing to win against.
    unbased = await get_board(client, reader)
    assert all(r["vs_baseline"] is None for r in unbased["models"])
    assert unbased["baseline_comparisons"] is None


async def test_an_unknown_baseline_says_it_has_no_comparisons(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    stored = StoredComparisons()
    stored.add_games([("model", "base", "A")] * 5)
    await stored.insert(clean_pg)
    board = await get_board(client, reader, baseline="bsae")
    assert board["filters"]["baseline"] == "bsae"
    assert board["baseline_comparisons"] == 0
    assert {r["model"]: r["vs_baseline"]["n"] for r in board["models"]} == {"model": 0, "base": 0}
    assert (await get_board(client, reader, baseline="base"))["baseline_comparisons"] == 5


async def swap_winner(
    judge: JudgeClient, prompt: str, text_a: str, text_b: str, rng: random.Random
) -> str:
    """The swap protocol's verdict of one judge: both display orders, then the pair rule."""
    outcomes = []
    orders: tuple[Order, Order] = ("AB", "BA")
    for round_index, order in enumerate(orders):
        first, second = (text_a, text_b) if order == "AB" else (text_b, text_a)
        call = await judge.judge_pair(
            prompt, first, second, deadline=time.monotonic() + 60, rng=rng
        )
        assert call.pick is not None
        outcomes.append(CallOutcome(round_index, order, mapped_winner(call.pick, order)))
    verdict = judge_verdict(Protocol(), outcomes)
    assert verdict is not None
    return verdict.winner


async def test_length_biased_sim_inflates_raw_win_rate_and_lc_removes_most_of_it(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    # The real sim judge and swap rule with a seeded generator (labels, nonces, hence the sim's
    # draws), stored directly: deterministic, and fast enough for 1,000 comparisons.
    judge = build_judge(
        JudgeConfig(
            name="sim-len", provider="sim", model="sim-len", sim=SimKnobs(length_bias=1.5, seed=11)
        )
    )
    rng = random.Random(11)
    # Equal quality; the verbose model is 1000 characters longer in 5 of 6 comparisons and 1000
    # shorter in the sixth. Per call the sim picks it with σ(±1.5·tanh(2)) = 0.81 | 0.19, and a
    # swap verdict scores it y = mean of two such calls, so raw ≈ (5·81 + 19)/6 ≈ 70.6 while the
    # length-free rate is 50. With two Δ values the GLM is saturated (no misspecification):
    # LC = σ(mean of the two groups' logits) ≈ 50, SE ≈ 2. Summed over the exact binomial
    # distributions of both groups, the assertions below fail for 1 seed in 80,000.
    stored = StoredComparisons()
    base = sim_response("base", 0, 1100)["text"]
    for k in range(1000):
        verbose = sim_response("verbose", 0, 100 if k % 6 == 0 else 2100)["text"]
        sides = [("verbose", verbose), ("base", base)]
        (model_a, text_a), (model_b, text_b) = sides if k % 2 else sides[::-1]
        winner = await swap_winner(judge, "Summarize the report.", text_a, text_b, rng)
        stored.add(model_a, model_b, winner, len_a=len(text_a), len_b=len(text_b))
    await judge.aclose()
    await stored.insert(clean_pg)

    vs = by_model(await get_board(client, reader, baseline="base"))["verbose"]["vs_baseline"]
    assert vs["n"] == 1000
    assert vs["win_rate"] > 60
    assert abs(vs["lc_win_rate"] - 50) < abs(vs["win_rate"] - 50) / 2
    assert vs["lc_warning"] is True


async def test_beyond_the_cap_only_the_most_recent_comparisons_are_fitted_but_all_counted(
    client: httpx2.AsyncClient,
    reader: dict[str, str],
    clean_pg: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(queries, "MAX_OUTCOMES", 6)
    stored = StoredComparisons()
    old, recent = BASE_TIME - timedelta(days=1), BASE_TIME
    stored.add_games([("m-a", "m-b", "B")] * 4, at=old)
    stored.add_games([("m-a", "m-b", "A")] * 4 + [("m-a", "m-b", "tie")] * 2, at=recent)
    await stored.insert(clean_pg)

    board = await get_board(client, reader)
    recent_games = [("m-a", "m-b", "A")] * 4 + [("m-a", "m-b", "tie")] * 2
    oracle = choix_theta(["m-a", "m-b"], recent_games)
    rows = by_model(board)
    assert (board["n"], board["sampled"]) == (6, True)
    assert rows["m-a"]["theta"] == pytest.approx(oracle["m-a"], abs=1e-6)
    assert (rows["m-a"]["wins"], rows["m-a"]["ties"], rows["m-a"]["losses"]) == (4, 2, 4)


# Filters


async def test_since_until_and_tags_select_comparisons_and_are_echoed(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    stored = StoredComparisons()
    day = timedelta(days=1)
    stored.add_games([("m-a", "m-b", "A")] * 4, at=BASE_TIME - day, tags={"team": "x"})
    stored.add_games([("m-a", "m-b", "B")] * 3, at=BASE_TIME, tags={"team": "x", "env": "prod"})
    stored.add_games([("m-a", "m-c", "tie")] * 2, at=BASE_TIME + day, tags={"team": "y"})
    await stored.insert(clean_pg)

    everything = await get_board(client, reader)
    assert everything["n"] == 9
    assert everything["filters"] == {
        "since": None,
        "until": None,
        "tags": [],
        "baseline": None,
        "origin": "traffic",
    }
    window = await get_board(
        client, reader, since=BASE_TIME.isoformat(), until=(BASE_TIME + day).isoformat()
    )
    assert window["n"] == 3
    assert by_model(window)["m-a"]["losses"] == 3
    tagged = await get_board(client, reader, tag=["team:x", "env:prod"])
    assert tagged["n"] == 3
    assert tagged["filters"]["tags"] == ["env:prod", "team:x"]
    naive = await get_board(client, reader, since="2026-01-11T00:00:00")
    assert naive["n"] == 2
    assert naive["filters"]["since"].startswith("2026-01-11T00:00:00")
    nothing = await get_board(client, reader, tag="team:z")
    assert (nothing["n"], nothing["models"]) == (0, [])


async def test_bad_filters_are_problems_and_reading_needs_a_key(
    client: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    # NUL bytes would reach the database and a year-1 time with a zone overflows UTC: 422s.
    for params in (
        {"since": "2026-01-02", "until": "2026-01-01"},
        {"tag": "no-colon"},
        {"since": "yesterday"},
        {"baseline": ""},
        {"baseline": "a\x00b"},
        {"tag": "team:\x00"},
        {"since": "0001-01-01T00:00:00+14:00"},
    ):
        response = await client.get("/v1/leaderboard", headers=reader, params=params)
        assert response.status_code == 422, params
        assert response.headers["content-type"].startswith("application/problem+json")
    assert (await client.get("/v1/leaderboard")).status_code == 401


# Cache


async def test_cache_serves_until_a_new_comparison_arrives_for_those_filters(
    client: httpx2.AsyncClient, reader: dict[str, str], clean_pg: str
) -> None:
    stored = StoredComparisons()
    stored.add_games(
        simulate_games({"m-a": 0.3, "m-b": 0.0, "m-c": -0.3}, 60, seed=4), tags={"team": "x"}
    )
    await stored.insert(clean_pg)

    first = await get_board(client, reader)
    tagged = await get_board(client, reader, tag="team:x")
    assert await get_board(client, reader) == first  # same computed_at: not recomputed

    newer = StoredComparisons()
    newer.add("m-a", "m-c", "A", at=BASE_TIME + timedelta(hours=1), tags={"team": "y"})
    await newer.insert(clean_pg)
    second = await get_board(client, reader)
    assert second["computed_at"] > first["computed_at"]
    assert second["n"] == first["n"] + 1
    # The new comparison is not one of team x's, so their leaderboard still stands.
    assert await get_board(client, reader, tag="team:x") == tagged


async def test_simultaneous_cold_requests_fit_once_off_the_event_loop(
    client: httpx2.AsyncClient,
    reader: dict[str, str],
    clean_pg: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stored = StoredComparisons()
    stored.add_games(simulate_games({"m-a": 0.3, "m-b": 0.0}, 40, seed=5))
    await stored.insert(clean_pg)
    threads: list[int] = []
    fit = service.compute_leaderboard

    def counting_fit(*args: Any) -> Any:
        threads.append(threading.get_ident())
        return fit(*args)

    monkeypatch.setattr(service, "compute_leaderboard", counting_fit)
    boards = await asyncio.gather(*(get_board(client, reader) for _ in range(3)))
    assert boards[0] == boards[1] == boards[2]
    assert len(threads) == 1
    assert threads[0] != threading.get_ident()


# PostgreSQL and SQLite


async def test_postgresql_and_sqlite_give_the_same_leaderboard(
    clean_pg: str, tmp_path: Path
) -> None:
    stored = StoredComparisons()
    stored.add_games(
        simulate_games({"m-a": 0.6, "m-b": 0.1, "base": 0.0, "m-c": -0.4}, 300, seed=6),
        tags={"team": "x"},
    )
    rng = np.random.default_rng(6)
    for k in range(40):
        stored.add("m-a", "base", ["A", "B", "tie"][k % 3], len_a=int(rng.integers(100, 900)))
    stored.add_games([("solo-1", "solo-2", "B")], at=BASE_TIME - timedelta(days=2))
    sqlite_url = f"sqlite+aiosqlite:///{tmp_path}/leaderboard.db"
    await asyncio.to_thread(upgrade, sqlite_url)
    query = service.LeaderboardQuery(
        LeaderboardFilters(since=BASE_TIME - timedelta(days=5)), baseline="base"
    )
    answers = []
    for url in (clean_pg, sqlite_url):
        await stored.insert(url)
        engine = create_engine(url)
        board = await service.get_leaderboard(
            create_sessionmaker(engine), service.LeaderboardCache(), query
        )
        await engine.dispose()
        answers.append(board.model_dump(mode="json", exclude={"computed_at"}))
    assert answers[0] == answers[1]
    assert len(answers[0]["models"]) == 6
