"""A judge's rpm is shared by every process through Redis (registries and the API use it), and
kept in process without Redis or while it is away."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from redis.asyncio import Redis

from app.batches.ratelimit import RateLimitNotes, limiter_factory
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.judges.registry import JudgeRegistry
from app.judging.types import SimKnobs
from tests.batches.support import compare_item, redis_server
from tests.support.sim import CountingTransport, http_sim_judges_toml


async def starts_within(acquire: Coroutine[Any, Any, None], seconds: float) -> bool:
    try:
        await asyncio.wait_for(acquire, timeout=seconds)
    except TimeoutError:
        return False
    return True


async def test_two_processes_share_one_judges_rpm_through_redis() -> None:
    with redis_server() as redis:
        # Two factories are two processes: each has its own client, the count is in Redis.
        api, worker = limiter_factory(redis.url), limiter_factory(redis.url)
        on_api, on_worker = api("gpt-4o", 3), worker("gpt-4o", 3)
        for limiter in (on_api, on_worker, on_api):
            assert await starts_within(limiter.acquire(), 2)
        assert not await starts_within(on_worker.acquire(), 0.3)
        other_judge = worker("claude", 3)
        assert await starts_within(other_judge.acquire(), 2)


async def test_without_redis_the_limit_is_kept_in_process() -> None:
    limiter = limiter_factory(None)("local", 2)
    assert await starts_within(limiter.acquire(), 1)
    assert await starts_within(limiter.acquire(), 1)
    assert not await starts_within(limiter.acquire(), 0.3)


def test_rpm_must_be_positive() -> None:
    with pytest.raises(ValueError, match="rpm"):
        limiter_factory(None)("judge", 0)


def rpm_judges_toml(rpm: int) -> str:
    """The HTTP sim judge with an rpm."""
    return http_sim_judges_toml() + f"rpm = {rpm}\nmax_concurrency = 16\n"


async def test_two_processes_with_their_registries_start_at_most_rpm_requests_together(
    settings_factory: Callable[..., Settings],
) -> None:
    settings = settings_factory(rpm_judges_toml(3))
    engine = create_engine(settings.database_url)
    sessionmaker = create_sessionmaker(engine)
    transport = CountingTransport(SimKnobs())  # the provider both processes call
    with redis_server() as redis:
        # Each "process": its own registry and limiter factory (own Redis client), as at start-up.
        registries = [
            JudgeRegistry(
                settings, sessionmaker, lambda _name: transport, limiter_factory(redis.url)
            )
            for _ in range(2)
        ]
        for registry in registries:
            await registry.start()
        try:
            judges = []
            for registry in registries:
                async with sessionmaker() as session:
                    judges += await registry.resolve(session, ["http-sim"])
            deadline = time.monotonic() + 1.5
            calls = [
                judge.client.judge_pair("q", "a", "b", deadline=deadline)
                for judge in judges
                for _ in range(4)
            ]
            results = await asyncio.gather(*calls)
        finally:
            for registry in registries:
                await registry.aclose()
    await engine.dispose()
    # Eight calls wanted to start within the minute; the shared budget let three through.
    assert transport.requests == 3
    assert sum(r.error_kind is None for r in results) == 3


async def test_the_api_counts_its_judge_calls_in_the_shared_budget(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    transport = CountingTransport(SimKnobs())
    with redis_server() as redis:
        settings = settings_factory(rpm_judges_toml(3), redis_url=redis.url)
        client = await live_factory(settings, transport_for=lambda _name: transport)
        body = compare_item(0)["compare"]
        first = await client.post("/v1/compare", headers=comparer, json=body)
        assert first.status_code == 200, first.text
        assert transport.requests == 2  # swap: both orders

        worker = limiter_factory(redis.url)("http-sim", 3)  # another process, same judge
        assert await starts_within(worker.acquire(), 2)  # the budget's third request
        assert not await starts_within(worker.acquire(), 0.3)

        spent = await client.post("/v1/compare", headers=comparer, json={**body, "timeout_s": 1})
        assert spent.status_code == 502, spent.text
        assert transport.requests == 2  # the API waited on the shared budget: nothing was sent


async def test_a_redis_that_goes_away_leaves_each_process_counting_in_process() -> None:
    with redis_server() as redis:
        limiter = limiter_factory(redis.url)("judge", 2)
        assert await starts_within(limiter.acquire(), 2)
        redis.kill()
        assert await starts_within(limiter.acquire(), 5)  # counted locally: the call goes on
        assert await starts_within(limiter.acquire(), 5)
        assert not await starts_within(limiter.acquire(), 0.3)  # the local count is full


async def test_a_batch_waiting_on_a_judges_rpm_says_until_when(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    """Issue 43: an item waiting on the rpm looked like a hang; its batch now shows
    `rate_limited_until` (the embedded queue: the API process runs the items)."""
    transport = CountingTransport(SimKnobs())
    settings = settings_factory(rpm_judges_toml(2), shutdown_grace_s=1)
    client = await live_factory(settings, transport_for=lambda _name: transport)
    items = [compare_item(i) for i in range(3)]  # six calls against two a minute
    submitted = await client.post("/v1/batches", headers=comparer, json={"items": items})
    assert submitted.status_code == 202, submitted.text
    url = f"/v1/batches/{submitted.json()['id']}"
    for _ in range(300):  # bounded: the first item's two calls go out at once
        batch = (await client.get(url, headers=comparer)).json()
        if batch["rate_limited_until"] is not None:
            break
        await asyncio.sleep(0.1)
    until = datetime.fromisoformat(batch["rate_limited_until"])
    now = datetime.now(UTC)
    assert now < until <= now + timedelta(seconds=61), (now, until)
    assert batch["status"] in ("queued", "running")
    assert transport.requests == 2
    listed = (await client.get("/v1/batches", headers=comparer)).json()["items"]
    assert [b["rate_limited_until"] for b in listed] == [batch["rate_limited_until"]]
    assert (await client.delete(url, headers=comparer)).status_code == 200


async def test_rate_limit_notes_are_shared_through_redis_and_expire() -> None:
    with redis_server() as redis:
        worker = RateLimitNotes(Redis.from_url(redis.url))
        api = RateLimitNotes(Redis.from_url(redis.url))  # another process
        await worker.note("b1", time.time() + 30)
        await worker.note("b2", time.time() + 0.5)
        waits = await api.until(["b1", "b2", "b3"])
        assert set(waits) == {"b1", "b2"}
        assert waits["b1"] > datetime.now(UTC) + timedelta(seconds=25)
        await asyncio.sleep(1.6)  # b2's wait is over (and its key expired)
        assert set(await api.until(["b1", "b2"])) == {"b1"}
        redis.kill()
        assert await api.until(["b1"]) == {}  # Redis away: it cannot tell
        await worker.note("b1", time.time() + 30)  # dropped, not raised
