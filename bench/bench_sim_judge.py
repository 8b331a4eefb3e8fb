"""Capacity of `fairpair sim-judge`: answered requests per second at a given concurrency.

Run: .venv/bin/python bench/bench_sim_judge.py [--requests 4000] [--concurrency 64]
Starts `fairpair sim-judge` (latency 0) on a free loopback port as its own process and sends
pairwise chat requests rendered by the real prompt renderer over one httpx2 pool.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import time
from pathlib import Path

import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.judging.anonymize import default_anonymizer
from app.judging.prompts import PromptRenderer
from app.judging.types import DEFAULT_LABEL_POOL
from tests.support.processes import FAIRPAIR, free_port, wait_until_up


def chat_bodies(count: int) -> list[dict[str, object]]:
    renderer = PromptRenderer({}, DEFAULT_LABEL_POOL, default_anonymizer())
    rng = random.Random(0)
    bodies = []
    for i in range(count):
        rendered = renderer.render_pair(f"question {i}", f"answer {i}", f"other {i}", rng=rng)
        messages = [
            {"role": "system", "content": rendered.system},
            {"role": "user", "content": rendered.user},
        ]
        bodies.append({"model": "sim", "messages": messages})
    return bodies


async def hammer(url: str, bodies: list[dict[str, object]], concurrency: int) -> float:
    limits = httpx2.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx2.AsyncClient(limits=limits, timeout=30) as client:
        queue = iter(bodies)

        async def worker() -> None:
            for body in queue:
                response = await client.post(url, json=body)
                response.raise_for_status()

        started = time.perf_counter()
        await asyncio.gather(*(worker() for _ in range(concurrency)))
        return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=4000)
    parser.add_argument("--concurrency", type=int, default=64)
    args = parser.parse_args()
    port = free_port()
    server = subprocess.Popen(
        [FAIRPAIR, "sim-judge", "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_up(f"http://127.0.0.1:{port}/v1/models")
        bodies = chat_bodies(args.requests)
        elapsed = asyncio.run(
            hammer(f"http://127.0.0.1:{port}/v1/chat/completions", bodies, args.concurrency)
        )
        print(
            f"sim-judge: {args.requests} requests at concurrency {args.concurrency} "
            f"in {elapsed:.2f} s = {args.requests / elapsed:.0f} requests/s"
        )
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
