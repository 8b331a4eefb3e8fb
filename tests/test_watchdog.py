"""The suite's time limit: a hung test fails at once with every task's and thread's stack, and
the run goes on (tests/support/watchdog.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

HUNG_AND_NEXT = """
import asyncio
import pytest

@pytest.mark.time_limit(1)
def test_waits_for_an_event_nobody_sets():
    async def forgotten():
        await asyncio.Event().wait()

    asyncio.run(forgotten())

def test_the_next_one_runs():
    pass
"""


def test_a_hung_await_fails_its_test_with_the_tasks_stacks_and_the_run_goes_on(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).parents[1]))
    pytester.makepyfile(test_hung=HUNG_AND_NEXT)
    result = pytester.runpytest_subprocess("-p", "tests.support.watchdog", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    output = result.stdout.str() + result.stderr.str()
    assert "test_waits_for_an_event_nobody_sets (call) passed its 1 s limit" in output
    assert "--- 1 asyncio tasks ---" in output
    assert "await asyncio.Event().wait()" in output  # where the task waits
    assert "--- 1 threads ---" in output
