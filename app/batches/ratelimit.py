"""Per-judge request rate limits shared by every process through Redis (in process without it).

A judge's `rpm` is a provider quota: API replicas and batch workers on any number of machines
share it, so it is counted in Redis with the `limits` library's moving window (the same rule as
`app/judging/ratelimit.py`: at most `rpm` requests start in any 60 seconds). Concurrency limits
(`max_concurrency`, `FAIRPAIR_MAX_CONCURRENCY`) stay per process.

The `limits[redis]` extra is not used: it pins an old redis-py, and `redis` is installed anyway.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter

KEY_PREFIX = "fairpair-rpm"
MIN_WAIT_S = 0.01


class RateLimiter(Protocol):
    """What the judging layer waits on before each request to a judge."""

    async def acquire(self) -> None:
        """Wait until one more request may start, then count it."""
        ...


class JudgeRateLimiter:
    """At most `rpm` requests to one judge start in any minute, counted by `strategy`."""

    def __init__(
        self,
        strategy: MovingWindowRateLimiter,
        judge: str,
        rpm: int,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if rpm < 1:
            raise ValueError("rpm must be at least 1")
        self._strategy = strategy
        self._item: RateLimitItem = RateLimitItemPerMinute(rpm)
        self._judge = judge
        self._sleep = sleep

    async def acquire(self) -> None:
        """Wait until one more request may start, then count it."""
        while not await self._strategy.hit(self._item, "judge", self._judge):
            stats = await self._strategy.get_window_stats(self._item, "judge", self._judge)
            await self._sleep(max(stats.reset_time - time.time(), MIN_WAIT_S))


def shared_storage(redis_url: str | None) -> Storage:
    """Redis when configured (shared by every process), else this process's memory."""
    if redis_url is None:
        return MemoryStorage()
    return RedisStorage(f"async+{redis_url}", implementation="redispy", key_prefix=KEY_PREFIX)


def limiter_factory(redis_url: str | None) -> Callable[[str, int], JudgeRateLimiter]:
    """`(judge name, rpm) -> limiter`, all limiters of the process on one storage."""
    strategy = MovingWindowRateLimiter(shared_storage(redis_url))
    return lambda judge, rpm: JudgeRateLimiter(strategy, judge, rpm)
