"""A time limit per test phase that, when passed, prints every asyncio task's stack and every
thread's, and fails that phase at once (issue 36: a hung await used to sit until CI's outer
limit, with nothing said about where it waited).

The limit is `FAIRPAIR_TEST_TIME_LIMIT_S` seconds (default 300, generous: the slowest tests take
about a minute), or `@pytest.mark.time_limit(seconds)` on a test. It is armed with SIGALRM, so
its handler runs on the main thread, where the event loop of an async test is waiting: it finds
that loop's tasks and raises there, out of the loop's select. pytest's `faulthandler_timeout`
stays as the backstop for a main thread stuck in C code, where no Python handler can run.
"""

from __future__ import annotations

import asyncio
import io
import os
import signal
import sys
import threading
import traceback
from collections.abc import Iterator
from types import FrameType

import pytest

DEFAULT_LIMIT_S = 300.0


class TestTimeLimitExceeded(Exception):
    """A test phase ran past its time limit; the message carries every stack."""

    __test__ = False  # not a test class, whatever its name


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "time_limit(seconds): this test's own limit per phase (tests/support/watchdog)"
    )


def limit_of(item: pytest.Item) -> float:
    """The phase limit of `item` in seconds (0 turns the watchdog off)."""
    marker = item.get_closest_marker("time_limit")
    if marker is not None:
        return float(marker.args[0])
    return float(os.environ.get("FAIRPAIR_TEST_TIME_LIMIT_S", DEFAULT_LIMIT_S))


def stacks() -> str:
    """Every asyncio task of the main thread's running loop, then every thread, as text."""
    out = io.StringIO()
    loop = asyncio._get_running_loop()
    tasks = asyncio.all_tasks(loop) if loop is not None else set()
    out.write(f"--- {len(tasks)} asyncio tasks ---\n")
    for task in sorted(tasks, key=lambda task: task.get_name()):
        task.print_stack(file=out)
    frames = sys._current_frames()
    out.write(f"--- {len(frames)} threads ---\n")
    names = {thread.ident: thread.name for thread in threading.enumerate()}
    for ident, frame in frames.items():
        out.write(f"Thread {names.get(ident, '?')} ({ident}):\n")
        out.write("".join(traceback.format_stack(frame)))
    return out.getvalue()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item: pytest.Item) -> Iterator[None]:
    with _limited(item, "setup"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    with _limited(item, "call"):
        yield


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item: pytest.Item) -> Iterator[None]:
    with _limited(item, "teardown"):
        yield


class _limited:
    """Arms SIGALRM for one phase of one test and disarms it after, whatever happened."""

    def __init__(self, item: pytest.Item, phase: str) -> None:
        self.limit_s = limit_of(item)
        self.what = f"{item.nodeid} ({phase})"
        self.armed = self.limit_s > 0 and threading.current_thread() is threading.main_thread()

    def __enter__(self) -> None:
        if self.armed:
            self.previous = signal.signal(signal.SIGALRM, self._expired)
            signal.setitimer(signal.ITIMER_REAL, self.limit_s)

    def __exit__(self, *_exc: object) -> None:
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)

    def _expired(self, _signum: int, _frame: FrameType | None) -> None:
        dump = stacks()
        terminal = sys.__stderr__
        if terminal is not None:  # at once: a phase's captured output is shown only at the end
            terminal.write(f"\n=== {self.what} passed {self.limit_s:g} s ===\n{dump}\n")
            terminal.flush()
        raise TestTimeLimitExceeded(f"{self.what} passed its {self.limit_s:g} s limit\n{dump}")
