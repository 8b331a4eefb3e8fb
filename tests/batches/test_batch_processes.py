"""Batches as real processes with the sim judge over HTTP (20 ms): a worker SIGKILLed mid-batch,
a Redis that restarts empty, and the embedded queue across an API restart. Every batch of swap
items must end with each item completed and exactly two calls per item stored, none twice."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.batches.stack import api, base_env, sim_judge
from tests.batches.support import call_stats, item_rows, poll_batch, redis_server

ITEMS = 1000
# A thousand items take ~40 s on an idle 2-core machine and over 100 s on a busy one.
FINISH_TIMEOUT_S = 400
# Short leases so that a killed worker's items come back within seconds.
FAST_RECOVERY = {"batch_lease_s": 5, "batch_requeue_after_s": 3}
pytestmark = pytest.mark.slow


def completed_at_least(count: int) -> Any:
    return lambda batch: batch["counts"]["completed"] + batch["counts"]["failed"] >= count


def finished(batch: dict[str, Any]) -> bool:
    return batch["status"] in ("completed", "failed") and not batch["counts"]["running"]


def assert_all_done_once(database_url: str, batch: dict[str, Any]) -> None:
    assert batch["status"] == "completed", batch
    assert batch["counts"]["completed"] == ITEMS, batch
    assert asyncio.run(call_stats(database_url, batch["id"])) == (2 * ITEMS, 2 * ITEMS)


def test_killed_worker_loses_nothing_and_duplicates_nothing(own_pg: str, tmp_path: Path) -> None:
    with redis_server() as redis, sim_judge() as sim_port:
        env = base_env(own_pg, redis.url, **FAST_RECOVERY)
        with api(tmp_path, sim_port, env) as stack:
            doomed = stack.start_worker()
            stack.start_worker()
            batch_id = stack.submit(ITEMS)
            poll_batch(stack.base, batch_id, completed_at_least(ITEMS // 4), FINISH_TIMEOUT_S)
            doomed.send_signal(signal.SIGKILL)
            doomed.wait()
            stack.start_worker()  # takes seconds to boot: the survivor runs alone meanwhile
            # No new submission: the reconcilers find the killed worker's items by themselves.
            batch = poll_batch(stack.base, batch_id, finished, FINISH_TIMEOUT_S)
    assert_all_done_once(own_pg, batch)
    rows = asyncio.run(item_rows(own_pg, batch_id))
    assert max(row.attempts for row in rows) >= 2  # the killed worker's items ran again


def test_redis_restarting_empty_mid_batch_loses_nothing(own_pg: str, tmp_path: Path) -> None:
    with redis_server() as redis, sim_judge() as sim_port:
        env = base_env(own_pg, redis.url, **FAST_RECOVERY)
        with api(tmp_path, sim_port, env) as stack:
            stack.start_worker()
            stack.start_worker()
            batch_id = stack.submit(ITEMS)
            before = poll_batch(
                stack.base, batch_id, completed_at_least(ITEMS // 4), FINISH_TIMEOUT_S
            )
            redis.kill()  # no persistence: the stream and its consumer group are gone
            redis.start()
            batch = poll_batch(stack.base, batch_id, finished, FINISH_TIMEOUT_S)
    assert before["counts"]["queued"] > 0  # their messages were in the lost stream
    assert_all_done_once(own_pg, batch)


def test_embedded_queue_finishes_the_batch_across_an_api_restart(tmp_path: Path) -> None:
    database_url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    env = base_env(database_url, None)
    with sim_judge() as sim_port:
        with api(tmp_path, sim_port, env) as stack:
            batch_id = stack.submit(ITEMS)
            poll_batch(stack.base, batch_id, completed_at_least(ITEMS // 4), FINISH_TIMEOUT_S)
            api_process = stack.process
            api_process.send_signal(signal.SIGKILL)
            api_process.wait()
        with api(tmp_path, sim_port, env) as stack:
            batch = poll_batch(stack.base, batch_id, finished, FINISH_TIMEOUT_S)
    assert_all_done_once(database_url, batch)
