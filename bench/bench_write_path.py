"""CPU of the request path's writes alone: what one swap comparison costs the API in the database.

    .venv/bin/python bench/bench_write_path.py [--comparisons 4000] [--concurrency 16]

On a fresh migrated PostgreSQL database, `--concurrency` tasks each write comparisons the way
`POST /v1/compare` does, through one `GroupCommit`: the job's row, its two calls (each through the
write path, which folds the report's rollups, once the row is in) and its final columns. No judge
and no HTTP: the figure is the API process's CPU for its writes (`time.process_time`, this process
only), per comparison, next to the PostgreSQL backends' (from /proc) and the transactions
committed.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import time
import uuid
from datetime import timedelta
from pathlib import Path

import asyncpg
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.comparisons.service import COMPARISONS
from app.db import create_engine, create_sessionmaker, utcnow
from app.jobs.kind import CallWriter
from app.jobs.lifecycle import write_final
from app.jobs.writes import GroupCommit, StagedCall, Work
from app.ledger.models import Comparison
from tests.support.databases import (
    SERVER_URL,
    create_migrated_template,
    drop_database,
    sqlalchemy_url,
)
from tests.support.provision import rerun_unless_postgres_answers
from tests.support.rows import call_row, comparison_row

TICKS = os.sysconf("SC_CLK_TCK")


async def one_comparison(writes: GroupCommit) -> None:
    """The writes of one swap comparison, in the order the request path makes them."""
    comparison_id = str(uuid.uuid4())
    now = utcnow()
    row = comparison_row(
        comparison_id, now, status="running", completed_at=None,
        deadline_at=now + timedelta(seconds=60), simulated=False, self_preference_risk=False,
    )  # fmt: skip

    # As `run_request` writes: the row beside the judges, the calls as they complete (waiting
    # for the row), the final columns last.
    reserved = asyncio.create_task(writes.commit(Work([(Comparison, [row])])))
    writer = CallWriter(COMPARISONS.sink, writes, reserved)
    await asyncio.gather(*(writer.store(StagedCall(call_row(comparison_id, r))) for r in (0, 1)))
    final = {"status": "complete", "winner": "A", "confidence": 0.9, "completed_at": utcnow()}
    assert await write_final(COMPARISONS.tables, comparison_id, final, writes)


async def backend_cpu(database: str) -> float:
    """CPU seconds of the PostgreSQL backends connected to `database`."""
    connection = await asyncpg.connect(SERVER_URL + "/postgres")
    try:
        rows = await connection.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1", database
        )
    finally:
        await connection.close()
    return sum(process_cpu(int(row["pid"])) for row in rows)


def process_cpu(pid: int) -> float:
    """User and system CPU seconds of a process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--comparisons", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    database = await create_migrated_template()
    engine = create_engine(sqlalchemy_url(database))
    commits = [0]

    @event.listens_for(engine.sync_engine, "commit")
    def _count(_connection: object) -> None:
        commits[0] += 1

    writes = GroupCommit(create_sessionmaker(engine))
    try:
        queue = iter(range(args.comparisons))

        async def worker() -> None:
            for _ in queue:
                await one_comparison(writes)

        await asyncio.gather(*(worker() for _ in range(args.concurrency)))  # warm-up pass
        queue = iter(range(args.comparisons))
        commits[0], pg_before = 0, await backend_cpu(database)
        cpu, wall = time.process_time(), time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
        pg = await backend_cpu(database) - pg_before
    finally:
        await writes.aclose()
        await engine.dispose()
        await drop_database(database)
    n = args.comparisons
    print(
        f"| {n} | {args.concurrency} | {n / wall:.0f} | {1000 * cpu / n:.3f} | "
        f"{1000 * pg / n:.3f} | {commits[0] / n:.2f} | {os.getloadavg()[0]:.2f} |"
    )


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_TEST_POSTGRES")
    print("| comparisons | concurrency | comparisons/s | API CPU ms/cmp | PostgreSQL CPU ms/cmp "
          "| commits/cmp | load |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    asyncio.run(main())
