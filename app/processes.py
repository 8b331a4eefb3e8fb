"""Child processes for work that would hold the event loop even in a thread.

CPython's `json.loads` (and pydantic-core's parser) holds the GIL for a whole parse: a thread does
not let the loop run meanwhile, a child process does. `ChildPool` is a small pool of them, started
on first use (a `forkserver` that has already imported the work's modules, so that a child starts
in milliseconds, and one replacing a killed one too), and every wait on it has a bound: a call past
`timeout_s` kills the pool's children (a hung parse holds nothing else) and a call whose child
died, or that was killed with it, raises `ChildUnavailable`; the next call starts a new pool.
What a call sends and returns is pickled: send bytes, return a small verdict.
"""

from __future__ import annotations

import asyncio
import multiprocessing
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

import structlog

from app.errors import ChildUnavailable

log = structlog.get_logger()
T = TypeVar("T")


class ChildPool:
    """Up to `workers` child processes, started on the first call; `close()` stops them."""

    def __init__(self, workers: int, timeout_s: float, preload: tuple[str, ...] = ()) -> None:
        self.workers = workers
        self.timeout_s = timeout_s
        self.preload = preload
        self._executor: ProcessPoolExecutor | None = None

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """`function(*args)` in a child; ChildUnavailable past the bound or if the child died."""
        executor = self._executor or self._start()
        try:
            async with asyncio.timeout(self.timeout_s):
                # Submitting may start a child (and, the first time, the forkserver, which
                # imports `preload`): that waits on the new process, so not on the loop.
                future: Future[T] = await asyncio.to_thread(executor.submit, function, *args)
                return await asyncio.wrap_future(future)
        except TimeoutError:
            self._discard(executor, "timeout")
            raise self._unavailable("took longer than its bound") from None
        except BrokenProcessPool:
            self._discard(executor, "child died")
            raise self._unavailable("was stopped") from None

    def close(self) -> None:
        """Stop the children (a check still running is cut off: its request is answered 503)."""
        if self._executor is not None:
            self._discard(self._executor, "closed")

    def _start(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(self.preload))
        self._executor = ProcessPoolExecutor(self.workers, mp_context=context)
        return self._executor

    def _discard(self, executor: ProcessPoolExecutor, reason: str) -> None:
        """Kill `executor`'s children (their calls fail at once) and start afresh next time."""
        if self._executor is executor:
            self._executor = None
        # No public way to stop a running child before Python 3.14 (`kill_workers`).
        processes = list((getattr(executor, "_processes", None) or {}).values())
        for process in processes:
            process.kill()
        executor.shutdown(wait=False, cancel_futures=True)
        if reason != "closed":
            log.warning("child_pool_discarded", reason=reason, children=len(processes))

    def _unavailable(self, what: str) -> ChildUnavailable:
        return ChildUnavailable(
            f"the child process checking the request {what}; retry", headers={"Retry-After": "5"}
        )
