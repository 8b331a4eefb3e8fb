"""A body over the normal limit is read only for a key that may send one, and never stalls the loop.

`POST /v1/batches` takes bodies up to `FAIRPAIR_MAX_BATCH_BYTES`: the middleware checks the key
and its scope before it reads such a body, validation stops at the item cap, a large body is
checked in a worker thread, and requests that fail authentication are throttled per client.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest

import app.middleware
from app.auth.ratelimit import FailedAuthThrottle, client_network
from app.batches.schemas import BATCH_ITEMS_CAP
from app.config import Settings
from tests.batches.support import compare_item
from tests.conftest import make_key

NORMAL_LIMIT = 4_000
CHUNK = b" " * 1_000
# Deadlock guard only (a check that ran on the loop would never be released): not a timing.
GUARD_S = 30


class CountedBody:
    """A streamed (chunked) request body that counts the chunks the server pulled from it."""

    def __init__(self, chunks: int) -> None:
        self.chunks = chunks
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'{"items": ['
        for _ in range(self.chunks):
            self.pulled += 1
            yield CHUNK
        yield b"]}"


@pytest.fixture
async def batches(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with a small normal body limit and a 3 MB batch limit."""
    settings = settings_factory(max_body_bytes=NORMAL_LIMIT, max_batch_bytes=3_000_000)
    client: httpx2.AsyncClient = await live_factory(settings)
    return client


async def test_a_large_body_without_a_key_is_401_before_any_of_it_is_read(
    batches: httpx2.AsyncClient,
) -> None:
    body = CountedBody(chunks=1_000)
    answer = await batches.post("/v1/batches", content=body)
    assert answer.status_code == 401, answer.text
    assert answer.json()["type"] == "unauthorized"
    assert body.pulled == 0


async def test_a_large_declared_body_with_an_unknown_key_is_401_unread(
    batches: httpx2.AsyncClient,
) -> None:
    body = CountedBody(chunks=1_000)
    headers = {
        "Authorization": "Bearer fp_0123456789ab_" + "5" * 64,
        "Content-Length": str(1_000_013),
    }
    answer = await batches.post("/v1/batches", content=body, headers=headers)
    assert answer.status_code == 401, answer.text
    assert body.pulled == 0


async def test_a_large_body_with_a_read_key_is_403_before_any_of_it_is_read(
    batches: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    body = CountedBody(chunks=1_000)
    answer = await batches.post("/v1/batches", content=body, headers=reader)
    assert answer.status_code == 403, answer.text
    assert "'compare' or 'score'" in answer.json()["detail"]
    assert body.pulled == 0


async def test_a_small_body_with_a_read_key_is_403_too(
    batches: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    answer = await batches.post("/v1/batches", json={"items": [compare_item(0)]}, headers=reader)
    assert answer.status_code == 403, answer.text


async def test_a_large_body_with_a_compare_key_is_read_and_counted_once(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    settings = settings_factory(
        max_body_bytes=NORMAL_LIMIT, max_batch_bytes=3_000_000, rate_limit_per_minute=1
    )
    client = await live_factory(settings)
    comparer = await make_key(clean_pg, "comparer", ["compare"])
    items = [compare_item(i, prompt="x" * NORMAL_LIMIT) for i in range(2)]  # over the normal limit
    answer = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    # The middleware admitted the key; the route took its word rather than count it again.
    assert answer.status_code == 202, answer.text
    again = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    assert again.status_code == 429, again.text


async def test_a_body_past_the_item_cap_is_422_without_validating_the_items_past_it(
    batches: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    # Every item past the cap is invalid: validating any of them would report it.
    items: list[Any] = [compare_item(i) for i in range(BATCH_ITEMS_CAP)] + [1] * 5_000
    answer = await batches.post("/v1/batches", json={"items": items}, headers=comparer)
    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert [error["pointer"] for error in errors] == ["/items"]
    assert "at most 10000 items" in errors[0]["message"]


async def test_the_loop_serves_other_requests_while_a_large_body_is_checked(
    batches: httpx2.AsyncClient, comparer: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    loop = asyncio.get_running_loop()
    started, released = asyncio.Event(), threading.Event()
    check_body = app.middleware.check_body

    def held_check(headers: dict[bytes, bytes], body: bytes) -> Any:
        if len(body) <= app.middleware.OFF_LOOP_BYTES:
            return check_body(headers, body)
        loop.call_soon_threadsafe(started.set)
        # On the loop this would hold it, and /healthz below could not be answered.
        if not released.wait(GUARD_S):
            raise RuntimeError("the body check held the event loop")
        return check_body(headers, body)

    monkeypatch.setattr(app.middleware, "check_body", held_check)
    text = "x" * 90_000
    items = [compare_item(i, prompt=text) for i in range(12)]  # 1.08 MB
    posting = asyncio.create_task(
        batches.post("/v1/batches", json={"items": items}, headers=comparer)
    )
    await started.wait()
    health = await batches.get("/healthz")
    assert health.status_code == 200
    assert not posting.done()
    released.set()
    answer = await posting
    assert answer.status_code == 202, answer.text


async def test_requests_failing_authentication_past_the_budget_are_429(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(auth_failures_per_minute=3))
    unknown = {"Authorization": "Bearer fp_0123456789ab_" + "5" * 64}
    statuses = [(await client.get("/v1/judges", headers=unknown)).status_code for _ in range(3)]
    assert statuses == [401, 401, 401]
    throttled = await client.get("/v1/judges")
    assert throttled.status_code == 429
    assert throttled.json()["type"] == "rate-limited"
    assert 1 <= int(throttled.headers["retry-after"]) <= 60
    # A valid key is neither counted nor refused by it.
    assert (await client.get("/v1/judges", headers=reader)).status_code == 200


def test_the_throttle_counts_an_ipv6_host_by_its_64_and_forgets_the_oldest_clients() -> None:
    assert client_network("2001:db8:1:2::a") == client_network("2001:db8:1:2:ffff::1")
    assert client_network("2001:db8:1:3::a") != client_network("2001:db8:1:2::a")
    assert client_network("::ffff:192.0.2.1") == "192.0.2.1"
    throttle = FailedAuthThrottle(per_minute=1, max_clients=2)
    assert throttle.failed("192.0.2.1", now=0) is None
    assert throttle.failed("192.0.2.1", now=1) == 59
    throttle.failed("192.0.2.2", now=2)
    throttle.failed("192.0.2.3", now=3)  # the third client pushes out the first
    assert throttle.failed("192.0.2.1", now=4) is None
