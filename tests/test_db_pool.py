"""Pooled PostgreSQL connections are pinged only after sitting idle (app/db.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from app import db
from app.db import create_engine
from tests.support.proxy import TcpProxy, proxied_database


@pytest.fixture
async def proxied_pg(clean_pg: str) -> AsyncIterator[tuple[TcpProxy, str]]:
    """A proxy in front of PostgreSQL, and the test database's URL through it."""
    proxy, url = await proxied_database(clean_pg)
    yield proxy, url
    await proxy.close()


async def backend_pid(engine: AsyncEngine) -> int:
    async with engine.connect() as conn:
        return int((await conn.execute(text("SELECT pg_backend_pid()"))).scalar_one())


async def terminate(engine: AsyncEngine, pid: int) -> None:
    """End one server process, as a PostgreSQL restart or an idle-timeout would."""
    async with engine.connect() as conn:
        await conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid})


async def test_a_connection_idle_past_the_threshold_is_pinged_and_replaced(
    clean_pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, other = create_engine(clean_pg), create_engine(clean_pg)
    try:
        pid = await backend_pid(engine)  # the pool now holds this one connection
        await terminate(other, pid)
        monkeypatch.setattr(db, "IDLE_BEFORE_PING_S", 0.0)

        assert await backend_pid(engine) != pid  # no error: the ping failed, a fresh one came
    finally:
        await engine.dispose()
        await other.dispose()


async def test_a_connection_used_moments_ago_is_not_pinged_and_one_statement_hears_the_loss(
    clean_pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine, other = create_engine(clean_pg), create_engine(clean_pg)
    try:
        pid = await backend_pid(engine)
        await terminate(other, pid)
        monkeypatch.setattr(db, "IDLE_BEFORE_PING_S", 3600.0)

        with pytest.raises(OperationalError) as lost:
            await backend_pid(engine)
        assert lost.value.connection_invalidated
        assert await backend_pid(engine) != pid  # the pool was refreshed: the next one works
    finally:
        await engine.dispose()
        await other.dispose()


async def test_after_a_failed_connect_every_older_pooled_connection_is_pinged_first(
    proxied_pg: tuple[TcpProxy, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An outage first seen by a connect (refused) invalidated nothing in the pool, so once the
    server was back the connections returned just before it were handed out unpinged, and the
    first write after recovery failed though `/readyz` had said 200 (issue 36, 2 of 30 stress
    runs of `test_database_outage_is_503_and_the_same_process_recovers`)."""
    proxy, url = proxied_pg
    monkeypatch.setattr(db, "IDLE_BEFORE_PING_S", 3600.0)  # never stale by idling, here
    engine = create_engine(url, timeout_s=10)
    try:
        pid = await backend_pid(engine)  # one connection, back in the pool
        await proxy.close()  # it dies with the proxy's connections
        async with engine.connect() as held:  # the pooled one, unused, while the server is gone
            with pytest.raises((OperationalError, OSError)):
                async with engine.connect():  # the pool is empty: a connect, refused
                    pass
            await held.close()
        await proxy.open()
        assert await backend_pid(engine) != pid  # pinged, replaced: no error
    finally:
        await engine.dispose()


async def test_a_connect_the_server_refuses_is_an_operational_error(clean_pg: str) -> None:
    """A server refusing a connection ("too many clients" under load, or a database that takes
    none) raised a bare DBAPIError, which the API answered 500 and batch workers logged as a bug
    (seen in a full suite run beside a soak); it is an outage: OperationalError, so 503."""
    name = clean_pg.rsplit("/", 1)[1]
    other = create_engine(clean_pg.rsplit("/", 1)[0] + "/postgres")
    engine = create_engine(clean_pg)
    try:
        async with other.connect() as conn:
            await conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS false'))
            await conn.commit()
        with pytest.raises(OperationalError, match="not currently accepting connections"):
            await backend_pid(engine)
    finally:
        async with other.connect() as conn:
            await conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS true'))
            await conn.commit()
        await engine.dispose()
        await other.dispose()
