"""Per-API-key request rate limits: one budget per key, shared by every replica through Redis.

With Redis configured, each key's requests are counted there with the `limits` library's moving
window, like a judge's `rpm` (app/batches/ratelimit.py): at most `per_minute` requests of one
key in any 60 seconds, whichever API process serves them. Without Redis, or while it is
unreachable, each process counts in its own memory (the same sliding window), so requests go on
with a per-process budget and one warning is logged per outage.

Requests that fail authentication are throttled per client, in process (`FailedAuthThrottle`).
"""

from __future__ import annotations

import ipaddress
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

    def __init__(self, per_minute: int, max_keys: int | None = None) -> None:
        self.per_minute = per_minute
        self.max_keys = max_keys
        self._seen: dict[str, deque[float]] = {}

    def retry_after(self, key_id: str, now: float | None = None) -> int | None:
        """None to admit the request (and count it), else the seconds to wait."""
        now = time.monotonic() if now is None else now
        if self.max_keys is not None and key_id not in self._seen:
            while len(self._seen) >= self.max_keys:  # unknown clients must not grow memory
                del self._seen[next(iter(self._seen))]
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


class FailedAuthThrottle:
    """At most `per_minute` failed authentications per client a minute, counted in this process.

    A request without a valid key costs a key lookup (or a cached miss) and an answer: cheap, but
    not free, and a flood of them is all an outsider can send. Past the budget such requests are
    429 until the window has room again; a valid key is never counted or refused here (it has its
    own budget). A client is its address, an IPv6 one by its /64 (what one host usually holds).
    Per process, not in Redis: the point is to bound the work each process does for outsiders.
    """

    def __init__(self, per_minute: int, max_clients: int = 10_000) -> None:
        self.per_minute = per_minute
        self._window = LocalKeyWindow(per_minute, max_keys=max_clients)

    def failed(self, client: str | None, now: float | None = None) -> int | None:
        """Count a failed authentication of `client`: None under budget, else seconds to wait."""
        return self._window.retry_after(client_network(client), now)


def client_network(client: str | None) -> str:
    """What the throttle counts: an IPv4 address (IPv4-mapped too), an IPv6 /64, else the value."""
    try:
        address = ipaddress.ip_address(client or "")
    except ValueError:
        return client or ""
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
        return str(ipaddress.IPv6Network((address, 64), strict=False))
    return str(address)
