"""Seeded traffic for the dashboard: three judges, two days, label pairs, placebo, failures,
model outcomes for the leaderboard and scored sessions for the reviewer pages."""

from __future__ import annotations

import random
from datetime import timedelta
from typing import Any

from app.comparisons.protocols import Pick
from app.db import create_engine, create_sessionmaker
from tests.reports.builders import BASE_TIME, StoredData
from tests.scoring.builders import sim_sessions, store_sessions

MODELS = ("model-x", "model-y", "model-z")
# judge: (P(first) on the AB call, P(first) on the BA call, comparisons per day)
JUDGES = {"judge-a": (0.8, 0.6, 70), "judge-b": (0.5, 0.45, 60), "judge-c": (0.5, 0.5, 4)}
REVIEWERS = {"rev-harsh": -0.9, "rev-neutral": 0.0, "rev-generous": 0.9}


def pick(rng: random.Random, p_first: float) -> Pick:
    """A pick with some ties."""
    roll = rng.random()
    return "tie" if roll < 0.05 else "first" if roll < 0.05 + 0.95 * p_first else "second"


def traffic(seed: int = 0) -> StoredData:
    """Judge calls over two days; judge-a moves to version 2 on the second day."""
    rng, data = random.Random(seed), StoredData()
    for day in range(2):
        at = BASE_TIME - timedelta(days=1 - day)
        for judge, (p_ab, p_ba, count) in JUDGES.items():
            version = 2 if judge == "judge-a" and day == 1 else 1
            for k in range(count):
                cid = data.comparison(
                    at=at,
                    placebo=k % 10 == 0,
                    len_a=rng.randrange(100, 900),
                    len_b=rng.randrange(100, 900),
                )
                model_a, model_b = rng.sample(MODELS, 2)
                winner = rng.choice(["A", "B", "tie"] if model_a < model_b else ["A", "B", "B"])
                data.comparisons[-1].update(model_a=model_a, model_b=model_b, winner=winner)
                fields: dict[str, Any] = {
                    "judge": judge,
                    "version": version,
                    "at": at,
                    "label_pair": "P/Q" if k % 2 else "X/Y",
                    "first_slot_second_label": rng.random() < 0.5,
                }
                failed = k % 25 == 7
                data.swap(
                    None if failed else pick(rng, p_ab),
                    pick(rng, p_ba),
                    comparison_id=cid,
                    **fields,
                )
    # What the calls cost and how long they took (their own draws: the picks stay as they were);
    # judge-c has no prices, so no cost (never $0).
    usage = random.Random(seed + 1)
    for call in data.calls:
        call["latency_ms"] = round(usage.uniform(200.0, 2400.0), 1)
        priced = call["judge_name"] != "judge-c"
        call["cost_usd"] = round(usage.uniform(0.0002, 0.002), 6) if priced else None
    return data


async def seed(database_url: str) -> None:
    """Insert the judge traffic and the scored sessions."""
    await traffic().insert(database_url)
    engine = create_engine(database_url)
    try:
        sessions = sim_sessions(REVIEWERS, sessions=40, responses=4, seed=3, first_slot_bonus=0.3)
        await store_sessions(create_sessionmaker(engine), sessions)
    finally:
        await engine.dispose()
