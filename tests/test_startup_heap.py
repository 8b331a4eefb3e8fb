"""A serving process freezes what its start-up built, so full collections stop walking it; an
app started by tests (many in one process) does not."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from typer.testing import CliRunner

from app import cli, main
from app.config import Settings
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
