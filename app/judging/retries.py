"""Retrying transient provider failures with backoff, inside an absolute deadline."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import TypeVar

from app.judging.ratelimit import announce_wait
from app.judging.types import ErrorKind

T = TypeVar("T")

RETRYABLE_KINDS: frozenset[ErrorKind] = frozenset(
    {"rate_limited", "server_error", "timeout", "connection"}
)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how patiently transient failures are retried."""

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0


class ProviderCallError(Exception):
    """One request failed; `kind` says whether it is worth retrying. `raw_output` is what the
    judge answered when the answer itself is the failure (`invalid_response`)."""

    def __init__(
        self,
        kind: ErrorKind,
        message: str,
        *,
        retry_after_s: float | None = None,
        raw_output: str | None = None,
    ):
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.retry_after_s = retry_after_s
        self.raw_output = raw_output


class CallFailedError(Exception):
    """A call gave up; `extra_requests` counts the requests after the first. `raw_output` is the
    last answer when the answer itself was the failure."""

    def __init__(
        self, kind: ErrorKind, message: str, extra_requests: int, raw_output: str | None = None
    ):
        super().__init__(message)
        self.kind: ErrorKind = kind
        self.message = message
        self.extra_requests = extra_requests
        self.raw_output = raw_output


def parse_retry_after(headers: Mapping[str, str], now: datetime | None = None) -> float | None:
    """Seconds to wait from `retry-after-ms`, or `Retry-After` as seconds or an HTTP date."""
    lowered = {key.lower(): value for key, value in headers.items()}
    if (millis := lowered.get("retry-after-ms")) is not None:
        try:
            return max(float(millis) / 1000, 0.0)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is None:
        return None
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def backoff_delay(attempt: int, policy: RetryPolicy, rng: random.Random) -> float:
    """Jittered exponential backoff after failed attempt number `attempt` (1-based)."""
    ceiling = min(policy.max_delay_s, policy.base_delay_s * 2 ** (attempt - 1))
    return rng.uniform(ceiling / 2, ceiling)


async def _send_once(send: Callable[[], Awaitable[T]], deadline: float) -> T:
    loop = asyncio.get_running_loop()
    # The guard covers everything in `send` (queueing for a slot, slow bodies), not just
    # the HTTP client's per-phase timeouts.
    async with asyncio.timeout_at(loop.time() + (deadline - time.monotonic())):
        return await send()


def _delay_or_fail(
    error: ProviderCallError,
    attempt: int,
    policy: RetryPolicy,
    rng: random.Random,
    deadline: float,
) -> float:
    """The wait before the next retry, or raise CallFailedError when waiting cannot help."""
    extra = attempt - 1
    if attempt >= policy.max_attempts:
        raise CallFailedError(error.kind, error.message, extra)
    remaining = deadline - time.monotonic()
    if error.retry_after_s is not None:
        if error.retry_after_s >= remaining:
            message = f"{error.message}; Retry-After {error.retry_after_s:g}s exceeds the deadline"
            raise CallFailedError("rate_limited", message, extra)
        return error.retry_after_s
    delay = backoff_delay(attempt, policy, rng)
    if delay >= remaining:
        raise CallFailedError(error.kind, f"{error.message}; no time left to retry", extra)
    return delay


async def send_with_retries(
    send: Callable[[], Awaitable[T]],
    *,
    deadline: float,
    policy: RetryPolicy,
    rng: random.Random,
) -> tuple[T, int]:
    """Run `send()` until it succeeds; return its value and the number of extra requests."""
    attempt = 0
    while True:
        if time.monotonic() >= deadline:
            raise CallFailedError("deadline", "the deadline passed", max(attempt - 1, 0))
        attempt += 1
        try:
            return await _send_once(send, deadline), attempt - 1
        except TimeoutError:
            raise CallFailedError("deadline", "the deadline passed", attempt - 1) from None
        except ProviderCallError as error:
            if error.kind == "timeout" and time.monotonic() >= deadline:
                raise CallFailedError("deadline", "the deadline passed", attempt - 1) from None
            if error.kind not in RETRYABLE_KINDS:
                raw = error.raw_output
                raise CallFailedError(error.kind, error.message, attempt - 1, raw) from None
            delay = _delay_or_fail(error, attempt, policy, rng, deadline)
            if error.kind == "rate_limited":
                await announce_wait(delay)
            await asyncio.sleep(delay)
