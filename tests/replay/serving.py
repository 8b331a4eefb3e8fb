"""The app in process with replay judges, and the recorded swap pairs served through it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from app.auth.keys import create_key
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.main import create_app
from tests.replay.replay import (
    Item,
    ReplayBook,
    ReplayTransport,
    SwapPair,
    criteria_for,
    load_items,
    load_verdicts,
    recorded_judges,
    swap_pairs,
)
from tests.support.databases import create_database, drop_database, sqlalchemy_url
from tests.support.live import LiveApp


def replay_judges_toml(judges: Sequence[str], *, max_concurrency: int = 32) -> str:
    """A judges file with one OpenAI-compatible judge per recorded judge, named after it."""
    tables = [
        f"""
[[judges]]
name = {json.dumps(name)}
provider = "openai"
model = {json.dumps(name)}
base_url = "http://replay.test/v1"
api_key = "sk-replay"
max_concurrency = {max_concurrency}
"""
        for name in judges
    ]
    return f"default_panel = {json.dumps(list(judges))}\n" + "".join(tables)


@dataclass(frozen=True)
class ReplayApp:
    """The app in process with replay judges, a key with `compare` and `read`, and the judges."""

    client: httpx2.AsyncClient
    headers: dict[str, str]
    transports: Mapping[str, ReplayTransport]


async def _key_headers(database_url: str) -> dict[str, str]:
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        token = await create_key(session, "replay", ["compare", "read"])
    await engine.dispose()
    return {"Authorization": f"Bearer {token}"}


@asynccontextmanager
async def replay_app(
    database_url: str, workdir: Path, transports: Mapping[str, ReplayTransport]
) -> AsyncIterator[ReplayApp]:
    """Run the app on `database_url` with one replay judge per transport."""
    judges_file = workdir / "judges.toml"
    judges_file.write_text(replay_judges_toml(list(transports)))
    settings = Settings(
        database_url=database_url,
        secret_key="replay-secret-key",
        judges_file=judges_file,
        sweep_interval_s=3600,
        # Thousands of calls: a log line per request would cost more than the replay itself.
        log_level="warning",
    )
    headers = await _key_headers(database_url)
    async with (
        LiveApp(create_app(settings, transport_for=transports.get)) as live,
        httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=live), base_url="http://testserver", timeout=120
        ) as client,
    ):
        yield ReplayApp(client, headers, transports)


@dataclass(frozen=True)
class Served:
    """One recorded swap pair served through `POST /v1/compare`, and the answer."""

    judge: str
    pair: SwapPair
    status_code: int
    body: dict[str, Any]

    @property
    def comparison_id(self) -> str:
        """The stored comparison (a 502 problem carries its id too)."""
        return str(self.body["id"] if self.status_code == 200 else self.body["comparison_id"])


def compare_request(
    bench: str, item: Item, model: str, reference: str, judge: str
) -> dict[str, Any]:
    """The comparison of `model`'s answer (A) with the reference answer (B), by one judge."""
    return {
        "prompt": item.prompt,
        "response_a": {"text": item.answers[model], "model": model},
        "response_b": {"text": item.answers[reference], "model": reference},
        "criteria": criteria_for(item.task),
        "judges": [judge],
        # The generating models are recorded; a judge rating its own family still votes, as
        # it did in the study.
        "self_preference": "allow",
        "tags": {"replay": bench, "question_id": item.question_id, "model": model},
    }


async def serve(
    app: ReplayApp,
    bench: str,
    judge: str,
    pairs: Sequence[SwapPair],
    reference: str,
    *,
    concurrency: int = 16,
) -> list[Served]:
    """Submit one swap-protocol comparison per recorded swap pair, `concurrency` at a time."""
    items = load_items(bench)
    slots = asyncio.Semaphore(concurrency)

    async def submit(pair: SwapPair) -> Served:
        body = compare_request(bench, items[pair.question_id], pair.model, reference, judge)
        async with slots:
            response = await app.client.post("/v1/compare", headers=app.headers, json=body)
        return Served(judge, pair, response.status_code, response.json())

    return list(await asyncio.gather(*(submit(pair) for pair in pairs)))


@dataclass(frozen=True)
class ServedBench:
    """A bench's recorded verdicts, every judge's, served through the app (still running)."""

    bench: str
    reference: str
    app: ReplayApp
    served: list[Served]

    def of(self, judge: str) -> list[Served]:
        """The comparisons one judge served."""
        return [s for s in self.served if s.judge == judge]


@asynccontextmanager
async def served_bench(
    bench: str, reference: str, pg_template: str, workdir: Path
) -> AsyncIterator[ServedBench]:
    """Serve every recorded swap pair of every judge of `bench` on a database of its own."""
    judges = recorded_judges(bench)
    book = ReplayBook(load_items(bench).values())
    transports = {judge: ReplayTransport(book, load_verdicts(bench, judge)) for judge in judges}
    name = await create_database(template=pg_template)
    try:
        async with replay_app(sqlalchemy_url(name), workdir, transports) as app:
            served: list[Served] = []
            for judge in judges:
                pairs = swap_pairs(load_verdicts(bench, judge), reference)
                served += await serve(app, bench, judge, pairs, reference)
            yield ServedBench(bench, reference, app, served)
    finally:
        await drop_database(name)


async def stored_comparisons(app: ReplayApp, bench: str) -> dict[str, dict[str, Any]]:
    """Every stored comparison of a bench (`GET /v1/comparisons`, all pages), by id."""
    stored: dict[str, dict[str, Any]] = {}
    params: dict[str, str | int] = {"tag": f"replay:{bench}", "limit": 200}
    while True:
        response = await app.client.get("/v1/comparisons", headers=app.headers, params=params)
        page = response.json()
        stored.update({comparison["id"]: comparison for comparison in page["items"]})
        if page["next_cursor"] is None:
            return stored
        params["cursor"] = page["next_cursor"]


def answer_view(served: Served) -> tuple[Any, ...]:
    """The fields of a compare answer that `expected_answer` predicts."""
    body = served.body
    if served.status_code != 200:
        return (served.status_code, body.get("type"))
    fields = ("status", "winner", "bias_detected", "position_consistent", "confidence")
    return (200, *(body[name] for name in fields))
