"""A batch says who runs it (issue 43): with Redis and no `fairpair worker` it says `workers: 0`
with a hint instead of looking like a hang; a started worker is counted by its heartbeat and
runs the batch; a stopped worker's key is gone; without Redis the API process is the runner."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx2
from redis import Redis

from app.batches.queue import WORKER_KEYS, MemoryQueue, RedisQueue
from app.batches.service import NO_WORKER_HINT
from tests.batches.stack import api, base_env, sim_judge
from tests.batches.support import poll_batch, redis_server


def batch(base: str, batch_id: str) -> dict[str, Any]:
    body: dict[str, Any] = httpx2.get(f"{base}/v1/batches/{batch_id}", timeout=30).json()
    return body


def test_a_batch_with_no_worker_says_so_and_a_worker_is_counted_until_it_stops(
    own_pg: str, tmp_path: Path
) -> None:
    with redis_server() as redis, sim_judge() as sim_port:
        env = base_env(own_pg, redis.url)
        with api(tmp_path, sim_port, env) as stack:
            batch_id = stack.submit(20)
            waiting = batch(stack.base, batch_id)
            assert (waiting["status"], waiting["workers"]) == ("queued", 0)
            assert waiting["hint"] == NO_WORKER_HINT
            listed = httpx2.get(f"{stack.base}/v1/batches", timeout=30).json()["items"]
            assert (listed[0]["workers"], listed[0]["hint"]) == (0, NO_WORKER_HINT)

            worker = stack.start_worker()
            done = poll_batch(stack.base, batch_id, lambda b: b["status"] == "completed")
            assert (done["workers"], done["hint"]) == (None, None)  # nothing left to run
            keys = Redis.from_url(redis.url).keys(WORKER_KEYS + "*")
            assert len(keys) == 1

            stack.stop_workers()
            assert worker.returncode == 0
            assert Redis.from_url(redis.url).keys(WORKER_KEYS + "*") == []


def test_a_heartbeat_is_counted_while_it_beats_and_not_after(settings_factory: Any) -> None:
    async def counts(url: str) -> list[int | None]:
        queue = RedisQueue(url, settings_factory())
        seen = [await queue.live_workers()]
        async with queue.heartbeat("worker-a"), queue.heartbeat("worker-b"):
            await asyncio.sleep(0.1)  # the first beat is set at once
            seen.append(await queue.live_workers())
        seen.append(await queue.live_workers())
        await queue.shutdown()
        return seen

    with redis_server() as redis:
        assert asyncio.run(counts(redis.url)) == [0, 2, 0]
        redis.kill()
        assert asyncio.run(counts(redis.url))[0] is None  # Redis down: it cannot tell


def test_the_embedded_queue_is_its_own_worker_until_it_closes() -> None:
    async def counts() -> tuple[int | None, int | None]:
        async def run(item_id: str) -> None:
            return None

        queue = MemoryQueue(run, lambda: 0)
        before = await queue.live_workers()
        await queue.startup()
        await queue.shutdown()
        return before, await queue.live_workers()

    assert asyncio.run(counts()) == (1, 0)
