"""How long one judge call's text work holds the event loop, at the largest texts allowed.

Run: .venv/bin/python bench/bench_text_work.py
An in-process sim judge renders (anonymizes, templates) two 100,000-character texts and parses
the answer, while a task on the same loop measures the longest gap between its turns: once with
all text work on the loop, once with `run_text_work`'s threshold. Prints the median of 5 runs,
and the anonymizer's own time on each text.
"""

from __future__ import annotations

import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.judging import base
from app.judging.anonymize import default_anonymizer
from app.judging.providers.sim import SimJudge
from app.judging.types import JudgeConfig

WORDS = "the of and a to in is you that it he was for on are as with his they at be this".split()


def texts() -> dict[str, str]:
    """Ordinary prose, and a text dense with phrases the anonymizer removes."""
    rng = random.Random(1)
    prose = " ".join(rng.choice(WORDS) for _ in range(40_000))[:100_000]
    return {"prose": prose, "dense phrases": ("x. My name is Gemini." * 5000)[:100_000]}


async def longest_stall_ms(text: str, threshold: int) -> float:
    """The longest gap between turns of another task during one judge_pair call."""
    base.TEXT_WORK_ON_LOOP_CHARS = threshold
    judge = SimJudge(JudgeConfig(name="sim", provider="sim", model="sim"))
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    default_anonymizer()._recent.clear()
    await judge.judge_pair("Which is better?", text, text[::-1], deadline=time.monotonic() + 60)
    done.set()
    await ticker
    return max(gaps) * 1000


def anonymize_ms(text: str) -> float:
    """The anonymizer's time on `text`, median of 5 (not remembered between runs)."""
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        default_anonymizer()._scan(text)
        runs.append(time.perf_counter() - started)
    return statistics.median(runs) * 1000


async def main() -> None:
    for name, text in texts().items():
        print(f"{name:14} anonymize one text: {anonymize_ms(text):.1f} ms")
        for label, threshold in (("all on the loop", 10**9), ("run_text_work", 8_000)):
            runs = [await longest_stall_ms(text, threshold) for _ in range(5)]
            print(f"{name:14} {label:16} longest stall: {statistics.median(runs):.1f} ms")


if __name__ == "__main__":
    asyncio.run(main())
