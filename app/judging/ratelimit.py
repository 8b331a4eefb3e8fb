"""Requests-per-minute limits of a judge: the interface, and the in-process limiter.

A process without Redis uses `RequestRateLimiter`; with Redis, every process shares each judge's
budget through `app.batches.ratelimit` (passed in through the judges registry).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from typing import Protocol

WINDOW_S = 60.0

# Who hears that a request of this context waits on a rate limit, and until when (Unix time):
# a batch item's runner sets it, so that its batch can say `rate_limited_until`.
RATE_LIMIT_WAIT: ContextVar[Callable[[float], Awaitable[None]] | None] = ContextVar(
    "rate_limit_wait", default=None
)


async def announce_wait(wait_s: float) -> None:
    """Tell this context's listener (if any) that a request waits `wait_s` on a rate limit."""
    listener = RATE_LIMIT_WAIT.get()
    if listener is not None:
        await listener(time.time() + wait_s)


class RateLimiter(Protocol):
    """What a judge waits on before each request it sends."""

    async def acquire(self) -> None:
        """Wait until one more request may start, then count it."""
        ...


# (judge name, rpm) -> that judge's limiter; one factory per process.
LimiterFactory = Callable[[str, int], RateLimiter]


class RequestRateLimiter:
    """Sliding one-minute window: at most `rpm` requests start in any 60 seconds."""

    def __init__(
        self,
        rpm: int,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        if rpm < 1:
            raise ValueError("rpm must be at least 1")
        self.rpm = rpm
        self._clock = clock
        self._sleep = sleep
        self._started: deque[float] = deque()
        self._lock = asyncio.Lock()

    def _wait_time(self) -> float:
        now = self._clock()
        while self._started and self._started[0] <= now - WINDOW_S:
            self._started.popleft()
        if len(self._started) < self.rpm:
            return 0.0
        return self._started[0] + WINDOW_S - now

    async def acquire(self) -> None:
        """Wait until one more request may start, then count it."""
        # The lock keeps waiters in arrival order, so nobody starves.
        async with self._lock:
            wait = self._wait_time()
            if wait > 0:
                await announce_wait(wait)
                # After this sleep the oldest start has left the window (the margin covers
                # the event loop waking a hair early).
                await self._sleep(wait + 0.001)
                self._wait_time()
            self._started.append(self._clock())
