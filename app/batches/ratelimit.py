"""Per-judge request rate limits shared by every process through Redis (in process without it).

A judge's `rpm` is a provider quota: API replicas and batch workers on any number of machines
share it, so it is counted in Redis with the `limits` library's moving window (the same rule as
`app/judging/ratelimit.py`: at most `rpm` requests start in any 60 seconds). Concurrency limits
(`max_concurrency`, `FAIRPAIR_MAX_CONCURRENCY`) stay per process.

Each process builds one factory at start (`shared_limiters`) and hands it to its judges registry,
which gives every judge with an `rpm` its limiter. While Redis is unreachable (a restart), a judge
counts in process instead: judge calls go on, each process keeping the budget on its own.

The `limits[redis]` extra is not used: it pins an old redis-py, and `redis` is installed anyway.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

import structlog
from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError

from app.judging.ratelimit import LimiterFactory, RequestRateLimiter

log = structlog.get_logger()
KEY_PREFIX = "fairpair-rpm"
MIN_WAIT_S = 0.01
# A Redis that stops answering must not hold judge calls longer than this per attempt.
REDIS_TIMEOUT_S = 2.0


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
        self._local = RequestRateLimiter(rpm, sleep=sleep)
        self._storage_down = False

    async def acquire(self) -> None:
        """Wait until one more request may start, then count it."""
        try:
            await self._acquire_shared()
        except StorageError as exc:
            if not self._storage_down:
                log.warning("judge_rpm_counted_in_process", judge=self._judge, error=str(exc))
            self._storage_down = True
            await self._local.acquire()
            return
        self._storage_down = False

    async def _acquire_shared(self) -> None:
        while not await self._strategy.hit(self._item, "judge", self._judge):
            stats = await self._strategy.get_window_stats(self._item, "judge", self._judge)
            await self._sleep(max(stats.reset_time - time.time(), MIN_WAIT_S))


def shared_storage(redis_url: str | None) -> Storage:
    """Redis when configured (shared by every process), else this process's memory."""
    if redis_url is None:
        return MemoryStorage()
    return RedisStorage(
        f"async+{redis_url}",
        wrap_exceptions=True,  # StorageError, whatever the client raised
        implementation="redispy",
        key_prefix=KEY_PREFIX,
        socket_timeout=REDIS_TIMEOUT_S,
        socket_connect_timeout=REDIS_TIMEOUT_S,
    )


def limiter_factory(redis_url: str | None) -> Callable[[str, int], JudgeRateLimiter]:
    """`(judge name, rpm) -> limiter`, all limiters of the process on one storage."""
    strategy = MovingWindowRateLimiter(shared_storage(redis_url))
    return lambda judge, rpm: JudgeRateLimiter(strategy, judge, rpm)


def shared_limiters(redis_url: str | None) -> LimiterFactory | None:
    """The factory a process gives its judges registry: Redis-shared limiters with Redis;
    None without it, so that each judge keeps its own in-process limiter."""
    return limiter_factory(redis_url) if redis_url else None
