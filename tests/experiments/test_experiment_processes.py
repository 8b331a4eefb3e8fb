"""An item experiment as real processes (issue 41): a worker SIGKILLed mid-experiment loses no
item and repeats no call, and the experiment still stops: every item ends judged exactly once
(two calls, none twice) or cancelled by the stop, and the experiment counts exactly the judged
ones."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.batches.models import ItemStatus
from tests.batches.stack import api, base_env, sim_judge
from tests.batches.support import call_stats, item_rows, poll_batch, redis_server

ITEMS = 400
FINISH_TIMEOUT_S = 400
FAST_RECOVERY = {"batch_lease_s": 5, "batch_requeue_after_s": 3}
# Its waits are bounded by FINISH_TIMEOUT_S, so the watchdog's limit must be above them (a
# loaded CI machine took more than the default 300 s to finish 40 items).
pytestmark = [pytest.mark.slow, pytest.mark.time_limit(3 * FINISH_TIMEOUT_S)]


def experiment(name: str) -> dict[str, Any]:
    """A candidate a little better than the baseline: it decides after a few hundred
    comparisons, long after the kill, or runs out of items."""
    items = [
        {
            "prompt": f"question {i}",
            "baseline": f"old answer {i}\n[sim q=0]",
            "candidate": f"new answer {i}\n[sim q=0.4]",
        }
        for i in range(ITEMS)
    ]
    return {"name": name, "baseline": "v1", "candidate": "v2", "items": items}


def stopped(base: str, name: str, timeout_s: float) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while True:
        found: dict[str, Any] = httpx2.get(f"{base}/v1/experiments/{name}", timeout=30).json()
        if found["status"] != "running":
            return found
        assert time.monotonic() < deadline, found
        time.sleep(0.5)


def test_a_killed_worker_neither_loses_nor_repeats_an_experiment_item(
    own_pg: str, tmp_path: Path
) -> None:
    with redis_server() as redis, sim_judge() as sim_port:
        env = base_env(own_pg, redis.url, **FAST_RECOVERY)
        with api(tmp_path, sim_port, env) as stack:
            doomed = stack.start_worker(concurrency=8)
            stack.start_worker(concurrency=8)
            created = httpx2.post(f"{stack.base}/v1/experiments", json=experiment("e"), timeout=120)
            assert created.status_code == 201, created.text
            batch_id = created.json()["batch_id"]
            poll_batch(
                stack.base, batch_id, lambda b: b["counts"]["completed"] >= 40, FINISH_TIMEOUT_S
            )
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
            stack.start_worker(concurrency=8)
            found = stopped(stack.base, "e", FINISH_TIMEOUT_S)
            batch = poll_batch(
                stack.base,
                batch_id,
                lambda b: not (b["counts"]["queued"] + b["counts"]["running"]),
                FINISH_TIMEOUT_S,
            )
            final = httpx2.get(f"{stack.base}/v1/experiments/e", timeout=30).json()
    assert found["status"] in ("decided", "exhausted"), found
    rows = asyncio.run(item_rows(own_pg, batch_id))
    statuses = [row.status for row in rows]
    assert set(statuses) <= {ItemStatus.COMPLETED, ItemStatus.CANCELLED}, batch
    judged = statuses.count(ItemStatus.COMPLETED)
    assert {row.error_kind for row in rows if row.status == ItemStatus.CANCELLED} <= {
        "experiment-stopped"
    }
    assert asyncio.run(call_stats(own_pg, batch_id)) == (2 * judged, 2 * judged)
    assert (final["comparisons"], final["items_judged"]) == (judged, judged)
    assert max(row.attempts for row in rows) >= 2  # the killed worker's items ran again
