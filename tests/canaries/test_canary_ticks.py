"""The canary scheduler runs by itself: in the API's lifespan and in a batch worker, a judge's new
version starts a canary run without the test ever calling `tick()`."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from app.config import Settings
from app.worker import run_worker
from tests.batches.support import redis_server
from tests.canaries.support import JUDGE, TAG, Served, close, judge_body, serve, store_labelled

ITEMS = 20
TICK_S = 0.2
# How long the test waits for the loop to notice: generous, since only that it fires is asserted.
WAIT_S = 60.0


async def version_run(served: Served, canary: str) -> dict[str, Any]:
    """The canary's first run with trigger `version`, once one appears (bounded wait)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_S
    while loop.time() < deadline:
        runs = (await served.get(f"/v1/canaries/{canary}/runs"))["items"]
        found = [r for r in runs if r["trigger"] == "version"]
        if found:
            assert [r["trigger"] for r in runs] == ["version"], runs
            return dict(found[0])
        await asyncio.sleep(0.1)
    raise AssertionError(f"no version run of {canary} within {WAIT_S} s: the scheduler never ran")


async def new_version(served: Served) -> None:
    """Change the judge's knobs through the API: its version moves on."""
    body = {"sim": {"beta": 2.0, "seed": 7, "position_bias": 1.0}}
    response = await served.http.patch(f"/v1/judges/{JUDGE}", json=body, headers=served.admin)
    assert response.status_code == 200, response.text


async def prepare(served: Served, canary: str) -> None:
    """The judge, labelled traffic and a canary over it (its judge's version recorded)."""
    await served.post("/v1/judges", judge_body({}), status=201)
    await store_labelled(served, ITEMS, seed=21)
    body = {"name": canary, "judges": [JUDGE], "tag": TAG}
    created = await served.post("/v1/canaries", body, 201)
    assert created["item_count"] == ITEMS


async def test_the_api_process_ticks_by_itself_and_starts_a_version_run(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    served = await serve(settings_factory, admin, canary_tick_s=TICK_S)
    try:
        await prepare(served, "looped")
        await new_version(served)
        run = await version_run(served, "looped")
        assert (run["number"], run["judges"]) == (1, [JUDGE])
        settled = await served.settled("looped", 1)  # finished before the app stops
        assert settled["results"][0]["figures"]["n_items"] == ITEMS
    finally:
        await close(served)


@contextlib.asynccontextmanager
async def worker(settings: Settings) -> AsyncIterator[None]:
    """A batch worker in this process (the code `fairpair worker` runs), stopped on exit."""
    stop = asyncio.Event()
    task = asyncio.create_task(run_worker(settings, 8, stop))
    try:
        yield
    finally:
        stop.set()
        await asyncio.wait_for(task, timeout=30)


async def test_a_worker_ticks_by_itself_and_runs_the_version_run(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    """The API does not tick here (`canary_tick_s=0`): only the worker's loop can claim the run."""
    with redis_server() as redis:
        served = await serve(settings_factory, admin, redis_url=redis.url)
        try:
            await prepare(served, "worked")
            ticking = settings_factory(canary_tick_s=TICK_S, draw_seed=1, redis_url=redis.url)
            async with worker(ticking):
                await new_version(served)
                run = await version_run(served, "worked")
                assert (run["number"], run["judges"]) == (1, [JUDGE])
                settled = await served.settled("worked", 1)  # the worker ran its items
                assert settled["results"][0]["figures"]["n_items"] == ITEMS
        finally:
            await close(served)
