"""How often a process reads the judges' current revisions (issue 20): once per `judge_refresh_s`,
at once after its own change or for a judge it has not seen, never a stale view for longer."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sqlalchemy import event, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.errors import ValidationProblem
from app.judges import service
from app.judges.models import Judge
from app.judges.registry import JudgeRegistry
from app.judges.schemas import JudgeCreate


@pytest.fixture
async def maker(clean_pg: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(clean_pg)
    yield create_sessionmaker(engine)
    await engine.dispose()


def revision_reads(maker: async_sessionmaker[AsyncSession]) -> list[int]:
    """A counter of the statements that read the judges' current revisions."""
    reads = [0]
    engine: Any = maker.kw["bind"]

    @event.listens_for(engine.sync_engine, "before_cursor_execute")
    def _count(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        reads[0] += statement.startswith(
            "SELECT judges.name, judges.current_version, judges.revision \nFROM"
        )

    return reads


async def started(
    settings: Settings, maker: async_sessionmaker[AsyncSession]
) -> AsyncIterator[JudgeRegistry]:
    registry = JudgeRegistry(settings, maker)
    await registry.start()
    try:
        yield registry
    finally:
        await registry.aclose()


async def resolve(registry: JudgeRegistry, maker: async_sessionmaker[AsyncSession]) -> Any:
    async with maker() as session:
        panel, _defaults = await registry.resolve_panel(session, ["sim-a"])
    return panel[0]


async def bump_revision(maker: async_sessionmaker[AsyncSession], name: str) -> None:
    """Another process's change: the row's revision moves on."""
    async with maker() as session:
        await session.execute(
            update(Judge).where(Judge.name == name).values(revision=Judge.revision + 1)
        )
        await session.commit()


async def test_revisions_are_read_once_per_window_and_at_once_after_our_own_change(
    settings_factory: Callable[..., Settings], maker: async_sessionmaker[AsyncSession]
) -> None:
    reads = revision_reads(maker)
    async for registry in started(settings_factory(judge_refresh_s=60), maker):
        for _ in range(5):
            await resolve(registry, maker)
        assert reads[0] == 1
        registry.changed()
        await resolve(registry, maker)
        assert reads[0] == 2


async def test_a_judge_this_process_has_not_seen_is_looked_up_at_once(
    settings_factory: Callable[..., Settings], maker: async_sessionmaker[AsyncSession]
) -> None:
    settings = settings_factory(judge_refresh_s=60)
    async for registry in started(settings, maker):
        await resolve(registry, maker)
        async with maker() as session:  # created by another process a moment ago
            body = JudgeCreate(name="newcomer", provider="sim", model="m")
            await service.create_judge(session, body, source="api", secret_key=settings.secret_key)
        async with maker() as session:
            panel, _ = await registry.resolve_panel(session, ["newcomer"])
            assert panel[0].name == "newcomer"
            with pytest.raises(ValidationProblem, match="unknown or retired judge 'nobody'"):
                await registry.resolve_panel(session, ["nobody"])


async def test_another_process_change_is_seen_once_the_window_passed(
    settings_factory: Callable[..., Settings], maker: async_sessionmaker[AsyncSession]
) -> None:
    async for registry in started(settings_factory(judge_refresh_s=0.3), maker):
        before = (await resolve(registry, maker)).revision
        await bump_revision(maker, "sim-a")
        assert (await resolve(registry, maker)).revision == before  # within the window
        await asyncio.sleep(0.35)
        assert (await resolve(registry, maker)).revision == before + 1


async def test_zero_reads_the_revisions_on_every_request(
    settings_factory: Callable[..., Settings], maker: async_sessionmaker[AsyncSession]
) -> None:
    reads = revision_reads(maker)
    async for registry in started(settings_factory(judge_refresh_s=0), maker):
        before = (await resolve(registry, maker)).revision
        await bump_revision(maker, "sim-a")
        assert (await resolve(registry, maker)).revision == before + 1
        assert reads[0] == 2
