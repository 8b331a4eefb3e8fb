"""Reviewer calibration end to end: sim reviewers with known offsets, through `POST /v1/score`,
and the coverage of the offsets' CIs over repeated seeds with the sim's scoring function."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.scoring import stats as ss
from app.scoring.calibration import CalibrationCache
from app.scoring.queries import ScoringFilters
from app.scoring.report import RubricRange, scoring_sections
from tests.scoring.builders import score_rows, sim_judges_toml, sim_sessions, store_sessions

TRUE_OFFSETS = {"rev-harsh": -1.0, "rev-neutral": 0.0, "rev-generous": 0.8}
CENTRED = {k: v - sum(TRUE_OFFSETS.values()) / 3 for k, v in TRUE_OFFSETS.items()}


def session_body(rng: random.Random, i: int) -> dict[str, Any]:
    """Five responses of moderate quality, so that the 1..5 scale rarely clips."""
    responses = [f"answer {i}-{k}\n[sim q={rng.uniform(-0.5, 0.5):.3f}]" for k in range(5)]
    return {"prompt": f"question {i}", "responses": responses}


async def test_sim_reviewers_through_the_api_are_classified_and_their_offsets_recovered(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    settings = settings_factory(sim_judges_toml(TRUE_OFFSETS), draw_seed=3)
    client: httpx2.AsyncClient = await live_factory(settings)
    rng = random.Random(1)
    bodies = [session_body(rng, i) for i in range(105)]
    answers = []
    for start in range(0, len(bodies), 8):
        batch = [client.post("/v1/score", headers=admin, json=b) for b in bodies[start : start + 8]]
        answers += [r.json() for r in await asyncio.gather(*batch)]
    assert {a["status"] for a in answers} == {"complete"}, [
        a for a in answers if a["status"] != "complete"
    ][:1]

    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as db:
        report = await scoring_sections(db, ScoringFilters(since=utcnow() - timedelta(hours=1)))
    await engine.dispose()
    reviewers = {r.reviewer: r for r in report.reviewers}
    assert {n: r.classification for n, r in reviewers.items()} == {
        "rev-harsh": "harsh",
        "rev-neutral": "neutral",
        "rev-generous": "generous",
    }
    for name, truth in CENTRED.items():
        assert reviewers[name].offset == pytest.approx(truth, abs=0.15)
        assert reviewers[name].tier == "high"

    # Answers use the last refit's offsets: calibrated = raw − offset, unclipped.
    last = answers[-1]
    offsets = {e["reviewer"]: e["calibration"]["offset"] for e in last["reviewers"]}
    assert {e["reviewer"]: e["calibration"]["classification"] for e in last["reviewers"]} == {
        "rev-harsh": "harsh",
        "rev-neutral": "neutral",
        "rev-generous": "generous",
    }
    for response in last["responses"]:
        for name, raw in response["raw"].items():
            assert response["calibrated"][name] == pytest.approx(raw - offsets[name])
    harsh_gap = [r["raw"]["rev-generous"] - r["raw"]["rev-harsh"] for r in last["responses"]]
    calibrated_gap = [
        r["calibrated"]["rev-generous"] - r["calibrated"]["rev-harsh"] for r in last["responses"]
    ]
    assert sum(calibrated_gap) / 5 < sum(harsh_gap) / 5 - 1
    refits = {a["calibration"]["computed_at"] for a in answers}
    assert 4 <= len(refits) <= 12, refits  # every 200 scores (15 a session), not each session


async def test_the_cache_refits_after_enough_new_scores_or_time(clean_pg: str) -> None:
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    await store_sessions(maker, sim_sessions(TRUE_OFFSETS, sessions=10, responses=4, seed=1))
    cache = CalibrationCache(refit_after_scores=50, refit_after=timedelta(hours=1))
    rubric = RubricRange("r-test", 1, 5)
    first = await cache.current(maker, rubric, None)
    assert first.reviewers["rev-harsh"].n == 40
    cache.note_scores("r-test", 49)
    assert await cache.current(maker, rubric, None) is first
    cache.note_scores("r-test", 1)
    second = await cache.current(maker, rubric, None)
    assert second.computed_at > first.computed_at
    cache.refit_after = timedelta(0)
    assert (await cache.current(maker, rubric, None)).computed_at > second.computed_at
    assert second.offset_of("nobody").reason == "insufficient_data"
    await engine.dispose()


def test_offset_cis_cover_the_centred_truth_over_repeated_seeds_on_a_1_to_10_rubric() -> None:
    # The sim's scoring function itself; a wide scale so that clipping does not bias the truth.
    covered, total, errors = 0, 0, []
    for seed in range(60):
        data = sim_sessions(TRUE_OFFSETS, sessions=25, responses=4, seed=seed, low=1, high=10)
        entries = ss.reviewer_calibration(score_rows(data), 1, 10)["reviewers"]
        for entry in entries:
            low, high = entry["ci95"] or (0.0, 0.0)
            truth = CENTRED[entry["reviewer"]]
            covered += low <= truth <= high
            total += 1
            errors.append(abs((entry["offset"] or 0.0) - truth))
    assert 0.90 <= covered / total <= 0.99
    assert sum(errors) / total < 0.06
