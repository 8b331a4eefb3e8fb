"""Benchmark: what an item of an experiment pays to ask whether its experiment is still running
(`ledger.experiments.stopped`), reading the whole sequence against carrying it on
(`RunningSequences`), at 1,000 / 5,000 / 10,000 decided comparisons, on a fresh PostgreSQL.

    .venv/bin/python bench/bench_experiment_state.py [--sizes 1000 5000 10000] [--runs 20]

Per size: a running experiment (wins and losses alternating, margin 0: it never decides) whose
comparisons are COPied in with their experiment tag; then `runs` times: one more decided
comparison is stored, and `stopped()` is timed once reading everything (as before) and once
with this process's running sequence (warm: primed by an earlier call). Prints the p50 and max
of each, then drops the database.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.db import create_engine, create_sessionmaker
from app.ledger import experiments
from app.ledger.experiments import EXPERIMENT_TAG
from app.schema import upgrade
from bench.bench_leaderboard import COLUMNS, SERVER, admin, comparison_row
from tests.support.provision import rerun_unless_postgres_answers


async def store(url: str, name: str, count: int, start: datetime) -> None:
    """`count` decided comparisons of the experiment, candidate in slot A, one second apart."""
    rows = [
        comparison_row(start + timedelta(seconds=k), "cand", "base", "AB"[k % 2], 100, 100)
        for k in range(count)
    ]
    connection = await asyncpg.connect(url)
    try:
        await connection.copy_records_to_table("comparisons", records=rows, columns=COLUMNS)
        await connection.copy_records_to_table(
            "comparison_tags",
            records=[(row[0], EXPERIMENT_TAG, name) for row in rows],
            columns=["comparison_id", "key", "value"],
        )
    finally:
        await connection.close()


async def size_run(url: str, sa_url: str, size: int, runs: int) -> None:
    name = f"exp-{size}"
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(
            "INSERT INTO experiments (id, name, tag_value, created_at, api_key_id, baseline, "
            "candidate, protocol, alpha, margin, seed, status) VALUES ($1, $2, $2, now(), '', "
            "'base', 'cand', $3, 0.05, 0.0, 0, 'running')",
            str(uuid.uuid4()),
            name,
            json.dumps({"kind": "swap"}),
        )
    finally:
        await connection.close()
    start = datetime.now(UTC) - timedelta(days=1)
    await store(url, name, size, start)
    engine = create_engine(sa_url)
    maker = create_sessionmaker(engine)
    sequences = experiments.RunningSequences()
    full, running = [], []
    try:
        async with maker() as session:
            assert not await experiments.stopped(session, name, sequences)  # primes the state
        for k in range(runs):
            await store(url, name, 1, start + timedelta(seconds=size + k))
            for timings, carried in ((full, None), (running, sequences)):
                async with maker() as session:
                    began = time.perf_counter()
                    assert not await experiments.stopped(session, name, carried)
                    timings.append(time.perf_counter() - began)
    finally:
        await engine.dispose()
    for label, timings in (("whole read", full), ("running sequence", running)):
        print(
            f"{size:>6,} outcomes, {label}: p50 {1000 * statistics.median(timings):.1f} ms, "
            f"max {1000 * max(timings):.1f} ms over {len(timings)}"
        )


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 5_000, 10_000])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    name = f"fairpair_bench_{uuid.uuid4().hex[:8]}"
    await admin(f'CREATE DATABASE "{name}"')
    url = f"{SERVER}/{name}"
    sa_url = url.replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        await asyncio.to_thread(upgrade, sa_url)
        for size in args.sizes:
            await size_run(url, sa_url, size, args.runs)
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_BENCH_POSTGRES")
    asyncio.run(main())
