"""A judge's rpm is shared by every process through Redis, and kept in process without it."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

import pytest

from app.batches.ratelimit import limiter_factory
from tests.batches.support import redis_server


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
