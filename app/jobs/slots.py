"""The envelope of every judge call: the process's pool, the job's own bound, its deadline, a
failed-call result when the deadline passes, and seeded draws for reproducible runs."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from app.db import utcnow
from app.errors import ServiceUnavailable
from app.judging.types import CallRecord

T = TypeVar("T")
R = TypeVar("R", bound=CallRecord)


class JudgePool:
    """Bounds judge calls in flight overall; jobs bring their own per-job bound."""

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

    async def run(self, job_slots: asyncio.Semaphore, call: Callable[[], Awaitable[T]]) -> T:
        """Run one judge call under the job's and the pool's bounds."""
        self.waiting += 1
        waiting = True
        try:
            async with job_slots, self._slots:
                self.waiting -= 1
                waiting = False
                return await call()
        finally:
            if waiting:
                self.waiting -= 1


class CallSlots:
    """One job's judge calls: at most `concurrency` at once, none past `deadline`."""

    def __init__(
        self,
        pool: JudgePool,
        concurrency: int,
        timeout_s: float,
        draw_seed: str | None = None,
    ) -> None:
        self.pool = pool
        self.slots = asyncio.Semaphore(concurrency)
        self.deadline = time.monotonic() + timeout_s  # the loop's clock, as asyncio.timeout_at
        self.draw_seed = draw_seed

    def rng(self, *parts: object) -> random.Random | None:
        """A reproducible draw per call and purpose when seeded (tests, benchmarks), else None
        (the system's). The parts name the stream: separate purposes get separate streams."""
        if self.draw_seed is None:
            return None
        return random.Random(":".join([self.draw_seed, *map(str, parts)]))

    async def run(self, invoke: Callable[[], Awaitable[R]], failure: type[R], job: str) -> R:
        """`invoke` within the deadline; a call the deadline cut is recorded as failed."""
        started = utcnow()
        try:
            async with asyncio.timeout_at(self.deadline):
                return await self.pool.run(self.slots, invoke)
        except TimeoutError:
            return failure.failure(started, "deadline", f"the {job}'s deadline passed")
