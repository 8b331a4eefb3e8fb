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
import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime

import structlog
from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.asyncio import Redis
from redis.exceptions import RedisError

from app.judging.ratelimit import LimiterFactory, RequestRateLimiter, announce_wait

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
            wait = max(stats.reset_time - time.time(), MIN_WAIT_S)
            await announce_wait(wait)
            await self._sleep(wait)


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


NOTE_KEYS = "fairpair:rate-limited:"


class RateLimitNotes:
    """Until when a batch's items wait on a rate limit (a judge's `rpm`, or a provider's 429
    with its Retry-After): in Redis, where every worker writes and every API process reads, or
    in this process without Redis (where the API runs the items itself). Best effort: a note
    that cannot be written within REDIS_TIMEOUT_S is dropped, never an error of the call."""

    def __init__(self, redis: Redis | None) -> None:
        self._redis = redis
        self._local: dict[str, float] = {}

    async def note(self, batch_id: str, until: float) -> None:
        """An item of `batch_id` waits until `until` (Unix time); the latest wait is kept."""
        now = time.time()
        ttl = max(1, math.ceil(until - now))
        if self._redis is None:
            self._local = {b: u for b, u in self._local.items() if u > now}
            self._local[batch_id] = until
            return
        with contextlib.suppress(RedisError, TimeoutError):
            async with asyncio.timeout(REDIS_TIMEOUT_S):
                await self._redis.set(NOTE_KEYS + batch_id, repr(until), ex=ttl)

    async def until(self, batch_ids: Sequence[str]) -> dict[str, datetime]:
        """The batches whose items wait on a rate limit now, each with until when."""
        now = time.time()
        found = dict(zip(batch_ids, await self._read(batch_ids), strict=True))
        return {
            batch_id: datetime.fromtimestamp(until, UTC)
            for batch_id, until in found.items()
            if until is not None and until > now
        }

    async def _read(self, batch_ids: Sequence[str]) -> list[float | None]:
        if self._redis is None or not batch_ids:
            return [self._local.get(batch_id) for batch_id in batch_ids]
        try:
            async with asyncio.timeout(REDIS_TIMEOUT_S):
                values = await self._redis.mget([NOTE_KEYS + b for b in batch_ids])
        except (RedisError, TimeoutError):
            return [None] * len(batch_ids)
        return [float(value) if value is not None else None for value in values]
