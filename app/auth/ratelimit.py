"""Per-API-key request rate limits (a sliding one-minute window in this process)."""

from __future__ import annotations

import math
import time
from collections import deque


class KeyRateLimiter:
    """Admits at most `per_minute` requests per key in any 60-second window."""

    WINDOW_S = 60.0

    def __init__(self, per_minute: int | None) -> None:
        self.per_minute = per_minute
        self._seen: dict[str, deque[float]] = {}

    def retry_after(self, key_id: str, now: float | None = None) -> int | None:
        """None to admit the request (and count it), else the seconds to wait."""
        if self.per_minute is None:
            return None
        now = time.monotonic() if now is None else now
        seen = self._seen.setdefault(key_id, deque())
        while seen and seen[0] <= now - self.WINDOW_S:
            seen.popleft()
        if len(seen) >= self.per_minute:
            return max(1, math.ceil(seen[0] + self.WINDOW_S - now))
        seen.append(now)
        return None
