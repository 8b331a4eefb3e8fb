"""The loops beside the work stop when asked, even when a driver wraps the cancellation."""

from __future__ import annotations

import asyncio

from app.background import running, survive


class DriverError(Exception):
    """What a database driver raises in place of the cancellation it was interrupted by."""


async def test_a_loop_whose_driver_wraps_the_cancellation_still_stops() -> None:
    rounds: list[str] = []

    async def step() -> None:
        try:
            await asyncio.sleep(3600)  # a query in flight when the process stops
        except asyncio.CancelledError as exc:
            raise DriverError("cancelled mid-query") from exc

    async def loop() -> None:
        while True:
            try:
                await step()
            except Exception as exc:
                survive(exc)
                rounds.append(type(exc).__name__)  # an outage: the loop would go on

    task = asyncio.create_task(loop())
    await asyncio.sleep(0.05)
    task.cancel()
    # Without survive() the loop swallows the wrapped cancellation and goes on: `running`, which
    # cancels and then awaits it, would wait forever.
    await asyncio.wait({task}, timeout=30)
    assert task.cancelled()
    assert rounds == []


async def test_an_outage_does_not_stop_the_loop() -> None:
    failures: list[str] = []
    three = asyncio.Event()

    async def loop() -> None:
        while True:
            try:
                raise DriverError("connection refused")
            except Exception as exc:
                survive(exc)
                failures.append(str(exc))
            if len(failures) == 3:
                three.set()
            await asyncio.sleep(0)

    async with running(loop()):
        await three.wait()
    assert failures[:3] == ["connection refused"] * 3
