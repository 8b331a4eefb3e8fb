"""The judge-call cache: a seeded swap comparison the judge answers (two misses) against the same
comparison asked again (two hits), through the API in process, against `fairpair sim-judge` over
real HTTP.

Run: PYTHONPATH=$PWD .venv/bin/python bench/bench_call_cache.py [--comparisons 100]
     [--latency-ms 400]
Starts `fairpair sim-judge --latency-ms L` as its own process and the API (embedded SQLite in a
temporary directory, `FAIRPAIR_DRAW_SEED` set, one judge with `cache = true` and GPT-4o's prices)
in this one. Asks N distinct comparisons once, then the same N again, one at a time; prints per
pass the wall time per comparison (median, p90), this process's CPU per comparison, the chat
requests the sim-judge received and the summed `cost_usd` of the answers.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.config import Settings
from app.main import create_app
from tests.support.live import LiveApp
from tests.support.processes import FAIRPAIR, free_port, wait_until_up

JUDGES = """
[[judges]]
name = "cached-gpt"
provider = "openai"
model = "cached-gpt"
base_url = "{url}"
api_key = "sk-local"
cache = true
price_in_per_mtok = 2.5
price_out_per_mtok = 10.0
"""


def body(i: int) -> dict[str, Any]:
    return {
        "prompt": f"Question {i}: which answer is better?",
        "response_a": f"A careful answer to question {i}.\n[sim q=1]",
        "response_b": f"A short answer to question {i}.\n[sim q=-1]",
        "protocol": {"kind": "swap"},
        "judges": ["cached-gpt"],
    }


def chat_requests(root: str) -> int:
    stats = httpx2.get(f"{root}/stats", timeout=5).json()["chat_completions"]
    return int(sum(stats["answered"].values()))


async def one_pass(client: httpx2.AsyncClient, n: int, root: str) -> dict[str, Any]:
    walls: list[float] = []
    cost = 0.0
    cached = 0
    before = chat_requests(root)
    cpu = time.process_time()
    for i in range(n):
        started = time.perf_counter()
        response = await client.post("/v1/compare", json=body(i))
        walls.append(time.perf_counter() - started)
        response.raise_for_status()
        for call in response.json()["judges"][0]["calls"]:
            cost += call["cost_usd"] or 0.0
            cached += call["cached"]
    cpu = time.process_time() - cpu
    walls.sort()
    return {
        "median_ms": statistics.median(walls) * 1000,
        "p90_ms": walls[int(0.9 * (n - 1))] * 1000,
        "cpu_ms": cpu / n * 1000,
        "requests": chat_requests(root) - before,
        "cached_calls": cached,
        "cost_usd": cost,
    }


async def run(n: int, root: str, directory: Path) -> None:
    (directory / "judges.toml").write_text(JUDGES.format(url=f"{root}/v1"))
    settings = Settings(
        database_url=f"sqlite+aiosqlite:///{directory / 'fairpair.db'}",
        judges_file=directory / "judges.toml",
        auth="off",
        draw_seed=1,
    )
    async with LiveApp(create_app(settings)) as live:
        transport = httpx2.ASGITransport(app=live)
        async with httpx2.AsyncClient(
            transport=transport, base_url="http://127.0.0.1", timeout=120
        ) as client:
            for name in ("miss", "hit"):
                figures = await one_pass(client, n, root)
                print(
                    f"{name}: {n} comparisons, wall per comparison median "
                    f"{figures['median_ms']:.1f} ms, p90 {figures['p90_ms']:.1f} ms; "
                    f"CPU {figures['cpu_ms']:.1f} ms per comparison; "
                    f"{figures['requests']} judge requests; "
                    f"{figures['cached_calls']} cached calls; "
                    f"cost ${figures['cost_usd']:.4f}"
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--comparisons", type=int, default=100)
    parser.add_argument("--latency-ms", type=float, default=400.0)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [FAIRPAIR, "sim-judge", "--port", str(port), "--latency-ms", str(args.latency_ms)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    root = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{root}/v1/models")
        with tempfile.TemporaryDirectory() as directory:
            asyncio.run(run(args.comparisons, root, Path(directory)))
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
