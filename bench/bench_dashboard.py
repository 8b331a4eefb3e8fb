"""Benchmark: the dashboard overview over 100,000 stored judge calls, warm.

    .venv/bin/python bench/bench_dashboard.py [--calls 100000] [--runs 10]

Creates a database (FAIRPAIR_BENCH_POSTGRES, default postgresql://root@127.0.0.1:5432), migrates
it, loads the bias-report benchmark's synthetic traffic (`bench_report.load`: 5 judges, swap
pairs and escalations, placebo, failures, tags, over 29 days) with COPY, then requests
`GET /dashboard` through the app in process (auth off). The first request is cold: it computes
the report, starts vl-convert's JavaScript runtime and draws the charts. Warm requests check the
watermark (calls, score calls, labels) and reuse the page's view and SVGs. "Recomputed" requests
empty the page cache first, as a newly stored call would: the report runs its SQL again, the
converter is warm. Also times a filtered view (one judge, one tag, 7 days). Prints p50 and max.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_report import SERVER, admin, load

from app.config import Settings
from app.main import create_app
from app.schema import upgrade
from tests.support.live import LiveApp
from tests.support.provision import rerun_unless_postgres_answers


async def timed(client: httpx2.AsyncClient, path: str) -> float:
    """Seconds for one page, which must render with its charts."""
    started = time.perf_counter()
    answer = await client.get(path)
    elapsed = time.perf_counter() - started
    assert answer.status_code == 200, answer.text[:500]
    assert "data:image/svg+xml;base64," in answer.text
    return elapsed


async def measure(url: str, runs: int) -> None:
    """Cold and warm timings of the overview and a filtered view."""
    settings = Settings(
        database_url=url,
        auth="off",
        secret_key="bench-secret",
        sweep_interval_s=3600,
        log_level="warning",
    )
    async with LiveApp(create_app(settings)) as live:
        transport = httpx2.ASGITransport(app=live)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://bench", timeout=120
        ) as client:
            for label, path in (
                ("overview", "/dashboard"),
                ("judge + tag + 7d", "/dashboard?judge=judge-gpt&tag=team:t3&window=7d"),
            ):
                cold = await timed(client, path)
                warm = [await timed(client, path) for _ in range(runs)]
                recomputed = []
                for _ in range(max(1, runs // 3)):
                    live.app.state.dashboard_pages = None  # type: ignore[attr-defined]
                    recomputed.append(await timed(client, path))
                print(
                    f"{label}: cold {cold:.3f} s; warm p50 {statistics.median(warm):.3f} s, "
                    f"max {max(warm):.3f} s over {runs} runs; recomputed p50 "
                    f"{statistics.median(recomputed):.3f} s, max {max(recomputed):.3f} s "
                    f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
                )


async def main() -> None:
    """Create, load, time, drop."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=10)
    args = parser.parse_args()
    name = f"fairpair_bench_{uuid.uuid4().hex[:8]}"
    await admin(f'CREATE DATABASE "{name}"')
    url = f"{SERVER}/{name}"
    sa_url = url.replace("postgresql://", "postgresql+asyncpg://", 1)
    try:
        await asyncio.to_thread(upgrade, sa_url)
        started = time.perf_counter()
        await load(url, args.calls)
        print(f"loaded {args.calls:,} calls in {time.perf_counter() - started:.1f} s ({name})")
        await measure(sa_url, args.runs)
    finally:
        await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_BENCH_POSTGRES")
    asyncio.run(main())
