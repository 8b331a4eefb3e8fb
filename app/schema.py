"""Bring a database to the latest schema with the Alembic migrations."""

from __future__ import annotations

import asyncio
from pathlib import Path

from alembic import command
from alembic.config import Config

ROOT = Path(__file__).resolve().parent.parent


def alembic_config(database_url: str) -> Config:
    """The project's Alembic config aimed at `database_url`."""
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = database_url
    config.attributes["configure_logging"] = False
    return config


def upgrade(database_url: str, revision: str = "head") -> None:
    """Run the migrations up to `revision` (blocking; env.py runs its own event loop)."""
    command.upgrade(alembic_config(database_url), revision)


def downgrade(database_url: str, revision: str = "base") -> None:
    """Run the migrations down to `revision`."""
    command.downgrade(alembic_config(database_url), revision)


async def upgrade_async(database_url: str) -> None:
    """`upgrade` from inside a running event loop."""
    await asyncio.to_thread(upgrade, database_url)
