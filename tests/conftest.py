"""Shared fixtures: a migrated PostgreSQL per run, the app in process, keys, the sim judge."""

from __future__ import annotations

import os
import textwrap
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import text

from app.auth.keys import create_key
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.main import create_app
from tests.support.databases import (
    create_database,
    create_migrated_template,
    drop_database,
    sqlalchemy_url,
)
from tests.support.live import LiveApp

# pytester runs the watchdog's own test; the watchdog limits every test (tests/support/watchdog.py).
pytest_plugins = ["pytester", "tests.support.watchdog"]

# 256 bits, hex: what FAIRPAIR_SECRET_KEY must carry (app/config.py check_secret_key).
TEST_SECRET_KEY = "0123456789abcdef" * 4

TABLES = (
    "judge_calls, comparison_tags, comparisons, judge_versions, judges, api_keys, "
    "scores, score_calls, score_responses, score_session_tags, score_sessions, "
    "batch_items, batches, labels, call_rollup, judge_observations, observation_rollup, "
    "length_rollup, call_tag_rollup, observation_tag_rollup, length_tag_rollup, "
    "dashboard_sessions, instance_secrets, canary_runs, "
    "canary_judges, canary_items, canaries, experiments"
)


@pytest.fixture(scope="session")
async def pg_template() -> AsyncIterator[str]:
    """A database migrated once per run; copies of it are cheap."""
    name = await create_migrated_template()
    yield name
    await drop_database(name)


@pytest.fixture(scope="session")
async def pg_url(pg_template: str) -> AsyncIterator[str]:
    """The run's database for in-process tests (emptied after each test that uses it)."""
    name = await create_database(template=pg_template)
    yield sqlalchemy_url(name)
    await drop_database(name)


@pytest.fixture
async def clean_pg(pg_url: str) -> AsyncIterator[str]:
    """The run's database, emptied after the test."""
    yield pg_url
    engine = create_engine(pg_url)
    async with engine.begin() as conn:
        await conn.execute(text(f"TRUNCATE {TABLES} RESTART IDENTITY CASCADE"))
    await engine.dispose()


@pytest.fixture
async def own_pg(pg_template: str) -> AsyncIterator[str]:
    """A database of the test's own, for tests that run the server as a process."""
    name = await create_database(template=pg_template)
    yield sqlalchemy_url(name)
    await drop_database(name)


def write_judges_file(directory: Path, body: str) -> Path:
    """A judges file with `body` as its TOML."""
    path = directory / "judges.toml"
    path.write_text(textwrap.dedent(body))
    return path


SIM_JUDGES = """
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-a"

[[judges]]
name = "sim-b"
provider = "sim"
model = "sim-b"
"""


def pytest_configure(config: pytest.Config) -> None:
    """The card's automatic runs (on by default) would add a battery per judge to every ticking
    test and every served process the tests start: off unless a test turns them on
    (tests/cards/test_card_auto.py); the processes inherit the variable."""
    os.environ.setdefault("FAIRPAIR_CARD_AUTO", "false")


@pytest.fixture
def settings_factory(clean_pg: str, tmp_path: Path) -> Callable[..., Settings]:
    """Settings on the run's PostgreSQL with two sim judges, overridable per test."""

    def make(judges_toml: str = SIM_JUDGES, **overrides: Any) -> Settings:
        values: dict[str, Any] = {
            "database_url": clean_pg,
            "secret_key": TEST_SECRET_KEY,
            "judges_file": write_judges_file(tmp_path, judges_toml),
            "sweep_interval_s": 3600,
        }
        values.update(overrides)
        return Settings(**values)

    return make


@pytest.fixture
async def live_factory() -> AsyncIterator[Callable[..., Any]]:
    """Start apps in process; each gets a client and is stopped at the end of the test."""
    stack: list[tuple[LiveApp, httpx2.AsyncClient]] = []

    async def start(settings: Settings, **kwargs: Any) -> httpx2.AsyncClient:
        live = LiveApp(create_app(settings, **kwargs))
        await live.__aenter__()
        # A loopback Host: with auth off the app serves no other (app/auth/hosts.py).
        client = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=live), base_url="http://127.0.0.1", timeout=60
        )
        stack.append((live, client))
        return client

    yield start
    for live, client in reversed(stack):
        await client.aclose()
        await live.__aexit__(None, None, None)


@pytest.fixture
async def client(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app on PostgreSQL with sim judges, auth on."""
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    return client


async def make_key(database_url: str, name: str, scopes: list[str]) -> dict[str, str]:
    """Authorization headers for a new key with `scopes`."""
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        token = await create_key(session, name, scopes)
    await engine.dispose()
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
async def admin(clean_pg: str) -> dict[str, str]:
    """Headers of an admin key."""
    return await make_key(clean_pg, "admin", ["admin"])


@pytest.fixture
async def reader(clean_pg: str) -> dict[str, str]:
    """Headers of a read-only key."""
    return await make_key(clean_pg, "reader", ["read"])


@pytest.fixture
async def comparer(clean_pg: str) -> dict[str, str]:
    """Headers of a key with compare and read."""
    return await make_key(clean_pg, "comparer", ["compare", "read"])
