"""What the judges reached over HTTP share: one client with the judge's timeouts and limits."""

from __future__ import annotations

from typing import TypedDict, Unpack

import httpx2

from app.judging.base import Judge
from app.judging.providers.errors import http_client
from app.judging.ratelimit import RateLimiter
from app.judging.types import JudgeConfig


class Connection(TypedDict, total=False):
    """How an HTTP judge reaches its provider.

    `transport` replaces the network (tests, replays); `limiter` counts the judge's `rpm`
    (shared through Redis), and without one the judge counts it in process.
    """

    transport: httpx2.AsyncBaseTransport | None
    limiter: RateLimiter | None


class HttpJudge(Judge):
    """A judge reached over HTTP through one client of its own."""

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, connection.get("limiter"))
        self._http = http_client(
            connection.get("transport"), config.timeout_s, config.max_concurrency
        )

    async def aclose(self) -> None:
        """Release the judge's HTTP client."""
        await self._http.aclose()
