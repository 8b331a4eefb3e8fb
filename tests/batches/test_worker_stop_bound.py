"""A stopped worker exits within a bound even when its receiver never returns (issue 36).

Seen once in a CI stress run of `tests/hardening/test_redis_outage.py`: after Redis was killed and
restarted, taskiq's receiver stayed in a read that neither `stop` nor a cancellation ended, and
the worker (and the test) waited forever. `listen_until_stopped` gives it its bound, then leaves
it behind.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

from taskiq.receiver import Receiver

from app.worker import listen_until_stopped


class StuckReceiver:
    """Ignores `stop`, and once cancelled waits again for what never comes, as the stuck read."""

    def __init__(self) -> None:
        self.cancelled = False

    async def listen(self, stop: asyncio.Event) -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled = True
            await asyncio.Event().wait()


class PoliteReceiver:
    async def listen(self, stop: asyncio.Event) -> None:
        await stop.wait()


async def test_a_receiver_that_never_returns_is_cancelled_then_left_behind() -> None:
    receiver, stop = StuckReceiver(), asyncio.Event()
    stop.set()
    async with asyncio.timeout(60):  # the test's own bound; the product's is 0.1 s + 5 s
        await listen_until_stopped(cast(Receiver, cast(Any, receiver)), stop, bound_s=0.1)
    assert receiver.cancelled


async def test_a_receiver_that_returns_on_stop_is_awaited_whole() -> None:
    stop = asyncio.Event()
    listening = asyncio.create_task(
        listen_until_stopped(cast(Receiver, cast(Any, PoliteReceiver())), stop, bound_s=0.1)
    )
    await asyncio.sleep(0)
    assert not listening.done()
    stop.set()
    async with asyncio.timeout(60):
        await listening
