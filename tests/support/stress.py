"""`scripts/stress`: run the fault and hardening tests many times, several at once, beside busy
CPUs, and print every hang and failure (issue 36: a hang seen 2 times in 16 runs is missed by a
suite run once).

A run is one pytest process over one test file, the files taken in turn. A hang is a run that
the suite's watchdog stopped (tests/support/watchdog.py prints every task's stack) or that passed
the outer limit; its output is kept in the log folder with every failed run's.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import signal
import sys
import time
from dataclasses import dataclass
from itertools import cycle, islice
from pathlib import Path

FILES = (
    "tests/hardening/test_privacy_parity.py",
    "tests/hardening/test_redis_outage.py",
    "tests/hardening/test_judge_faults.py",
    "tests/hardening/test_cancelled_requests.py",
    "tests/hardening/test_sigterm_in_flight.py",
    "tests/comparisons/test_group_commit.py",
    "tests/batches/test_leases_and_resume.py",
)
WATCHDOG_FIRED = "TestTimeLimitExceeded"


@dataclass(frozen=True)
class Outcome:
    number: int
    path: str
    verdict: str  # passed, failed, hung
    seconds: float


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def busy(parent: int) -> None:
    """Keep one CPU busy while `parent` lives (a process: the GIL would serialize threads)."""
    while os.getppid() == parent:
        sum(range(100_000))


async def one_run(number: int, path: str, args: argparse.Namespace, logs: Path) -> Outcome:
    env = {**os.environ, "FAIRPAIR_TEST_TIME_LIMIT_S": str(args.limit)}
    started = time.monotonic()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "pytest", path, "-q", "-p", "no:cacheprovider",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT, env=env,
    )  # fmt: skip
    try:
        async with asyncio.timeout(args.limit * 4):  # the watchdog's limit is per test phase
            output, _ = await process.communicate()
    except asyncio.CancelledError:  # stress itself was stopped: leave no run behind
        process.kill()
        raise
    except TimeoutError:
        process.kill()
        output, _ = await process.communicate()
        output += b"\n(stress: killed after the outer limit)\n"
        verdict = "hung"
    else:
        hung = WATCHDOG_FIRED.encode() in output
        verdict = "hung" if hung else ("passed" if process.returncode == 0 else "failed")
    if verdict != "passed":
        (logs / f"{number:04d}-{verdict}-{Path(path).stem}.log").write_bytes(output)
    return Outcome(number, path, verdict, time.monotonic() - started)


async def run_all(args: argparse.Namespace, logs: Path) -> list[Outcome]:
    slots = asyncio.Semaphore(args.jobs)
    outcomes: list[Outcome] = []

    async def limited(number: int, path: str) -> None:
        async with slots:
            outcome = await one_run(number, path, args, logs)
        outcomes.append(outcome)
        say(f"{len(outcomes):4d}/{args.runs} {outcome.verdict:6s} {outcome.seconds:6.1f} s  {path}")

    async with asyncio.TaskGroup() as group:
        for number, path in enumerate(islice(cycle(args.files), args.runs)):
            group.create_task(limited(number, path))
    return outcomes


def main() -> int:
    parser = argparse.ArgumentParser(prog="scripts/stress", description=__doc__)
    parser.add_argument("files", nargs="*", default=list(FILES), help="test files, in turn")
    parser.add_argument("--runs", type=int, default=200, help="pytest runs in all")
    parser.add_argument("--jobs", type=int, default=2, help="runs at once")
    parser.add_argument("--load", type=int, default=2, help="busy processes beside them")
    parser.add_argument("--limit", type=float, default=120, help="seconds per test phase")
    parser.add_argument("--logs", type=Path, default=Path("stress-logs"))
    args = parser.parse_args()
    args.logs.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` runs
    started = time.monotonic()
    load = [
        multiprocessing.Process(target=busy, args=(os.getpid(),), daemon=True)
        for _ in range(args.load)
    ]
    for process in load:
        process.start()
    try:
        outcomes = asyncio.run(run_all(args, args.logs))
    finally:
        for process in load:
            process.terminate()
    counts = {
        verdict: sum(o.verdict == verdict for o in outcomes)
        for verdict in ("passed", "failed", "hung")
    }
    minutes = (time.monotonic() - started) / 60
    say(
        f"stress: {len(outcomes)} runs, {counts['passed']} passed, {counts['failed']} failed, "
        f"{counts['hung']} hung in {minutes:.1f} min ({args.jobs} at once, {args.load} busy "
        f"CPUs beside them, {os.cpu_count()} CPUs); logs of the others in {args.logs}/"
    )
    return 0 if counts["passed"] == len(outcomes) else 1


if __name__ == "__main__":
    sys.exit(main())
