"""Helpers of the hardening tests: judges files for the sim-judge over HTTP, its counters, rows."""

from __future__ import annotations

import json
import time
from typing import Any, TypeVar

import httpx2
from sqlalchemy import select

from app.db import create_engine, create_sessionmaker

T = TypeVar("T")


def http_judge(name: str, base_url: str, **fields: Any) -> str:
    """A `[[judges]]` table: the openai provider talking to a sim-judge at `base_url`."""
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in fields.items())
    return f"""
[[judges]]
name = "{name}"
provider = "openai"
model = "{name}"
base_url = "{base_url}"
api_key = "sk-local"
{lines}"""


def sim_stats(base_url: str) -> dict[str, Any]:
    """What the sim-judge at `base_url` (its `/v1` URL) says it received and answered."""
    root = base_url.removesuffix("/v1")
    counts: dict[str, Any] = httpx2.get(f"{root}/stats", timeout=5).json()["chat_completions"]
    return counts


def settled_sim_stats(base_url: str, timeout_s: float = 10) -> dict[str, Any]:
    """The sim-judge's counts once every request it received was answered or abandoned."""
    give_up_at = time.monotonic() + timeout_s
    while True:
        stats = sim_stats(base_url)
        answered = sum(stats["answered"].values())
        if answered + stats["abandoned"] == stats["received"] or time.monotonic() > give_up_at:
            return stats
        time.sleep(0.05)


async def all_rows(url: str, model: type[T], *where: Any) -> list[T]:
    """Every row of `model` (matching `where`) in the database at `url`."""
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        rows = list(await session.scalars(select(model).where(*where)))
    await engine.dispose()
    return rows


def complete_swap_calls(response: httpx2.Response) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A compare answer whose one judge ran a complete swap for A: the result and its calls (one
    per display order, each with a pick)."""
    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["status"], result["winner"]) == ("complete", "A")
    [judged] = result["judges"]
    calls: list[dict[str, Any]] = judged["calls"]
    assert sorted(c["display_order"] for c in calls) == ["AB", "BA"]
    assert all(c["error_kind"] is None and c["pick"] is not None for c in calls)
    return result, calls
