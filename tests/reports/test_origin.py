"""Issue 22: comparisons carry an `origin` (`traffic`, or `canary` for a drift canary's run). The
report, the label sections and the leaderboard count the callers' traffic unless asked for the
canaries or both; the labeling queue never offers a canary's comparison; a batch item's origin is
stored with its comparison; the migration files existing rollup rows as traffic."""

from __future__ import annotations

import asyncio
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any, get_args

import httpx2
import pytest
from redis.asyncio import Redis
from sqlalchemy import insert, select, text, update

from app.auth.keys import ANONYMOUS
from app.batches.models import BatchItem
from app.batches.ratelimit import RateLimitNotes
from app.batches.runner import ItemRunner
from app.batches.schemas import BatchCreate
from app.batches.service import submit
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.jobs.kind import Services
from app.jobs.slots import JudgePool
from app.jobs.writes import GroupCommit
from app.judges.registry import JudgeRegistry
from app.labels import queries as label_queries
from app.ledger.callscope import Origin, ReportFilters
from app.ledger.models import Comparison
from app.privacy import keeper_for
from app.reports.bias import build_report
from app.schema import upgrade
from tests.batches.support import compare_item
from tests.conftest import make_key
from tests.labels.builders import Rows, Swap
from tests.reports.builders import BASE_TIME, StoredData
from tests.reports.oracle import generate
from tests.reports.test_rollups import with_origins
from tests.support.databases import create_database, drop_database, sqlalchemy_url
from tests.support.rows import comparison_row

WINDOWS: list[dict[str, Any]] = [
    {"since": BASE_TIME - timedelta(days=1)},
    # Edges inside hours (the rollups' corrections) and an hourly series.
    {
        "since": BASE_TIME + timedelta(hours=3, minutes=13),
        "until": BASE_TIME + timedelta(hours=17, minutes=41),
        "bucket": "hour",
    },
]


def subset(data: StoredData, origin: str) -> StoredData:
    """The comparisons of one origin with their tags and calls, stored as traffic: what a
    database that never saw the others holds."""
    kept = [dict(c, origin="traffic") for c in data.comparisons if c["origin"] == origin]
    ids = {c["id"] for c in kept}
    return StoredData(
        comparisons=kept,
        tags=[t for t in data.tags if t["comparison_id"] in ids],
        calls=[c for c in data.calls if c["comparison_id"] in ids],
    )


async def report(url: str, *, rollups: bool = True, **filters: Any) -> dict[str, Any]:
    """The report without its timestamp and its filters' echo."""
    engine = create_engine(url)
    try:
        async with create_sessionmaker(engine)() as session:
            built = await build_report(
                session, ReportFilters(**filters), Settings(), rollups=rollups
            )
    finally:
        await engine.dispose()
    return built.model_dump(exclude={"generated_at", "filters"})


async def sqlite_url(path: Path) -> str:
    url = f"sqlite+aiosqlite:///{path}"
    await asyncio.to_thread(upgrade, url)
    return url


@pytest.fixture
async def databases(
    request: pytest.FixtureRequest, pg_template: str, tmp_path: Path
) -> AsyncIterator[Callable[[], Any]]:
    """New migrated databases of the test's backend (`request.param`), dropped afterwards."""
    made: list[str] = []

    async def make() -> str:
        if request.param == "sqlite":
            return await sqlite_url(tmp_path / f"{uuid.uuid4().hex}.db")
        name = await create_database(template=pg_template)
        made.append(name)
        return sqlalchemy_url(name)

    yield make
    for name in made:
        await drop_database(name)


@pytest.mark.parametrize("databases", ["postgresql", "sqlite"], indirect=True)
async def test_the_report_of_an_origin_is_the_report_of_its_comparisons_alone(
    databases: Callable[[], Any],
) -> None:
    data = StoredData()
    generate(data, comparisons=160, seed=23)
    with_origins(data, seed=29, canary_share=0.4)
    mixed = await databases()
    await data.insert(mixed)
    alone = {}
    for origin in ("traffic", "canary"):
        alone[origin] = await databases()
        await subset(data, origin).insert(alone[origin])
    for window in WINDOWS:
        by_origin = {}
        for origin in ("traffic", "canary", "all"):
            from_rollups = await report(mixed, **window, origin=origin)
            assert from_rollups == await report(mixed, rollups=False, **window, origin=origin)
            by_origin[origin] = from_rollups
        assert by_origin["traffic"] == await report(mixed, **window)  # the default
        for origin, url in alone.items():
            assert by_origin[origin]["judges"], (window, origin)
            assert by_origin[origin] == await report(url, **window), (window, origin)
        totals = {
            origin: Counter({j["judge"]: j["calls"]["total"] for j in r["judges"]})
            for origin, r in by_origin.items()
        }
        assert totals["all"] == totals["traffic"] + totals["canary"], window


async def test_the_route_echoes_the_origin_and_refuses_an_unknown_one(
    client: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    default = await client.get("/v1/bias-report", headers=reader)
    assert default.status_code == 200, default.text
    assert default.json()["filters"]["origin"] == "traffic"
    for origin in ("canary", "all"):
        asked = await client.get("/v1/bias-report", headers=reader, params={"origin": origin})
        assert asked.status_code == 200, asked.text
        assert asked.json()["filters"]["origin"] == origin
    unknown = await client.get("/v1/bias-report", headers=reader, params={"origin": "gold"})
    assert unknown.status_code == 422
    assert unknown.headers["content-type"].startswith("application/problem+json")


async def test_the_label_sections_count_the_filters_origin(clean_pg: str) -> None:
    rows = Rows()
    origins = ["traffic"] * 5 + ["canary"] * 3
    for i, _origin in enumerate(origins):
        labelled = rows.comparison(Swap("judge-a", "first", "second"))
        rows.label(labelled, "ann", "A" if i % 2 else "B")
    for comparison, origin in zip(rows.comparisons, origins, strict=True):
        comparison["origin"] = origin
    await rows.insert(clean_pg)
    engine = create_engine(clean_pg)
    counted = {}
    async with create_sessionmaker(engine)() as session:
        for origin in get_args(Origin):
            filters = ReportFilters(since=BASE_TIME - timedelta(days=1), origin=origin)
            table = await label_queries.labelled_table(session, filters)
            counted[origin] = sum(
                row.rows
                for row in table
                if row.judge == "judge-a" and row.gold is not None and row.n > 0
            )
    await engine.dispose()
    assert counted == {"traffic": 5, "canary": 3, "all": 8}


def board_rows(origin: str, outcomes: Sequence[tuple[str, str, str]]) -> list[dict[str, Any]]:
    """Complete comparisons of one origin between two models, with their verdicts."""
    return [
        comparison_row(
            str(uuid.uuid4()),
            BASE_TIME,
            model_a=a,
            model_b=b,
            winner=winner,
            origin=origin,
        )
        for a, b, winner in outcomes
    ]


async def test_the_leaderboard_counts_traffic_unless_asked(
    client: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    traffic = [("m1", "m2", "A")] * 4 + [("m2", "m1", "tie")] * 2
    canary = [("m1", "m2", "B")] * 3 + [("m2", "m3", "A")] * 2
    engine = create_engine(clean_pg)
    async with engine.begin() as connection:
        await connection.execute(
            insert(Comparison), board_rows("traffic", traffic) + board_rows("canary", canary)
        )
    await engine.dispose()

    async def records(**params: str) -> tuple[str, dict[str, tuple[int, int, int]]]:
        response = await client.get("/v1/leaderboard", headers=reader, params=params)
        assert response.status_code == 200, response.text
        body = response.json()
        models = {m["model"]: (m["wins"], m["ties"], m["losses"]) for m in body["models"]}
        return body["filters"]["origin"], models

    assert await records() == ("traffic", {"m1": (4, 2, 0), "m2": (0, 2, 4)})
    assert await records(origin="canary") == (
        "canary",
        {"m1": (0, 0, 3), "m2": (5, 0, 0), "m3": (0, 0, 2)},
    )
    assert await records(origin="all") == (
        "all",
        {"m1": (4, 2, 3), "m2": (5, 2, 4), "m3": (0, 0, 2)},
    )
    bad = await client.get("/v1/leaderboard", headers=reader, params={"origin": "x"})
    assert bad.status_code == 422


async def test_the_labeling_queue_never_offers_a_canarys_comparison(
    client: httpx2.AsyncClient, clean_pg: str
) -> None:
    rows = Rows()
    offered = {rows.comparison(Swap("judge-a", "first", "second")) for _ in range(3)}
    canaries = {rows.comparison(Swap("judge-a", "first", "second")) for _ in range(4)}
    for comparison in rows.comparisons:
        comparison["origin"] = "canary" if comparison["id"] in canaries else "traffic"
    await rows.insert(clean_pg)
    labeler = await make_key(clean_pg, "labeler", ["label"])
    every: list[dict[str, str | int]] = [{"n": 50}, {"n": 50, "judge": "judge-a"}]
    for params in every:
        response = await client.get("/v1/labeling-queue", headers=labeler, params=params)
        assert response.status_code == 200, response.text
        page = response.json()
        assert {item["id"] for item in page["items"]} == offered
        assert page["available"] == len(offered)


class NoQueue:
    """An item queue that sends nothing: the test runs the items itself."""

    def __init__(self) -> None:
        self.stream_reset = asyncio.Event()
        self.redis: Redis | None = None
        self.rate_limits = RateLimitNotes(None)

    async def enqueue(self, item_ids: Sequence[str]) -> None:
        return None

    async def backlog(self) -> int | None:
        return 0

    async def live_workers(self) -> int | None:
        return 1


@pytest.fixture
async def services(settings_factory: Callable[..., Settings]) -> AsyncIterator[Services]:
    """A worker's resources with the in-process sim judges."""
    settings = settings_factory()
    engine = create_engine(settings.database_url)
    sessionmaker = create_sessionmaker(engine)
    registry = JudgeRegistry(settings, sessionmaker)
    await registry.start()
    writes = GroupCommit(sessionmaker)
    yield Services(
        settings, sessionmaker, registry, JudgePool(64, 1000), writes, keeper_for(settings, None)
    )
    await writes.aclose()
    await registry.aclose()
    await engine.dispose()


async def test_a_batch_item_stores_its_origin_with_its_comparison(services: Services) -> None:
    body = BatchCreate.model_validate({"items": [compare_item(i) for i in range(2)]})
    maker = services.sessionmaker
    await submit(
        body,
        ANONYMOUS,
        None,
        services.settings,
        maker,
        services.registry,
        NoQueue(),
        services.keeper,
    )
    async with maker() as session:
        items = list(await session.scalars(select(BatchItem).order_by(BatchItem.item_id)))
        assert [item.origin for item in items] == ["traffic", "traffic"]  # as submitted
        # Only a canary's run makes canary items; the API cannot: set one by hand.
        await session.execute(
            update(BatchItem).where(BatchItem.id == items[1].id).values(origin="canary")
        )
        await session.commit()
    runner = ItemRunner(services, "worker-a")
    for item in items:
        await runner(item.id)
    async with maker() as session:
        stored = {
            c.id: (c.status, c.origin)
            for c in await session.scalars(
                select(Comparison).where(Comparison.id.in_([i.target_id for i in items]))
            )
        }
    assert stored == {
        items[0].target_id: ("complete", "traffic"),
        items[1].target_id: ("complete", "canary"),
    }


async def test_a_compare_request_cannot_set_its_origin(
    client: httpx2.AsyncClient, clean_pg: str, comparer: dict[str, str]
) -> None:
    body = {"prompt": "p", "response_a": "a\n[sim q=2]", "response_b": "b\n[sim q=-2]"}
    refused = await client.post("/v1/compare", headers=comparer, json={**body, "origin": "canary"})
    assert refused.status_code == 422
    answered = await client.post("/v1/compare", headers=comparer, json=body)
    assert answered.status_code == 200, answered.text
    engine = create_engine(clean_pg)
    async with engine.connect() as connection:
        origins = (await connection.execute(text("SELECT origin FROM comparisons"))).scalars()
        assert list(origins) == ["traffic"]
    await engine.dispose()


ROLLUP_ROWS = {
    "call_rollup": "INSERT INTO call_rollup VALUES ('j', 1, false, 'swap', '', 'P/Q', 5, "
    "1, 0, 1, 1, 0, 1, 1, 1, 0, 0)",
    "call_tag_rollup": "INSERT INTO call_tag_rollup VALUES ('team', 'a', 'j', 1, false, 'swap', "
    "'', 'P/Q', 5, 1, 0, 1, 1, 0, 1, 1, 1, 0, 0)",
    "observation_rollup": "INSERT INTO observation_rollup (judge, first_hour, last_hour, "
    "version, protocol, p1, p2, eligible, longer, n) VALUES ('j', 5, 5, 1, 'swap', 'first', "
    "'second', false, false, 1)",
    "length_rollup": "INSERT INTO length_rollup (judge, first_hour, last_hour, version, "
    "protocol, delta, y_sum, y_n, n) VALUES ('j', 5, 5, 1, 'swap', 0, 0, 2, 1)",
}


async def test_the_migration_files_existing_rollup_rows_as_traffic(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'before.db'}"
    await asyncio.to_thread(upgrade, url, "f3a9c7e2d1b5")  # the revision before origins
    engine = create_engine(url)
    async with engine.begin() as connection:
        for statement in ROLLUP_ROWS.values():
            await connection.execute(text(statement))
    await engine.dispose()
    await asyncio.to_thread(upgrade, url, "a7c1e5d9b3f2")
    engine = create_engine(url)
    async with engine.connect() as connection:
        for table in ROLLUP_ROWS:
            found = (await connection.execute(text(f"SELECT origin FROM {table}"))).scalars()
            assert list(found) == ["traffic"], table
    await engine.dispose()
