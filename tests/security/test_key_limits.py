"""Per-key limits hold across replicas (counted in Redis); unknown key ids cost one query."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest
from sqlalchemy import event
from sqlalchemy.engine import Engine

from app.auth.keys import KeyCache, hash_secret
from app.auth.models import ApiKey
from app.auth.ratelimit import KeyRateLimiter
from app.batches.ratelimit import shared_storage
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from tests.batches.support import RedisServer, redis_server
from tests.support.processes import free_port

UNKNOWN = {"Authorization": "Bearer fp_0123456789ab_" + "5" * 64}


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of the test's own (asked for before `live_factory`: it outlives the apps)."""
    with redis_server() as redis:
        yield redis


@pytest.fixture
def statements() -> Iterator[list[str]]:
    """Every SQL statement any engine of this process sends while the test runs."""
    sent: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    yield sent
    event.remove(Engine, "before_cursor_execute", record)


async def test_two_replicas_sharing_redis_admit_the_per_key_limit_together(
    own_redis: RedisServer,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
    comparer: dict[str, str],
) -> None:
    settings = settings_factory(redis_url=own_redis.url, rate_limit_per_minute=5)
    replicas = [await live_factory(settings), await live_factory(settings)]
    statuses = [
        (await replica.get("/v1/judges", headers=reader)).status_code
        for _ in range(6)
        for replica in replicas
    ]
    assert statuses == [200] * 5 + [429] * 7
    limited = await replicas[1].get("/v1/judges", headers=reader)
    assert limited.json()["type"] == "rate-limited"
    assert 1 <= int(limited.headers["retry-after"]) <= 60
    # Each key has its own budget.
    assert (await replicas[0].get("/v1/judges", headers=comparer)).status_code == 200


async def test_without_redis_the_limit_is_counted_in_process() -> None:
    unreachable = shared_storage(f"redis://127.0.0.1:{free_port()}/0")
    limiter = KeyRateLimiter(2, unreachable)
    waits = [await limiter.retry_after("k1") for _ in range(3)]
    assert waits[:2] == [None, None]
    assert waits[2] is not None
    assert waits[2] >= 1
    assert await limiter.retry_after("k2") is None


async def test_an_unknown_key_id_is_answered_from_memory_after_the_first_miss(
    client: httpx2.AsyncClient, statements: list[str], reader: dict[str, str]
) -> None:
    def key_lookups() -> int:
        return sum("FROM api_keys" in statement for statement in statements)

    first = await client.get("/v1/judges", headers=UNKNOWN)
    assert first.status_code == 401
    assert key_lookups() == 1
    for _ in range(3):
        again = await client.get("/v1/judges", headers=UNKNOWN)
        assert again.status_code == 401
        assert again.json()["type"] == "unauthorized"
    assert key_lookups() == 1
    # A known key is still looked up (once) and served.
    assert (await client.get("/v1/judges", headers=reader)).status_code == 200
    assert key_lookups() == 2


async def test_a_key_stored_after_its_id_was_missed_works_once_the_miss_expires(
    clean_pg: str,
) -> None:
    now = [1000.0]
    cache = KeyCache(ttl_s=30, clock=lambda: now[0])
    token = "fp_00aa11bb22cc_" + "7" * 64
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        assert await cache.verify(session, token) is None
        session.add(
            ApiKey(
                id="00aa11bb22cc", name="late", secret_sha256=hash_secret("7" * 64), scopes=["read"]
            )
        )
        await session.commit()
        assert await cache.verify(session, token) is None  # the miss is remembered
        now[0] += 30
        principal = await cache.verify(session, token)
    await engine.dispose()
    assert principal is not None
    assert principal.key_id == "00aa11bb22cc"
