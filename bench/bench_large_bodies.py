"""How long a large batch body holds the event loop, and what its check in a child costs.

    PYTHONPATH=$PWD python bench/bench_large_bodies.py

Prints: the value count of a 48 MB body of 24 million values; json.loads of it (what FastAPI's
parse held the loop for before the bound); json.loads + validation of the worst body the bound
lets through and of the fullest valid batch (what FastAPI still does on the loop); and the child
check of the 48 MB body, first call (forkserver start) and later ones, with the longest gap between
the loop's ticks meanwhile.
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from app.batches.schemas import BATCH_ITEMS_CAP, BatchCreate, batch_max_values
from app.jsonvalues import count_json_values
from app.middleware import inspect_body
from app.processes import ChildPool
from tests.security.test_large_bodies import full_score_item

JSON = {b"content-type": b"application/json"}
BOUND = batch_max_values(BATCH_ITEMS_CAP)


def timed(label: str, work: Any) -> Any:
    started = time.perf_counter()
    result = work()
    print(f"{label}: {time.perf_counter() - started:.2f} s")
    return result


def parse_and_validate(label: str, body: bytes) -> None:
    document = timed(f"{label}: json.loads", lambda: json.loads(body))
    started = time.perf_counter()
    try:
        BatchCreate.model_validate(document)
    except ValueError:
        pass
    print(f"{label}: validation: {time.perf_counter() - started:.2f} s")


async def longest_gap(stop: asyncio.Event) -> float:
    """The longest time between two ticks of the loop until `stop` is set."""
    gap, last = 0.0, time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.005)
        now = time.perf_counter()
        gap, last = max(gap, now - last), now
    return gap


async def child_checks(body: bytes) -> None:
    pool = ChildPool(2, timeout_s=120, preload=("app.middleware",))
    for call in ("first (starts the forkserver)", "second", "third"):
        stop = asyncio.Event()
        ticker = asyncio.create_task(longest_gap(stop))
        started = time.perf_counter()
        verdict = await pool.run(inspect_body, JSON, body, BOUND)
        took = time.perf_counter() - started
        stop.set()
        status = verdict.status if verdict else None
        print(f"child check, {call}: {took:.2f} s, {status}, longest loop gap {await ticker:.3f} s")
    pool.close()


def main() -> None:
    attack = b'{"items":[' + b",".join([b"1"] * 24_000_000) + b"]}"
    print(f"attack body: {len(attack) / 1e6:.0f} MB, 24,000,002 values; bound {BOUND}")
    timed("count_json_values (stops past the bound)", lambda: count_json_values(attack, BOUND))
    timed("json.loads of the attack body (the loop's hold before)", lambda: json.loads(attack))
    worst = b'{"items":[' + b",".join([b"1"] * (BOUND - 2)) + b"]}"
    parse_and_validate(f"worst passing body ({len(worst) / 1e6:.1f} MB)", worst)
    fullest = json.dumps({"items": [full_score_item(i) for i in range(BATCH_ITEMS_CAP)]}).encode()
    parse_and_validate(f"fullest valid batch ({len(fullest) / 1e6:.1f} MB)", fullest)
    asyncio.run(child_checks(attack))


if __name__ == "__main__":
    main()
