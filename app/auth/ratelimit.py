"""Per-API-key request rate limits: one budget per key, shared by every replica through Redis.

With Redis configured, each key's requests are counted there with the `limits` library's moving
window, like a judge's `rpm` (app/batches/ratelimit.py): at most `per_minute` requests of one
key in any 60 seconds, whichever API process serves them. Without Redis, or while it is
unreachable, each process counts in its own memory (the same sliding window), so requests go on
with a per-process budget and one warning is logged per outage.
"""

from __future__ import annotations

import math
import time
from collections import deque

import structlog
from limits import RateLimitItem, RateLimitItemPerMinute
from limits.aio.storage import Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError

log = structlog.get_logger()
NAMESPACE = "api-key"


class LocalKeyWindow:
    """Admits at most `per_minute` requests per key in any 60-second window of this process."""

    WINDOW_S = 60.0

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._seen: dict[str, deque[float]] = {}

    def retry_after(self, key_id: str, now: float | None = None) -> int | None:
        """None to admit the request (and count it), else the seconds to wait."""
        now = time.monotonic() if now is None else now
        seen = self._seen.setdefault(key_id, deque())
        while seen and seen[0] <= now - self.WINDOW_S:
            seen.popleft()
        if len(seen) >= self.per_minute:
            return max(1, math.ceil(seen[0] + self.WINDOW_S - now))
        seen.append(now)
        return None


class KeyRateLimiter:
    """At most `per_minute` requests per key a minute; counted in `storage` when one is given."""

    def __init__(self, per_minute: int | None, storage: Storage | None = None) -> None:
        self.per_minute = per_minute
        self._local = LocalKeyWindow(per_minute or 1)
        self._shared = MovingWindowRateLimiter(storage) if storage is not None else None
        self._item: RateLimitItem = RateLimitItemPerMinute(per_minute or 1)
        self._storage_down = False

    async def retry_after(self, key_id: str) -> int | None:
        """None to admit the request (and count it), else the seconds to wait."""
        if self.per_minute is None:
            return None
        if self._shared is None:
            return self._local.retry_after(key_id)
        try:
            wait = await self._shared_retry_after(self._shared, key_id)
        except StorageError as exc:
            if not self._storage_down:
                log.warning("key_limit_counted_in_process", error=str(exc))
            self._storage_down = True
            return self._local.retry_after(key_id)
        self._storage_down = False
        return wait

    async def _shared_retry_after(self, shared: MovingWindowRateLimiter, key_id: str) -> int | None:
        if await shared.hit(self._item, NAMESPACE, key_id):
            return None
        stats = await shared.get_window_stats(self._item, NAMESPACE, key_id)
        return max(1, math.ceil(stats.reset_time - time.time()))
