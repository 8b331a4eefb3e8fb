"""Bring a database to the latest schema with the Alembic migrations."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.exc import SQLAlchemyError

from app.db import create_engine

ROOT = Path(__file__).resolve().parent.parent


def migrations_home() -> Path:
    """Where `alembic.ini` and `migrations/` are: the source tree's (a checkout, an editable
    install), else what an installed fairpair carries under `{sys.prefix}/share/fairpair`."""
    if (ROOT / "migrations" / "env.py").is_file():
        return ROOT
    return Path(sys.prefix) / "share" / "fairpair"


def alembic_config(database_url: str) -> Config:
    """The project's Alembic config aimed at `database_url`."""
    home = migrations_home()
    config = Config(str(home / "alembic.ini"))
    config.set_main_option("script_location", str(home / "migrations"))
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


class NotMigratedError(RuntimeError):
    """The database is not at the schema this code expects (or does not answer)."""


async def check_migrated(database_url: str, timeout_s: float = 10) -> None:
    """Raise NotMigratedError, with a one-line reason, unless the database is at the migrations'
    head: a server started on an unmigrated database would fail on its first query with a
    traceback, or worse, serve some routes and not others."""
    head = ScriptDirectory.from_config(alembic_config(database_url)).get_current_head()
    engine = create_engine(database_url, timeout_s)
    try:
        async with engine.connect() as connection:
            current = await connection.run_sync(
                lambda sync: MigrationContext.configure(sync).get_current_revision()
            )
    except (OSError, TimeoutError, SQLAlchemyError) as exc:
        # The class only: a driver's message may quote the URL, password included.
        raise NotMigratedError(f"the database does not answer ({type(exc).__name__})") from exc
    finally:
        await engine.dispose()
    if current != head:
        raise NotMigratedError(
            f"the database is at migration {current or 'none'}, this code needs {head}: "
            "run `fairpair migrate` first"
        )
