"""The batch runner's running sequence (`experiments.RunningSequences`): carried on from item to
item, it gives exactly the decision path a full read in completion order gives, also when a
comparison commits behind the mark, on PostgreSQL and SQLite."""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest
from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncSession

from app import sequential
from app.db import create_engine, create_sessionmaker
from app.ledger import experiments
from app.ledger.experiments import EXPERIMENT_TAG, Experiment, ExperimentStatus
from app.ledger.models import Comparison, ComparisonTag
from app.schema import upgrade
from tests.support.rows import comparison_row

START = datetime(2026, 11, 1, tzinfo=UTC)


def experiment_row(name: str) -> dict[str, object]:
    return {
        "id": str(uuid.uuid4()), "name": name, "tag_value": name, "baseline": "base",
        "candidate": "cand", "protocol": {"kind": "swap"}, "alpha": 0.05, "margin": 0.0,
        "seed": 0, "status": ExperimentStatus.RUNNING,
    }  # fmt: skip


async def add(session: AsyncSession, name: str, winners: list[str], at: list[datetime]) -> None:
    """Decided comparisons of the experiment (candidate in slot A on even ones), committed."""
    rows, tags = [], []
    for k, (winner, moment) in enumerate(zip(winners, at, strict=True)):
        comparison_id = str(uuid.uuid4())
        a, b = ("cand", "base") if k % 2 == 0 else ("base", "cand")
        rows.append(comparison_row(comparison_id, moment, model_a=a, model_b=b, winner=winner))
        tags.append({"comparison_id": comparison_id, "key": EXPERIMENT_TAG, "value": name})
    await session.execute(insert(Comparison), rows)
    await session.execute(insert(ComparisonTag), tags)
    await session.commit()


async def check_equal_to_a_full_read(url: str) -> None:
    engine = create_engine(url)
    maker = create_sessionmaker(engine)
    rng = np.random.default_rng(0)
    winners = [str(w) for w in rng.choice(["A", "B", "tie"], size=400, p=[0.5, 0.3, 0.2])]
    sequences = experiments.RunningSequences()
    try:
        async with maker() as session:
            await session.execute(insert(Experiment), [experiment_row("running")])
            await session.commit()
            experiment = await experiments.find(session, "running")
            assert experiment is not None
            moments = [START + timedelta(seconds=10 * k) for k in range(400)]
            checked = 0
            for chunk in range(0, 300, 30):
                part = slice(chunk, chunk + 30)
                await add(session, "running", winners[part], moments[part])
                if chunk == 150:
                    # Completed before the last mark but committed only now (another worker).
                    await add(session, "running", ["B"] * 5, [START + timedelta(seconds=5)] * 5)
                path = await sequences.path(session, experiment)
                full = sequential.decision_path(
                    await experiments.outcomes(session, experiment), 0.05, 0.0
                )
                assert path == full
                checked += 1
            assert checked == 10
            # Outcomes with the same completion time are ordered by id, as the full read.
            await add(session, "running", winners[300:320], [moments[299]] * 20)
            assert await sequences.path(session, experiment) == sequential.decision_path(
                await experiments.outcomes(session, experiment), 0.05, 0.0
            )
    finally:
        await engine.dispose()


async def test_the_running_sequence_equals_a_full_read_on_postgresql(clean_pg: str) -> None:
    await check_equal_to_a_full_read(clean_pg)


async def test_the_running_sequence_equals_a_full_read_on_sqlite(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/running.db"
    await asyncio.to_thread(upgrade, url)
    await check_equal_to_a_full_read(url)


async def test_concurrent_items_of_one_process_take_each_outcome_once(clean_pg: str) -> None:
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    sequences = experiments.RunningSequences()
    try:
        async with maker() as session:
            await session.execute(insert(Experiment), [experiment_row("twice")])
            await session.commit()
            moments = [START + timedelta(seconds=k) for k in range(10)]
            await add(session, "twice", ["A"] * 10, moments)

        async def read() -> sequential.DecisionPath:
            async with maker() as own:
                experiment = await experiments.find(own, "twice")
                assert experiment is not None
                return await sequences.path(own, experiment)

        paths = await asyncio.gather(*(read() for _ in range(8)))
        # Winner A: the candidate wins where it is in slot A (even ones), loses elsewhere.
        candidate = [1.0 if k % 2 == 0 else 0.0 for k in range(10)]
        expected = sequential.decision_path(candidate, 0.05, 0.0)
        assert all(path == expected for path in paths)
    finally:
        await engine.dispose()


@pytest.mark.parametrize("outcomes", [[], [1.0, 0.0, 0.5] * 30])
def test_the_decider_equals_decision_path(outcomes: list[float]) -> None:
    decider = sequential.Decider(0.05, 0.1)
    for x in outcomes:
        decider.update(x)
    assert decider.path() == sequential.decision_path(outcomes, 0.05, 0.1)
