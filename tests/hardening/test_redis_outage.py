"""Redis killed under a running API: comparisons carry on, a batch submission answers 503 at once
and stores nothing, reading batches still works (it needs only PostgreSQL), and a Redis restarted
empty on the same port gets the batch work going again.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
from structlog.testing import capture_logs

from app.batches.queue import RedisQueue
from app.config import Settings
from app.worker import run_worker
from tests.batches.support import RedisServer, compare_item, wait_for_batch

BODY = {"prompt": "What is 2+2?", "response_a": "4\n[sim q=4]", "response_b": "5\n[sim q=-4]"}
# Reconcile every second and send a lost item again after a second, instead of 10 s and 60 s.
FAST_RECONCILE = {"batch_lease_s": 3.0, "batch_requeue_after_s": 1.0}
ANSWER_WITHIN_S = 3.0


@contextlib.asynccontextmanager
async def worker(settings: Settings) -> AsyncIterator[None]:
    """A batch worker in this process (the code `fairpair worker` runs), stopped on exit."""
    stop = asyncio.Event()
    task = asyncio.create_task(run_worker(settings, 4, stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=60)  # past the worker's own bound (~35 s)


async def submit(client: httpx2.AsyncClient, first_item: int) -> httpx2.Response:
    items = [compare_item(i) for i in range(first_item, first_item + 3)]
    async with asyncio.timeout(ANSWER_WITHIN_S):
        return await client.post("/v1/batches", json={"items": items})


async def check_answers_while_redis_is_down(client: httpx2.AsyncClient, earlier_batch: str) -> None:
    """Compare, submit and read batches with Redis gone."""
    async with asyncio.timeout(ANSWER_WITHIN_S):
        compared = await client.post("/v1/compare", json=BODY)
        read = await client.get(f"/v1/batches/{earlier_batch}")
        ready = await client.get("/readyz")
    assert compared.status_code == 200, compared.text
    assert (compared.json()["status"], compared.json()["winner"]) == ("complete", "A")
    assert read.status_code == 200, read.text
    assert read.json()["status"] == "completed"
    assert ready.status_code == 503
    assert ready.json()["checks"] == {"database": True, "redis": False}
    refused = await submit(client, 100)
    assert refused.status_code == 503, refused.text
    assert refused.headers["content-type"].startswith("application/problem+json")
    assert refused.headers["retry-after"] == "5"
    results = await client.get(f"/v1/batches/{earlier_batch}/results")
    assert results.status_code == 200, results.text
    assert len(results.json()["items"]) == 3


async def test_redis_killed_compare_goes_on_and_batches_resume_when_it_restarts(
    own_redis: RedisServer,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    settings = settings_factory(auth="off", redis_url=own_redis.url, **FAST_RECONCILE)
    client = await live_factory(settings)
    async with worker(settings):
        before = (await submit(client, 0)).json()["id"]
        assert (await wait_for_batch(client, before, {}))["status"] == "completed"
        own_redis.kill()
        await check_answers_while_redis_is_down(client, before)
        await asyncio.sleep(1.5)  # the worker's reconciler runs against the dead Redis too
        own_redis.start()  # the same port, empty (no persistence): stream and group are gone
        after = (await submit(client, 200)).json()["id"]
        after_done = await wait_for_batch(client, after, {}, timeout_s=30)
    assert (after_done["status"], after_done["counts"]["completed"], after_done["calls"]) == (
        "completed",
        3,
        6,
    )


async def test_a_redis_that_stops_answering_fails_the_submission_within_its_bound(
    own_redis: RedisServer,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    # Issue 36: a stopped (not killed) Redis keeps its connections open and answers nothing;
    # without a socket timeout the submission and the readiness probe waited for it forever.
    settings = settings_factory(auth="off", redis_url=own_redis.url, **FAST_RECONCILE)
    client = await live_factory(settings)
    assert own_redis.process is not None
    os.kill(own_redis.process.pid, signal.SIGSTOP)
    try:
        async with asyncio.timeout(30):  # the bound under test is the queue's 5 s
            ready = await client.get("/readyz")
            submitted = await client.post(
                "/v1/batches", json={"items": [compare_item(i) for i in range(2)]}
            )
    finally:
        os.kill(own_redis.process.pid, signal.SIGCONT)
    assert ready.status_code == 503
    assert ready.json()["checks"] == {"database": True, "redis": False}
    assert submitted.status_code == 503, submitted.text  # as with a Redis killed outright
    assert submitted.json()["detail"].endswith("nothing was stored")


async def test_sending_to_a_redis_that_stops_answering_gives_up_within_its_bound(
    own_redis: RedisServer, settings_factory: Callable[..., Settings]
) -> None:
    # The probe before a submission passed, then Redis stopped: the send must end (logged; the
    # reconciler sends the items later), not hold the request.
    queue = RedisQueue(own_redis.url, settings_factory(redis_url=own_redis.url))
    await queue.startup()
    assert own_redis.process is not None
    os.kill(own_redis.process.pid, signal.SIGSTOP)
    try:
        with capture_logs() as logs:
            async with asyncio.timeout(30):  # the bound under test is the queue's 5 s
                await queue.enqueue(["item-1", "item-2"])
    finally:
        os.kill(own_redis.process.pid, signal.SIGCONT)
        await queue.shutdown()
    # One failed send of both items; other events may be logged beside it (a stress run saw one
    # without `items` once in 70 runs), so they are shown, not matched.
    sends = [log.get("items") for log in logs if log["event"] == "batch_queue_send_failed"]
    assert sends == [2], logs
