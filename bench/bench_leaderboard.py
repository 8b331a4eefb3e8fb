"""Benchmark: `GET /v1/leaderboard` over 5,000 comparisons of 20 models on a fresh PostgreSQL.

    .venv/bin/python bench/bench_leaderboard.py [--comparisons 5000] [--models 20] [--runs 5]
        [--judges 3] [--labelled 20000]

Creates a database (FAIRPAIR_BENCH_POSTGRES, default postgresql://root@127.0.0.1:5432), migrates
it, loads comparisons between random pairs of models under Bradley-Terry strengths (10% ties,
random lengths) with COPY, runs VACUUM ANALYZE, then times requests through the app in process
(auth off, baseline model-00 so the length-controlled win rates are fitted too):
- cold: the first request, and each request after one new comparison was stored (a full fit:
  Bradley-Terry, 200 bootstrap rounds, 19 length-controlled GLMs);
- warm: repeated requests with no new comparison (served from the cache).
Prints p50 and max of each, then drops the database.

`--judges K` stores each comparison's per-judge results (`judge_results`, K voters, the verdict
their majority), which leave-one-judge-out refits; `--labelled N` adds a queue label to N random
comparisons, so that the anchored win rates and ratings (PPI++) are computed too. Rows are
generated and COPied in chunks, so millions fit in memory.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import asyncpg
import httpx2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config import Settings
from app.main import create_app
from app.schema import upgrade
from tests.support.live import LiveApp
from tests.support.provision import rerun_unless_postgres_answers

SERVER = os.environ.get("FAIRPAIR_BENCH_POSTGRES", "postgresql://root@127.0.0.1:5432")
COLUMNS = [
    "id",
    "created_at",
    "completed_at",
    "deadline_at",
    "status",
    "api_key_id",
    "request_hash",
    "prompt",
    "response_a",
    "response_b",
    "len_a",
    "len_b",
    "placebo",
    "model_a",
    "model_b",
    "protocol",
    "protocol_params",
    "planned_rounds",
    "self_preference",
    "timeout_s",
    "winner",
    "panel",
    "self_preference_risk",
    "simulated",
    "judge_results",
]
LABEL_COLUMNS = ["comparison_id", "labeler", "winner", "from_queue", "created_at", "updated_at"]
CHUNK = 200_000


async def admin(sql: str) -> None:
    """Run one statement on the server's maintenance database."""
    connection = await asyncpg.connect(SERVER + "/postgres")
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


def comparison_row(
    at: datetime,
    model_a: str,
    model_b: str,
    winner: str,
    len_a: int,
    len_b: int,
    judge_results: str | None = None,
) -> tuple[object, ...]:
    """One complete comparison as the service stores it."""
    return (
        str(uuid.uuid4()),
        at,
        at,
        at,
        "complete",
        "",
        "0" * 64,
        "A question?",
        "a",
        "b",
        len_a,
        len_b,
        False,
        model_a,
        model_b,
        "swap",
        json.dumps({"kind": "swap"}),
        2,
        "exclude",
        120.0,
        winner,
        json.dumps({"judges": [], "excluded": []}),
        False,
        True,
        judge_results,
    )


def comparisons(
    count: int, n_models: int, rng: np.random.Generator, judges: int, start: int = 0, end: int = 0
) -> list[tuple[object, ...]]:
    """Rows start..end of `count` random pairs under Bradley-Terry strengths with 10% ties,
    spread over 20 days; with `judges`, each judge votes on its own and the verdict is theirs."""
    names = [f"model-{k:02d}" for k in range(n_models)]
    strength = np.random.default_rng(0).normal(0.0, 1.0, n_models)
    now = datetime.now(UTC)
    rows = []
    for k in range(start, end or count):
        i, j = (int(m) for m in rng.choice(n_models, size=2, replace=False))
        p_a = 1 / (1 + np.exp(strength[j] - strength[i]))
        votes = [
            "tie" if rng.random() < 0.1 else "A" if rng.random() < p_a else "B"
            for _ in range(max(judges, 1))
        ]
        a, b = votes.count("A"), votes.count("B")
        winner = votes[0] if judges == 0 else "A" if a > b else "B" if b > a else "tie"
        results = (
            json.dumps({f"judge-{n}": {"winner": v} for n, v in enumerate(votes)})
            if judges
            else None
        )
        at = now - timedelta(seconds=20 * 86400 * (1 - k / count))
        rows.append(
            comparison_row(
                at,
                names[i],
                names[j],
                winner,
                int(rng.integers(50, 3000)),
                int(rng.integers(50, 3000)),
                results,
            )
        )
    return rows


async def load(url: str, count: int, n_models: int, judges: int = 0, labelled: int = 0) -> None:
    """COPY the comparisons (and labels) in, in chunks, then VACUUM ANALYZE."""
    connection = await asyncpg.connect(url)
    rng = np.random.default_rng(0)
    try:
        ids: list[object] = []
        for start in range(0, count, CHUNK):
            rows = comparisons(count, n_models, rng, judges, start, min(count, start + CHUNK))
            await connection.copy_records_to_table("comparisons", records=rows, columns=COLUMNS)
            ids += [row[0] for row in rows]
        chosen = rng.choice(len(ids), size=min(labelled, len(ids)), replace=False)
        now = datetime.now(UTC)
        labels = [
            (ids[int(k)], "labeler-1", str(rng.choice(["A", "B", "tie"])), True, now, now)
            for k in chosen
        ]
        if labels:
            await connection.copy_records_to_table("labels", records=labels, columns=LABEL_COLUMNS)
        await connection.execute("VACUUM ANALYZE comparisons")
        await connection.execute("VACUUM ANALYZE labels")
    finally:
        await connection.close()


async def add_one(url: str) -> None:
    """Store one more comparison, which invalidates the cached leaderboard."""
    connection = await asyncpg.connect(url)
    try:
        row = comparison_row(datetime.now(UTC), "model-00", "model-01", "A", 800, 700)
        await connection.copy_records_to_table("comparisons", records=[row], columns=COLUMNS)
    finally:
        await connection.close()


async def timed_get(client: httpx2.AsyncClient) -> tuple[float, str]:
    """Seconds for one leaderboard request, and its computed_at."""
    started = time.perf_counter()
    response = await client.get("/v1/leaderboard", params={"baseline": "model-00"})
    elapsed = time.perf_counter() - started
    response.raise_for_status()
    return elapsed, str(response.json()["computed_at"])


def summary(label: str, timings: list[float]) -> str:
    """p50 and max of a list of timings."""
    return (
        f"{label}: p50 {statistics.median(timings):.3f} s, max {max(timings):.3f} s "
        f"over {len(timings)} requests"
    )


async def measure(url: str, sa_url: str, runs: int) -> None:
    """Time cold and warm requests through the app in process."""
    settings = Settings(
        database_url=sa_url, auth="off", secret_key="bench-secret", log_level="warning"
    )
    app = create_app(settings)
    async with LiveApp(app) as live:
        transport = httpx2.ASGITransport(app=live)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", timeout=120
        ) as client:
            cold, warm, stamps = [], [], set()
            for _ in range(runs):
                elapsed, stamp = await timed_get(client)
                cold.append(elapsed)
                stamps.add(stamp)
                for _ in range(3):
                    elapsed, again = await timed_get(client)
                    warm.append(elapsed)
                    assert again == stamp, "a warm request recomputed"
                await add_one(url)
            assert len(stamps) == runs, "a cold request was served from the cache"
            board = (await client.get("/v1/leaderboard", params={"baseline": "model-00"})).json()
    anchored, fragile = board["anchored_ratings"] or {}, board["fragility"] or {}
    judges_out = fragile.get("leave_one_judge_out") or {}
    print(
        f"fitted {board['n']:,} (sampled {board['sampled']}); anchored ratings over "
        f"{anchored.get('n_labelled')} labelled (reason {anchored.get('reason')}); "
        f"leave-one-judge-out over {len(judges_out.get('judges', []))} judges, "
        f"min τ {judges_out.get('min_kendall_tau')}"
    )
    print(summary("cold (fit in the request)", cold))
    print(summary("warm (from cache)", warm))


async def main() -> None:
    """Create, load, time, drop."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--comparisons", type=int, default=5_000)
    parser.add_argument("--models", type=int, default=20)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--judges", type=int, default=0, help="per-judge results, K voters")
    parser.add_argument("--labelled", type=int, default=0, help="comparisons with a queue label")
    args = parser.parse_args()
    name = f"fairpair_bench_{uuid.uuid4().hex[:8]}"
    await admin(f'CREATE DATABASE "{name}"')
    url = f"{SERVER}/{name}"
    sa_url = url.replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        await asyncio.to_thread(upgrade, sa_url)
        started = time.perf_counter()
        await load(url, args.comparisons, args.models, args.judges, args.labelled)
        print(
            f"{args.comparisons:,} comparisons, {args.models} models, {args.judges} judges, "
            f"{args.labelled:,} labelled, 200 bootstrap rounds, baseline model-00 ({name}); "
            f"loaded in {time.perf_counter() - started:.0f} s"
        )
        await measure(url, sa_url, args.runs)
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_BENCH_POSTGRES")
    asyncio.run(main())
