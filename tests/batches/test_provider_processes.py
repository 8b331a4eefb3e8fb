"""A provider-mode batch as real processes: `fairpair sim-judge` with its batch API, the API,
and `fairpair worker`s on a Redis of the test's own. A worker killed while it polls the
provider's job is followed by another that polls the same job: nothing is submitted twice."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.batches.stack import api, base_env, sim_judge
from tests.batches.support import call_stats, poll_batch, redis_server

ITEMS = 50
ROUNDS = {"provider_tick_s": 0.2, "provider_poll_min_s": 0.3, "provider_poll_max_s": 1}
pytestmark = pytest.mark.slow


def job_running(batch: dict[str, Any]) -> bool:
    return any(job["state"] == "running" for job in batch["provider_jobs"])


def finished(batch: dict[str, Any]) -> bool:
    counts = batch["counts"]
    return batch["status"] in ("completed", "failed") and not counts["running"] + counts["waiting"]


def test_a_worker_killed_while_polling_is_followed_without_resubmitting(
    own_pg: str, tmp_path: Path
) -> None:
    with redis_server() as redis, sim_judge(0, "--batch-delay", "6") as sim_port:
        env = base_env(own_pg, redis.url, **ROUNDS)
        with api(tmp_path, sim_port, env, judge_extra='batch_api = "on"') as stack:
            doomed = stack.start_worker()
            batch_id = stack.submit(ITEMS, mode="provider")
            submitted = poll_batch(stack.base, batch_id, job_running, timeout_s=120)
            doomed.send_signal(signal.SIGKILL)  # it polls the job every 0.3 to 1 s
            doomed.wait()
            stack.start_worker()
            batch = poll_batch(stack.base, batch_id, finished, timeout_s=240)
        stats = httpx2.get(f"http://127.0.0.1:{sim_port}/stats").json()

    assert batch["status"] == "completed", batch
    assert batch["counts"]["completed"] == ITEMS
    # The one job the killed worker submitted is the one its successor mapped.
    assert stats["openai"]["jobs_created"] == 1
    (job,) = batch["provider_jobs"]
    assert job["id"] == submitted["provider_jobs"][0]["id"]
    assert (job["state"], job["requests"], job["succeeded"]) == ("ended", 2 * ITEMS, 2 * ITEMS)
    assert asyncio.run(call_stats(own_pg, batch_id)) == (2 * ITEMS, 2 * ITEMS)
