"""A serving process and a worker freeze what their start-up built, so full collections stop
walking it; an app or worker started by tests (many in one process) does not."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from app import cli, main, worker
from app.config import Settings
from tests.batches.support import redis_server
from tests.support.live import LiveApp


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """The test process's heap as it was: nothing frozen before or after."""
    gc.unfreeze()
    yield
    gc.unfreeze()


async def test_the_serving_app_freezes_the_heap_once_started(
    unfrozen: None, settings_factory: Callable[..., Settings]
) -> None:
    built = main.create_app(settings_factory())
    async with LiveApp(built):
        assert gc.get_freeze_count() == 0

    serving = main.serving_app(settings_factory())
    assert gc.get_freeze_count() == 0  # building it is not starting it
    async with LiveApp(serving):
        # The start-up's objects are frozen: the app's own state among them.
        assert gc.get_freeze_count() > 10_000


def test_serve_runs_the_serving_app_in_one_process_or_several(
    monkeypatch: pytest.MonkeyPatch, settings_factory: Callable[..., Settings]
) -> None:
    settings = settings_factory()
    monkeypatch.setenv("FAIRPAIR_SERVE_WORKERS", "1")  # `--workers 2` sets it: put back after
    monkeypatch.setattr(cli, "get_settings", lambda: settings)
    made: list[Settings | None] = []

    def serving_app(settings: Settings | None = None) -> str:
        made.append(settings)
        return "serving app"

    monkeypatch.setattr(main, "serving_app", serving_app)
    runs: list[tuple[Any, dict[str, Any]]] = []
    monkeypatch.setattr(uvicorn, "run", lambda app, **options: runs.append((app, options)))
    monkeypatch.setattr(cli, "check_workers", lambda *_: None)

    assert CliRunner().invoke(cli.app, ["serve"]).exit_code == 0
    assert CliRunner().invoke(cli.app, ["serve", "--workers", "2"]).exit_code == 0

    assert made == [settings]
    assert runs[0][0] == "serving app"
    assert runs[1][0] == "app.main:serving_app"
    assert runs[1][1]["factory"] is True


async def frozen_within(seconds: float) -> bool:
    """Whether this process's heap is frozen within `seconds`."""
    for _ in range(int(seconds / 0.05)):
        if gc.get_freeze_count() > 10_000:
            return True
        await asyncio.sleep(0.05)
    return gc.get_freeze_count() > 10_000


async def test_a_worker_freezes_the_heap_once_started_when_its_process_says_so(
    unfrozen: None, settings_factory: Callable[..., Settings]
) -> None:
    with redis_server() as redis:
        settings = settings_factory(redis_url=redis.url)
        for freeze_heap in (False, True):
            stop = asyncio.Event()
            running = asyncio.create_task(
                worker.run_worker(settings, 2, stop, freeze_heap=freeze_heap)
            )
            # Its start-up takes well under a second here; a frozen heap would show by then.
            assert await frozen_within(30 if freeze_heap else 1) is freeze_heap
            stop.set()
            await asyncio.wait_for(running, timeout=30)


def test_the_worker_command_freezes_its_heap(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[dict[str, Any]] = []

    async def run_worker(*_args: Any, **options: Any) -> None:
        calls.append(options)

    monkeypatch.setattr(worker, "run_worker", run_worker)
    worker.main(Settings(secret_key="x" * 64, redis_url="redis://127.0.0.1:1/0"), 2)
    assert calls == [{"freeze_heap": True}]
