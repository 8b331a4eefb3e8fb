"""The shared `clean_pg`, also emptying the observation and tag rollups (the run-wide
fixture's list of tables predates them), before the test as well: tests elsewhere leave their
folds behind."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import text

from app.db import create_engine

ROLLUPS = "observation_rollup, length_rollup, call_tag_rollup"


async def empty_rollups(url: str) -> None:
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.execute(text(f"TRUNCATE {ROLLUPS}"))
    await engine.dispose()


@pytest.fixture
async def clean_pg(clean_pg: str) -> AsyncIterator[str]:
    """The run's database with empty observation and tag rollups, emptied after the test."""
    await empty_rollups(clean_pg)
    yield clean_pg
    await empty_rollups(clean_pg)
