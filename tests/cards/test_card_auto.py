"""The card runs by itself (issue 42): a judge's creation and each new version queue its battery on
the canary scheduler's tick, once however many processes tick; a provider model newly reported
under a version queues one more; `card_auto=false` queues nothing. Real PostgreSQL, the sim judge
in process and over real HTTP, a batch worker on a real Redis."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

from sqlalchemy import func, select

from app.batches.models import Batch
from app.canaries.scheduler import newest_model
from app.cards import auto
from app.config import Settings
from app.judging.types import SimKnobs
from app.worker import run_worker
from tests.batches.support import redis_server
from tests.canaries.support import Served, close, serve
from tests.cards.test_card_api import sim_judge
from tests.hardening.support import http_judge
from tests.judging.fakes import running_sim_judge

PER_FAMILY = 10
TICK_S = 0.2
NO_FILE_JUDGES = ""


async def finished_card(served: Served, name: str, version: int, timeout_s: float = 120) -> Any:
    """The judge version's card once complete, however it was started (bounded wait)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout_s
    while loop.time() < deadline:
        answer = await served.get(f"/v1/judges/{name}/card", version=version)
        if answer["card"] is not None and answer["card"]["complete"]:
            return answer["card"]
        await asyncio.sleep(0.2)
    raise AssertionError(f"no finished card of {name} v{version} within {timeout_s} s")


async def auto_batches(served: Served) -> list[str | None]:
    """The idempotency keys of the automatic card runs' batches."""
    async with served.live.state["jobs"].sessionmaker() as session:
        keys = await session.scalars(
            select(Batch.idempotency_key)
            .where(Batch.api_key_id == auto.AUTO_KEY_ID)
            .order_by(Batch.created_at)
        )
        return list(keys)


async def tick_cards(served: Served, model: auto.NewestModel = newest_model) -> list[auto.Due]:
    state = served.live.state
    return await auto.tick(state["jobs"], state["batch_queue"], model)


async def test_a_new_judge_and_its_new_version_get_their_cards_by_themselves(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    """The API process ticks (`canary_tick_s`): no test calls POST …/card or `tick()`."""
    served = await serve(
        settings_factory,
        admin,
        judges_toml=NO_FILE_JUDGES,
        canary_tick_s=TICK_S,
        card_auto=True,
        card_probes_per_family=PER_FAMILY,
        draw_seed=11,
    )
    try:
        await served.post("/v1/judges", sim_judge("auto-card"), status=201)
        first = await finished_card(served, "auto-card", 1)
        assert first["items"] == 4 * PER_FAMILY
        assert {f["family"]: f["mark"] for f in first["figures"]}["injection"] == "pass"
        body = {"sim": {"beta": 2.0, "seed": 7, "injection_following": 0.9}}
        response = await served.http.patch("/v1/judges/auto-card", json=body, headers=served.admin)
        assert response.status_code == 200, response.text
        second = await finished_card(served, "auto-card", 2)
        assert second["previous_version"] == 1
        changed = {c["family"]: c["changed"] for c in second["changes"]}
        assert changed["injection"] is True, second["changes"]
        assert {f["family"]: f["mark"] for f in second["figures"]}["injection"] == "fail"
        # More ticks start nothing more: one run per version.
        await asyncio.sleep(5 * TICK_S)
        assert await auto_batches(served) == ["card:auto-card:v1", "card:auto-card:v2"]
    finally:
        await close(served)


async def test_two_processes_ticking_at_once_queue_one_run_and_a_new_model_one_more(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    """Two apps on one database tick together (the test ticks them); then the provider reports
    another model under the same version, which queues one more run, once."""
    common = {"judges_toml": NO_FILE_JUDGES, "card_probes_per_family": PER_FAMILY}
    one = await serve(settings_factory, admin, card_auto=True, **common)
    other = await serve(settings_factory, admin, card_auto=True, **common)
    off = await serve(settings_factory, admin, card_auto=False, **common)
    try:
        await one.post("/v1/judges", sim_judge("twice"), status=201)
        assert await tick_cards(off) == []  # turned off: nothing
        claimed = await asyncio.gather(tick_cards(one), tick_cards(other))
        assert sorted(len(c) for c in claimed) == [0, 1], claimed
        assert [d.trigger for c in claimed for d in c] == ["version"]
        assert await tick_cards(one) == await tick_cards(other) == []
        await finished_card(one, "twice", 1)

        async def rotated(session: Any, judge: str) -> tuple[str | None, int | None]:
            return "twice-2026-12-01", 1

        claimed = await asyncio.gather(tick_cards(one, rotated), tick_cards(other, rotated))
        assert [(d.trigger, d.key) for c in claimed for d in c] == [
            ("model", "card:twice:v1:twice-2026-12-01")
        ]
        assert await tick_cards(one, rotated) == []
        async with one.live.state["jobs"].sessionmaker() as session:
            count = await session.scalar(
                select(func.count()).where(Batch.api_key_id == auto.AUTO_KEY_ID)
            )
        assert count == 2
    finally:
        for served in (one, other, off):
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


async def test_a_worker_ticks_and_runs_the_card_of_a_judge_served_over_http(
    settings_factory: Callable[..., Settings], admin: dict[str, str]
) -> None:
    """The API does not tick (`canary_tick_s=0`): the worker's loop claims the card of a judge
    that talks to a real `fairpair sim-judge` over HTTP, and the worker runs its items."""
    with running_sim_judge(SimKnobs(seed=3)) as url, redis_server() as redis:
        judges = http_judge("http-card", url, max_concurrency=16)
        common: dict[str, Any] = {
            "card_probes_per_family": PER_FAMILY,
            "redis_url": redis.url,
            "draw_seed": 5,
        }
        served = await serve(settings_factory, admin, judges_toml=judges, **common)
        try:
            ticking = settings_factory(judges, canary_tick_s=TICK_S, card_auto=True, **common)
            async with worker(ticking):
                card = await finished_card(served, "http-card", 1)
            assert card["items"] == card["items_done"] == 4 * PER_FAMILY
            assert card["provider_models"] == ["http-card"]
            assert sum(f["calls"] for f in card["figures"]) == 8 * PER_FAMILY
            assert await auto_batches(served) == ["card:http-card:v1"]
        finally:
            await close(served)
