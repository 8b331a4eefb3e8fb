"""The judge pool: one global bound on judge calls in flight, with load shedding."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TypeVar

from app.errors import ServiceUnavailable

T = TypeVar("T")


class JudgePool:
    """Bounds judge calls in flight overall; requests bring their own per-request bound."""

    def __init__(self, max_concurrency: int, max_pending: int) -> None:
        self._slots = asyncio.Semaphore(max_concurrency)
        self.max_pending = max_pending
        self.waiting = 0

    def admit(self, planned_calls: int) -> None:
        """Shed load (503) rather than queue calls that would wait past any deadline."""
        if self.waiting + planned_calls > self.max_pending:
            raise ServiceUnavailable(
                f"{self.waiting} judge calls are waiting; try again shortly",
                headers={"Retry-After": "2"},
            )

    async def run(self, request_slots: asyncio.Semaphore, call: Callable[[], Awaitable[T]]) -> T:
        """Run one judge call under the request's and the pool's bounds."""
        self.waiting += 1
        waiting = True
        try:
            async with request_slots, self._slots:
                self.waiting -= 1
                waiting = False
                return await call()
        finally:
            if waiting:
                self.waiting -= 1
