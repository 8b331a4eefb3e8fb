"""Batches you can operate (issue 43): `GET /v1/batches` lists them newest first with filters
and pages, its status filter in SQL agrees with the status each batch shows, and
`GET /v1/batches/{id}/results?format=jsonl|csv` streams every item as one file."""

from __future__ import annotations

import asyncio
import csv
import io
import itertools
import json
import uuid
from datetime import timedelta
from pathlib import Path

import httpx2
import pytest
from sqlalchemy import select

from app.batches.models import Batch, BatchItem, ItemStatus
from app.batches.queries import batch_status, item_counts, status_expression
from app.batches.schemas import BatchCounts
from app.db import create_engine, create_sessionmaker, utcnow
from app.schema import upgrade
from tests.batches.support import compare_item, wait_for_batch

# Every batch shape the status rule distinguishes: none or one item in each status, cancelled
# or not, live or provider mode (2**6 * 2 * 2 = 256 batches; the all-zero counts are skipped).
SHAPES = [
    (counts, cancelled, mode)
    for counts in itertools.product((0, 1), repeat=len(ItemStatus))
    for cancelled in (False, True)
    for mode in ("live", "provider")
    if any(counts)
]


async def database(backend: str, clean_pg: str, tmp_path: Path) -> str:
    if backend == "postgresql":
        return clean_pg
    url = f"sqlite+aiosqlite:///{tmp_path}/batches.db"
    await asyncio.to_thread(upgrade, url)
    return url


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_the_sql_status_of_every_batch_shape_is_the_status_it_shows(
    backend: str, clean_pg: str, tmp_path: Path
) -> None:
    url = await database(backend, clean_pg, tmp_path)
    engine = create_engine(url)
    shown: dict[str, str] = {}
    async with create_sessionmaker(engine)() as session:
        for counts, cancelled, mode in SHAPES:
            batch = Batch(
                id=str(uuid.uuid4()),
                request_hash="h",
                item_count=sum(counts),
                mode=mode,
                cancelled_at=utcnow() if cancelled else None,
            )
            session.add(batch)
            statuses = [s for s, n in zip(ItemStatus, counts, strict=True) for _ in range(n)]
            session.add_all(
                BatchItem(
                    id=str(uuid.uuid4()),
                    batch_id=batch.id,
                    position=position,
                    kind="compare",
                    target_id=str(uuid.uuid4()),
                    status=status,
                    enqueued_at=utcnow(),
                )
                for position, status in enumerate(statuses)
            )
            by_status = {s.value: n for s, n in zip(ItemStatus, counts, strict=True)}
            shown[batch.id] = batch_status(batch, BatchCounts(**by_status))
        await session.commit()
        found = item_counts()
        rows = await session.execute(
            select(Batch.id, status_expression(found)).join(
                found, found.c.batch_id == Batch.id, isouter=True
            )
        )
        in_sql: dict[str, str] = dict(rows.all())
    await engine.dispose()
    assert len(in_sql) == len(SHAPES) == 252
    assert in_sql == shown
    assert set(shown.values()) == {"queued", "running", "completed", "cancelled", "failed"}


async def test_batches_are_listed_newest_first_in_pages_and_filtered(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    ids = []
    for i in range(3):
        created = await client.post(
            "/v1/batches", headers=comparer, json={"items": [compare_item(i)]}
        )
        assert created.status_code == 202, created.text
        ids.append(created.json()["id"])
        await wait_for_batch(client, ids[-1], comparer)

    first = (await client.get("/v1/batches?limit=2", headers=comparer)).json()
    assert [b["id"] for b in first["items"]] == [ids[2], ids[1]]
    assert first["items"][0] == (await client.get(f"/v1/batches/{ids[2]}", headers=comparer)).json()
    cursor = first["next_cursor"]
    second = (await client.get(f"/v1/batches?limit=2&cursor={cursor}", headers=comparer)).json()
    assert ([b["id"] for b in second["items"]], second["next_cursor"]) == ([ids[0]], None)

    completed = await client.get("/v1/batches?status=completed&mode=live", headers=comparer)
    assert [b["id"] for b in completed.json()["items"]] == ids[::-1]
    for empty in ("status=queued", "mode=provider", "since=1970-01-01&until=1970-01-02"):
        answer = await client.get(f"/v1/batches?{empty}", headers=comparer)
        assert answer.json() == {"items": [], "next_cursor": None}, empty
    future = (utcnow() + timedelta(days=1)).isoformat()
    assert (await client.get("/v1/batches", params={"since": future}, headers=comparer)).json()[
        "items"
    ] == []


@pytest.mark.parametrize(
    "query",
    ["status=done", "mode=fast", "limit=0", "limit=101", "cursor=bm90LWEtY3Vyc29y", "since=soon"],
)
async def test_a_bad_batch_list_query_is_a_422_problem(
    client: httpx2.AsyncClient, comparer: dict[str, str], query: str
) -> None:
    answer = await client.get(f"/v1/batches?{query}", headers=comparer)
    assert answer.status_code == 422, answer.text
    assert answer.headers["content-type"].startswith("application/problem+json")


async def test_listing_batches_needs_a_key(client: httpx2.AsyncClient) -> None:
    assert (await client.get("/v1/batches")).status_code == 401


async def test_every_result_streams_as_json_lines_and_as_csv_that_runs_no_formula(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    items = [compare_item(i) for i in range(5)]
    items[3]["item_id"] = '=HYPERLINK("http://evil.example","x")'
    created = await client.post("/v1/batches", headers=comparer, json={"items": items})
    batch_id = created.json()["id"]
    await wait_for_batch(client, batch_id, comparer)
    pages = (await client.get(f"/v1/batches/{batch_id}/results?limit=200", headers=comparer)).json()

    lines = await client.get(f"/v1/batches/{batch_id}/results?format=jsonl", headers=comparer)
    assert lines.status_code == 200
    assert lines.headers["content-type"].startswith("application/x-ndjson")
    assert f'filename="batch-{batch_id}.jsonl"' in lines.headers["content-disposition"]
    assert [json.loads(line) for line in lines.text.splitlines()] == pages["items"]

    table = await client.get(f"/v1/batches/{batch_id}/results?format=csv", headers=comparer)
    assert table.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(table.text)))
    assert [int(r["position"]) for r in rows] == list(range(5))
    assert {r["winner"] for r in rows} == {"A"}
    assert {r["status"] for r in rows} == {"completed"}
    assert rows[3]["item_id"] == '\'=HYPERLINK("http://evil.example","x")'
    assert rows[0]["comparison_id"] == pages["items"][0]["comparison_id"]


async def test_exporting_a_batch_that_does_not_exist_is_404_and_a_bad_format_422(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    missing = await client.get("/v1/batches/nope/results?format=csv", headers=comparer)
    assert missing.status_code == 404
    created = await client.post("/v1/batches", headers=comparer, json={"items": [compare_item(0)]})
    batch_id = created.json()["id"]
    bad = await client.get(f"/v1/batches/{batch_id}/results?format=xlsx", headers=comparer)
    assert bad.status_code == 422
