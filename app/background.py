"""Loops a process runs beside its work (the sweeper, the reconciler), for as long as it runs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


def survive(exc: Exception) -> None:
    """Let a loop beside the work go on after `exc`, unless the loop is being stopped.

    Every such loop catches `Exception` so that an outage does not end it. A database driver may
    wrap the cancellation `running` sends in an error of its own (SQLAlchemy's asyncpg dialect
    does), which that `except` would then swallow, and the loop would go on while `running`
    waits for it forever. Called first in every such `except`.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError from exc


@contextlib.asynccontextmanager
async def running(loop: Coroutine[Any, Any, None]) -> AsyncIterator[None]:
    """Run `loop` as a task while the block runs; cancel it (and wait for it) on the way out."""
    task = asyncio.create_task(loop)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
