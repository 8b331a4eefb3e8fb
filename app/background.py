"""Loops a process runs beside its work (the sweeper, the reconciler), for as long as it runs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Coroutine
from typing import Any


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
