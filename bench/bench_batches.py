"""Batch throughput: items per second with 1, 2 and 4 `fairpair worker` processes.

Run: .venv/bin/python bench/bench_batches.py [--items 1000] [--workers 1 2 4] [--concurrency 16]
Each run gets a fresh PostgreSQL database (migrated), its own `redis-server` without persistence,
`fairpair sim-judge --latency-ms 20` and `fairpair serve` as processes, then the workers. The clock
starts when every worker reads the stream and the batch is submitted (the submission is timed), and
stops when `GET /v1/batches/{id}` says completed. Everything shares the cores with the database.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
import tempfile
import time
from pathlib import Path

from redis import Redis
from redis.exceptions import RedisError

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.batches.stack import api, base_env, sim_judge
from tests.batches.support import call_stats, poll_batch, redis_server
from tests.support.databases import (
    create_database,
    create_migrated_template,
    drop_database,
    sqlalchemy_url,
)
from tests.support.provision import rerun_unless_postgres_answers


def wait_for_consumers(port: int, count: int, timeout_s: float = 180) -> None:
    """Until `count` workers read the stream (importing the app takes seconds under load)."""
    client = Redis(port=port)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(RedisError):
            # A worker's listen connection sits in XREADGROUP (consumers show only once they
            # read a message, so XINFO CONSUMERS cannot tell).
            reading = [c for c in client.client_list() if c.get("cmd") == "xreadgroup"]
            if len(reading) >= count:
                client.close()
                return
        time.sleep(0.5)
    raise TimeoutError(f"{count} workers did not start")


def run_once(template: str, items: int, workers: int, concurrency: int) -> tuple[float, int]:
    """Seconds to complete one batch, and the calls stored for it."""
    name = asyncio.run(create_database(template=template))
    url = sqlalchemy_url(name)
    try:
        with (
            redis_server() as redis,
            sim_judge(latency_ms=20) as sim_port,
            tempfile.TemporaryDirectory() as directory,
            api(Path(directory), sim_port, base_env(url, redis.url)) as stack,
        ):
            for _ in range(workers):
                stack.start_worker(concurrency)
            wait_for_consumers(redis.port, workers)
            started = time.perf_counter()
            batch_id = stack.submit(items)
            batch = poll_batch(
                stack.base, batch_id, lambda b: b["status"] == "completed", timeout_s=1800
            )
            elapsed = time.perf_counter() - started
            assert batch["counts"]["completed"] == items, batch
        calls, _distinct = asyncio.run(call_stats(url, batch_id))
        return elapsed, calls
    finally:
        asyncio.run(drop_database(name))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--concurrency", type=int, default=16)
    args = parser.parse_args()
    template = asyncio.run(create_migrated_template())
    try:
        for workers in args.workers:
            elapsed, calls = run_once(template, args.items, workers, args.concurrency)
            print(
                f"{workers} worker(s) x {args.concurrency}: {args.items} swap items "
                f"({calls} judge calls) in {elapsed:.1f} s = {args.items / elapsed:.1f} items/s"
            )
    finally:
        asyncio.run(drop_database(template))


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_TEST_POSTGRES")
    main()
