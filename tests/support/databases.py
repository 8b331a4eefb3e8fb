"""Throw-away PostgreSQL databases for tests: one migrated template, cheap copies of it."""

from __future__ import annotations

import os
import uuid

import asyncpg

from app.schema import upgrade
from tests.support.provision import DEFAULT_POSTGRES

# scripts/test names a throwaway server here when nothing answers at the one named.
SERVER_URL = os.environ.get("FAIRPAIR_TEST_POSTGRES", DEFAULT_POSTGRES)


def sqlalchemy_url(name: str) -> str:
    """The asyncpg SQLAlchemy URL of a test database."""
    return SERVER_URL.replace("postgresql://", "postgresql+asyncpg://", 1) + "/" + name


async def _admin(sql: str) -> None:
    connection = await asyncpg.connect(SERVER_URL + "/postgres")
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


async def create_database(template: str | None = None) -> str:
    """A new empty (or template-copied) database; returns its name."""
    name = f"fairpair_test_{uuid.uuid4().hex[:12]}"
    await _admin(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return name


async def drop_database(name: str) -> None:
    """Drop a test database, closing any connection left to it."""
    await _admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def create_migrated_template() -> str:
    """A database built by running the migrations, to copy per test run or process test."""
    import asyncio

    name = await create_database()
    await asyncio.to_thread(upgrade, sqlalchemy_url(name))
    return name
