"""Page views cached per (page, filters) while no call, score or label has been stored since.

The report is recomputed from SQL only when the watermark moves (or after `ttl_s`, because a
window relative to now slides even without new data); the watermark is three index reads.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.dashboard.charts import Chart
from app.dashboard.filters import PageFilters
from app.labels.models import Label
from app.ledger.models import JudgeCall
from app.scoring.models import ScoreCall

Key = tuple[str, PageFilters]
Watermark = tuple[object, ...]


async def watermark(session: AsyncSession) -> Watermark:
    """Count and highest id of the calls, score calls and labels: moves whenever one is stored
    or purged."""
    marks = [
        select(aggregate).select_from(model).scalar_subquery()
        for model in (JudgeCall, ScoreCall, Label)
        for aggregate in (func.count(), func.max(model.id))
    ]
    row = (await session.execute(select(*marks))).one()
    return tuple(row)


@dataclass
class PageView:
    """What a page shows: its template context and its charts, in order."""

    title: str
    template: str
    context: dict[str, Any] = field(default_factory=dict)
    charts: list[Chart] = field(default_factory=list)


class PageCache:
    """Views per key, valid while the watermark is unchanged and younger than `ttl_s`."""

    def __init__(self, capacity: int = 128, ttl_s: float = 60.0) -> None:
        self._entries: OrderedDict[Key, tuple[Watermark, float, PageView]] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[Key, asyncio.Lock] = weakref.WeakValueDictionary()
        self._capacity, self._ttl_s = capacity, ttl_s

    def get(self, key: Key, mark: Watermark) -> PageView | None:
        """The cached view if computed at this watermark, recently."""
        entry = self._entries.get(key)
        if entry is None or entry[0] != mark or time.monotonic() - entry[1] > self._ttl_s:
            return None
        self._entries.move_to_end(key)
        return entry[2]

    def put(self, key: Key, mark: Watermark, view: PageView) -> None:
        """Keep a view, evicting the least recently used beyond capacity."""
        self._entries[key] = (mark, time.monotonic(), view)
        self._entries.move_to_end(key)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    async def view(
        self, key: Key, mark: Watermark, build: Callable[[], Awaitable[PageView]]
    ) -> PageView:
        """The cached view, or a new one (simultaneous cold requests build it once)."""
        cached = self.get(key, mark)
        if cached is not None:
            return cached
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        async with lock:
            cached = self.get(key, mark)
            if cached is None:
                cached = await build()
                self.put(key, mark, cached)
            return cached
