"""Retry-After parsing, backoff, the deadline rules and the requests-per-minute limiter."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import UTC, datetime

import pytest

from app.judging.ratelimit import RATE_LIMIT_WAIT, RequestRateLimiter
from app.judging.retries import (
    CallFailedError,
    ProviderCallError,
    RetryPolicy,
    backoff_delay,
    parse_retry_after,
    send_with_retries,
)

NOW = datetime(2026, 1, 1, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("headers", "seconds"),
    [
        ({"Retry-After": "7"}, 7.0),
        ({"retry-after": "1.5"}, 1.5),
        ({"Retry-After": "Thu, 01 Jan 2026 12:00:30 GMT"}, 30.0),
        ({"Retry-After": "Thu, 01 Jan 2026 11:00:00 GMT"}, 0.0),
        ({"retry-after-ms": "250", "Retry-After": "9"}, 0.25),
        ({"Retry-After": "soon"}, None),
        ({}, None),
    ],
)
def test_retry_after_is_read_from_seconds_dates_and_milliseconds(
    headers: dict[str, str], seconds: float | None
) -> None:
    assert parse_retry_after(headers, now=NOW) == seconds


def test_backoff_grows_exponentially_with_jitter_and_a_cap() -> None:
    policy, rng = RetryPolicy(base_delay_s=1.0, max_delay_s=5.0), random.Random(1)
    for attempt, ceiling in [(1, 1.0), (2, 2.0), (3, 4.0), (4, 5.0), (9, 5.0)]:
        delays = [backoff_delay(attempt, policy, rng) for _ in range(50)]
        assert all(ceiling / 2 <= d <= ceiling for d in delays)
        assert len(set(delays)) > 1


async def test_backoff_that_would_pass_the_deadline_gives_up_with_the_last_error() -> None:
    calls = 0

    async def failing() -> str:
        nonlocal calls
        calls += 1
        raise ProviderCallError("server_error", "HTTP 500")

    with pytest.raises(CallFailedError) as failure:
        await send_with_retries(
            failing,
            deadline=time.monotonic() + 0.2,
            policy=RetryPolicy(max_attempts=10, base_delay_s=1.0),
            rng=random.Random(1),
        )
    assert (failure.value.kind, failure.value.extra_requests, calls) == ("server_error", 0, 1)


async def test_a_passed_deadline_sends_nothing() -> None:
    async def never() -> str:
        raise AssertionError("must not be called")

    with pytest.raises(CallFailedError) as failure:
        await send_with_retries(
            never, deadline=time.monotonic() - 1, policy=RetryPolicy(), rng=random.Random(1)
        )
    assert failure.value.kind == "deadline"


async def test_transient_failures_are_counted_as_extra_requests() -> None:
    answers: list[ProviderCallError | str] = [
        ProviderCallError("server_error", "HTTP 500"),
        ProviderCallError("connection", "reset", retry_after_s=0.01),
        "ok",
    ]

    async def flaky() -> str:
        answer = answers.pop(0)
        if isinstance(answer, ProviderCallError):
            raise answer
        return answer

    value, extra = await send_with_retries(
        flaky,
        deadline=time.monotonic() + 3,
        policy=RetryPolicy(base_delay_s=0.01),
        rng=random.Random(1),
    )
    assert (value, extra) == ("ok", 2)


async def test_rate_limiter_holds_requests_beyond_the_per_minute_budget() -> None:
    clock, slept = [1000.0], []

    async def fake_sleep(seconds: float) -> None:
        slept.append(seconds)
        clock[0] += seconds

    limiter = RequestRateLimiter(rpm=2, clock=lambda: clock[0], sleep=fake_sleep)
    await limiter.acquire()
    clock[0] += 10
    await limiter.acquire()
    assert slept == []
    await limiter.acquire()
    assert slept == [pytest.approx(50.0, abs=0.01)]
    await limiter.acquire()
    assert slept[1] == pytest.approx(10.0, abs=0.01)


async def test_waits_on_a_rate_limit_are_announced_to_the_contexts_listener() -> None:
    """Issue 43: a batch shows `rate_limited_until` from these announcements (a 429's
    Retry-After, the rpm limiter's wait); other errors' backoff is not a rate limit."""
    heard: list[float] = []

    async def listener(until: float) -> None:
        heard.append(until - time.time())

    answers = iter(
        [
            ProviderCallError("rate_limited", "HTTP 429", retry_after_s=0.05),
            ProviderCallError("server_error", "HTTP 500"),
        ]
    )

    async def flaky() -> str:
        error = next(answers, None)
        if error is not None:
            raise error
        return "ok"

    token = RATE_LIMIT_WAIT.set(listener)
    try:
        answer = await send_with_retries(
            flaky,
            deadline=time.monotonic() + 10,
            policy=RetryPolicy(max_attempts=5, base_delay_s=0.01),
            rng=random.Random(1),
        )
        limiter = RequestRateLimiter(1, sleep=lambda _s: asyncio.sleep(0))
        await limiter.acquire()
        await limiter.acquire()  # the second start waits about a minute
    finally:
        RATE_LIMIT_WAIT.reset(token)
    assert answer == ("ok", 2)
    assert len(heard) == 2
    assert 0 < heard[0] <= 0.05
    assert 59 < heard[1] <= 60
