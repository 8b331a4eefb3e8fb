"""The one migration history runs up, down and up again on both backends."""

from __future__ import annotations

import asyncio
from pathlib import Path

from sqlalchemy import inspect

from app.db import create_engine
from app.models import Base
from app.schema import downgrade, upgrade
from tests.support.databases import create_database, drop_database, sqlalchemy_url


async def table_names(url: str) -> set[str]:
    engine = create_engine(url)
    async with engine.connect() as conn:
        names = await conn.run_sync(lambda sync: set(inspect(sync).get_table_names()))
    await engine.dispose()
    return names - {"alembic_version"}


async def roundtrip(url: str) -> None:
    await asyncio.to_thread(upgrade, url)
    assert await table_names(url) == set(Base.metadata.tables)
    await asyncio.to_thread(downgrade, url)
    assert await table_names(url) == set()
    await asyncio.to_thread(upgrade, url)
    assert await table_names(url) == set(Base.metadata.tables)


async def test_migrations_upgrade_downgrade_upgrade_on_postgresql() -> None:
    name = await create_database()
    try:
        await roundtrip(sqlalchemy_url(name))
    finally:
        await drop_database(name)


async def test_migrations_upgrade_downgrade_upgrade_on_sqlite(tmp_path: Path) -> None:
    await roundtrip(f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}")
