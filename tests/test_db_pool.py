"""Pooled PostgreSQL connections are pinged only after sitting idle (app/db.py)."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import OperationalError
from sqlalchemy.ext.asyncio import AsyncEngine

from app import db
from app.db import create_engine


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
