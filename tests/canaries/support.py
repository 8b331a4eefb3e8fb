"""A live app with a simulated judge, gold-labelled comparisons, and helpers to run canaries."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx2

from app.canaries.scheduler import tick
from app.config import Settings
from app.main import create_app
from tests.support.live import LiveApp

JUDGE = "canary-sim"
TAG = "suite:canary"


@dataclass
class Served:
    """The app in process, its client, and admin headers."""

    live: LiveApp
    http: httpx2.AsyncClient
    admin: dict[str, str]

    async def tick(self) -> None:
        """One scheduler round, as every process runs it every `canary_tick_s`."""
        await tick(self.live.state["jobs"], self.live.state["batch_queue"])

    async def post(self, path: str, body: Any, status: int = 200) -> Any:
        response = await self.http.post(path, json=body, headers=self.admin)
        assert response.status_code == status, response.text
        return response.json()

    async def get(self, path: str, **params: Any) -> Any:
        response = await self.http.get(path, params=params, headers=self.admin)
        assert response.status_code == 200, response.text
        return response.json()

    async def settled(self, canary: str, number: int, timeout_s: float = 120) -> dict[str, Any]:
        """Run `number` of the canary once its batch finished and it was settled."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while loop.time() < deadline:
            runs = (await self.get(f"/v1/canaries/{canary}/runs", limit=200))["items"]
            run = next((r for r in runs if r["number"] == number), None)
            if run is not None and run["status"] == "complete":
                return dict(run)
            await asyncio.sleep(0.1)
        raise AssertionError(f"run {number} of {canary} did not finish")


def judge_body(sim: dict[str, float], name: str = JUDGE) -> dict[str, Any]:
    """A simulated judge that sees quality gaps clearly (β = 2), with extra knobs."""
    return {
        "name": name,
        "provider": "sim",
        "model": name,
        "max_concurrency": 64,
        "sim": {"beta": 2.0, "seed": 7, **sim},
    }


def items(count: int, seed: int) -> list[tuple[dict[str, Any], str]]:
    """`count` compare bodies with a known better response (sim qualities), and its gold."""
    rng = random.Random(seed)
    bodies = []
    for index in range(count):
        gap = rng.uniform(0.2, 1.0)
        b_better = rng.random() < 0.5
        q_b = gap if b_better else -gap
        bodies.append(
            (
                {
                    "prompt": f"Question {index:04d}?",
                    "response_a": f"Answer {index:04d}a.\n[sim q={-q_b:+.3f}]",
                    "response_b": f"Answer {index:04d}b.\n[sim q={q_b:+.3f}]",
                    "judges": [JUDGE],
                    "tags": {"suite": "canary"},
                },
                "B" if b_better else "A",
            )
        )
    return bodies


async def store_labelled(served: Served, count: int, seed: int = 0) -> list[str]:
    """Store `count` comparisons through the API and label each with its gold; their ids."""
    limit = asyncio.Semaphore(16)

    async def one(body: dict[str, Any], gold: str) -> str:
        async with limit:
            answer = await served.post("/v1/compare", body)
            await served.post(
                f"/v1/comparisons/{answer['id']}/labels",
                {"winner": gold, "labeler": "oracle"},
                status=201,
            )
            return str(answer["id"])

    return list(await asyncio.gather(*(one(b, g) for b, g in items(count, seed))))


async def serve(
    settings_factory: Callable[..., Settings], admin: dict[str, str], **overrides: Any
) -> Served:
    """The app on the test's PostgreSQL, in-process batches, the scheduler left to the test
    (unless `canary_tick_s` says how often the app ticks by itself)."""
    settings = settings_factory(**{"canary_tick_s": 0, "draw_seed": 1, **overrides})
    live = LiveApp(create_app(settings))
    await live.__aenter__()
    http = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=live), base_url="http://127.0.0.1", timeout=120
    )
    return Served(live, http, admin)


async def close(served: Served) -> None:
    await served.http.aclose()
    await served.live.__aexit__(None, None, None)
