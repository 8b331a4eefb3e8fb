"""Helpers for batch tests: item bodies, polling, database counts, a Redis of the test's own."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import httpx2
from redis import Redis
from redis.exceptions import RedisError
from sqlalchemy import func, select

from app.batches.models import BatchItem
from app.db import create_engine, create_sessionmaker
from app.ledger.models import JudgeCall
from app.scoring.models import ScoreCall
from tests.support.processes import free_port
from tests.support.provision import redis_server_binary


def compare_item(i: int, **extra: Any) -> dict[str, Any]:
    """A swap comparison where A is clearly better: q 4 against −4 puts the sim's odds of a
    wrong pick near 6e−6 per call (with ±2 a 12-item batch saw a tie once in ~16 runs)."""
    return {
        "item_id": f"q{i}",
        "compare": {
            "prompt": f"question {i}",
            "response_a": f"good answer {i}\n[sim q=4]",
            "response_b": f"bad answer {i}\n[sim q=-4]",
            **extra,
        },
    }


def score_item(i: int, judges: list[str], **extra: Any) -> dict[str, Any]:
    """A score item: three responses of clearly different quality for `judges` to score."""
    return {
        "item_id": f"s{i}",
        "score": {
            "prompt": f"question {i}",
            "responses": [f"answer {i}-{k}\n[sim q={q}]" for k, q in enumerate((2, 0, -2))],
            "judges": judges,
            **extra,
        },
    }


async def score_call_stats(url: str, batch_id: str) -> tuple[int, int]:
    """(reviewer calls of the batch's score sessions, distinct (session, reviewer))."""
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        calls = (
            select(ScoreCall)
            .join(BatchItem, BatchItem.target_id == ScoreCall.session_id)
            .where(BatchItem.batch_id == batch_id)
            .subquery()
        )
        total = await session.scalar(select(func.count()).select_from(calls))
        distinct = await session.scalar(
            select(func.count()).select_from(
                select(calls.c.session_id, calls.c.judge_name).distinct().subquery()
            )
        )
    await engine.dispose()
    return int(total or 0), int(distinct or 0)


async def wait_for_batch(
    client: httpx2.AsyncClient,
    batch_id: str,
    headers: dict[str, str],
    *,
    until: tuple[str, ...] = ("completed", "failed", "cancelled"),
    timeout_s: float = 60,
) -> dict[str, Any]:
    """Poll `GET /v1/batches/{id}` until its status is in `until`."""
    deadline = time.monotonic() + timeout_s
    while True:
        body: dict[str, Any] = (await client.get(f"/v1/batches/{batch_id}", headers=headers)).json()
        # A cancelled provider batch still runs its woken items (queued) to their end.
        unfinished = sum(body["counts"].get(k, 0) for k in ("queued", "running", "waiting"))
        settled = body["status"] not in ("completed", "failed", "cancelled") or not unfinished
        if body["status"] in until and settled:
            return body
        if time.monotonic() > deadline:
            raise TimeoutError(f"batch {batch_id} still {body['status']}: {body['counts']}")
        await asyncio.sleep(0.1)


def poll_batch(base: str, batch_id: str, predicate: Any, timeout_s: float = 120) -> dict[str, Any]:
    """Poll a served API until `predicate(batch)` holds (process tests)."""
    deadline = time.monotonic() + timeout_s
    body: dict[str, Any] = {}
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx2.TransportError):
            body = httpx2.get(f"{base}/v1/batches/{batch_id}", timeout=10).json()
            if predicate(body):
                return body
        time.sleep(0.2)
    raise TimeoutError(f"batch {batch_id} never got there: {body}")


async def call_stats(url: str, batch_id: str) -> tuple[int, int]:
    """(judge calls of the batch's comparisons, distinct (comparison, judge, round))."""
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        calls = (
            select(JudgeCall)
            .join(BatchItem, BatchItem.target_id == JudgeCall.comparison_id)
            .where(BatchItem.batch_id == batch_id)
            .subquery()
        )
        total = await session.scalar(select(func.count()).select_from(calls))
        distinct = await session.scalar(
            select(func.count()).select_from(
                select(calls.c.comparison_id, calls.c.judge_name, calls.c.round)
                .distinct()
                .subquery()
            )
        )
    await engine.dispose()
    return int(total or 0), int(distinct or 0)


async def item_rows(url: str, batch_id: str) -> list[BatchItem]:
    """The batch's items as stored."""
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        rows = list(
            await session.scalars(
                select(BatchItem).where(BatchItem.batch_id == batch_id).order_by(BatchItem.position)
            )
        )
    await engine.dispose()
    return rows


class RedisServer:
    """A `redis-server` of the test's own on a free port, without persistence (the binary:
    `redis_server_binary`)."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start it (again, empty) and wait until it answers."""
        self.process = subprocess.Popen(
            [redis_server_binary(), "--port", str(self.port), "--save", "", "--appendonly", "no"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        client = Redis(port=self.port)
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except RedisError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        client.close()

    def kill(self) -> None:
        """SIGKILL: everything in it is lost."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


@contextlib.contextmanager
def redis_server() -> Iterator[RedisServer]:
    """A running test Redis, killed at the end."""
    server = RedisServer()
    server.start()
    try:
        yield server
    finally:
        server.kill()
