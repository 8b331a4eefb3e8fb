"""`/v1/batches` in process on PostgreSQL with the embedded queue: results, limits, privacy."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx2
from sqlalchemy import func, select

from app.batches.models import Batch
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.judges import crypto
from tests.batches.support import (
    call_stats,
    compare_item,
    item_rows,
    score_call_stats,
    score_item,
    wait_for_batch,
)

SLOW_SIM = """
default_panel = ["slow"]

[[judges]]
name = "slow"
provider = "sim"
model = "slow"
max_concurrency = 64

[judges.sim]
latency_ms = 150
"""


async def batches_stored(url: str) -> int:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        count = await session.scalar(select(func.count()).select_from(Batch))
    await engine.dispose()
    return int(count or 0)


async def test_batch_runs_every_item_and_pages_results_in_submission_order(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    items = [compare_item(i) for i in range(12)]
    created = await client.post("/v1/batches", headers=comparer, json={"items": items})
    assert created.status_code == 202, created.text
    batch = created.json()
    assert (batch["status"], batch["total"], batch["counts"]["queued"]) == ("queued", 12, 12)
    assert created.headers["location"] == f"/v1/batches/{batch['id']}"

    done = await wait_for_batch(client, batch["id"], comparer)
    assert done["status"] == "completed"
    assert done["counts"] == {
        "queued": 0,
        "running": 0,
        "waiting": 0,
        "completed": 12,
        "failed": 0,
        "cancelled": 0,
    }
    assert (done["progress"], done["calls"]) == (1.0, 24)
    assert done["started_at"]
    assert done["finished_at"]

    seen: list[dict[str, Any]] = []
    cursor = None
    while True:
        params = {"limit": 5, **({"cursor": cursor} if cursor else {})}
        page = (
            await client.get(f"/v1/batches/{batch['id']}/results", headers=comparer, params=params)
        ).json()
        seen += page["items"]
        cursor = page["next_cursor"]
        if cursor is None:
            break
    assert [i["item_id"] for i in seen] == [f"q{i}" for i in range(12)]
    assert all(i["comparison"]["winner"] == "A" for i in seen)
    assert all(i["comparison"]["id"] == i["comparison_id"] for i in seen)
    assert await call_stats(clean_pg, batch["id"]) == (24, 24)
    assert all(row.payload is None for row in await item_rows(clean_pg, batch["id"]))


async def test_same_idempotency_key_replays_the_batch_and_another_body_conflicts(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    headers = {**comparer, "Idempotency-Key": "nightly-1"}
    body = {"items": [compare_item(0), compare_item(1)]}
    first = await client.post("/v1/batches", headers=headers, json=body)
    again = await client.post("/v1/batches", headers=headers, json=body)
    assert again.status_code == 202
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    other = await client.post("/v1/batches", headers=headers, json={"items": [compare_item(2)]})
    assert (other.status_code, other.json()["type"]) == (409, "idempotency-conflict")
    assert await batches_stored(clean_pg) == 1
    await wait_for_batch(client, first.json()["id"], comparer)


async def test_bad_items_get_422_with_their_pointer_and_nothing_is_stored(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(max_batch_items=3, compare_timeout_s=30))

    async def problem(items: list[Any]) -> str:
        answer = await client.post("/v1/batches", headers=comparer, json={"items": items})
        assert answer.status_code == 422, answer.text
        return str(answer.json()["detail"])

    unknown = compare_item(1, judges=["sim-a", "nope"])
    assert (await problem([compare_item(0), unknown])).startswith("/items/1/compare/judges/1")
    assert (await problem([{"item_id": "x"}])).startswith("/items/0")
    assert (await problem([compare_item(0), compare_item(0)])).startswith("/items/1/item_id")
    assert (await problem([compare_item(i) for i in range(4)])).startswith("/items")
    slow = compare_item(0, timeout_s=60)
    assert (await problem([slow])).startswith("/items/0/compare/timeout_s")
    empty = compare_item(0)
    empty["compare"]["prompt"] = ""
    assert "/items/0/compare/prompt" in await problem([empty])
    assert await batches_stored(clean_pg) == 0


async def test_batch_body_has_its_own_size_limit(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(max_body_bytes=600, max_batch_bytes=3000))
    items = [compare_item(i) for i in range(4)]  # over the default limit, under the batch one
    accepted = await client.post("/v1/batches", headers=comparer, json={"items": items})
    assert accepted.status_code == 202, accepted.text
    many = [compare_item(i) for i in range(40)]
    too_big = await client.post("/v1/batches", headers=comparer, json={"items": many})
    assert (too_big.status_code, too_big.json()["type"]) == (413, "payload-too-large")
    await wait_for_batch(client, accepted.json()["id"], comparer)


async def test_scopes_are_checked_per_item_kind(
    client: httpx2.AsyncClient,
    reader: dict[str, str],
    comparer: dict[str, str],
    admin: dict[str, str],
) -> None:
    denied = await client.post("/v1/batches", headers=reader, json={"items": [compare_item(0)]})
    assert denied.status_code == 403
    score = score_item(0, ["sim-a"])
    no_score = await client.post("/v1/batches", headers=comparer, json={"items": [score]})
    assert no_score.status_code == 403
    accepted = await client.post("/v1/batches", headers=admin, json={"items": [score]})
    assert accepted.status_code == 202, accepted.text
    unknown = await client.post(
        "/v1/batches", headers=admin, json={"items": [score_item(1, ["sim-a", "nope"])]}
    )
    assert (unknown.status_code, unknown.json()["detail"][:25]) == (
        422,
        "/items/0/score/judges/1: ",
    )
    missing = await client.get(f"/v1/batches/{'0' * 8}-0000-0000-0000-{'0' * 12}", headers=reader)
    assert (missing.status_code, missing.json()["type"]) == (404, "not-found")
    await wait_for_batch(client, accepted.json()["id"], admin)


async def test_batch_mixing_compare_and_score_items_stores_exactly_the_planned_calls(
    client: httpx2.AsyncClient, admin: dict[str, str], clean_pg: str
) -> None:
    compares = [compare_item(i) for i in range(6)]  # swap by sim-a: two calls each
    scores = [score_item(i, ["sim-a", "sim-b"]) for i in range(4)]  # one call per reviewer
    # Interleaved, so that both kinds run side by side.
    items = [item for pair in zip(compares, scores, strict=False) for item in pair] + compares[4:]
    created = await client.post("/v1/batches", headers=admin, json={"items": items})
    assert created.status_code == 202, created.text
    done = await wait_for_batch(client, created.json()["id"], admin)
    assert (done["status"], done["counts"]["completed"]) == ("completed", 10), done
    assert done["calls"] == 6 * 2 + 4 * 2
    assert await call_stats(clean_pg, done["id"]) == (12, 12)
    assert await score_call_stats(clean_pg, done["id"]) == (8, 8)

    page = (
        await client.get(f"/v1/batches/{done['id']}/results", headers=admin, params={"limit": 20})
    ).json()
    assert [i["item_id"] for i in page["items"]] == [i["item_id"] for i in items]
    scored = [i for i in page["items"] if i["kind"] == "score"]
    assert len(scored) == 4
    for item in scored:
        session = item["score_session"]
        assert (item["comparison"], item["comparison_id"]) == (None, None)
        assert (session["id"], session["status"]) == (item["score_session_id"], "complete")
        assert [sorted(r["raw"]) for r in session["responses"]] == [["sim-a", "sim-b"]] * 3
    stored = await client.get(f"/v1/score-sessions/{scored[0]['score_session_id']}", headers=admin)
    assert stored.json() == scored[0]["score_session"]
    assert all(i["score_session"] is None for i in page["items"] if i["kind"] == "compare")


async def test_cancel_leaves_never_started_items_cancelled_and_running_ones_finish(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(SLOW_SIM, worker_concurrency=1))
    items = [compare_item(i) for i in range(10)]
    batch = (await client.post("/v1/batches", headers=comparer, json={"items": items})).json()
    await wait_for_batch(client, batch["id"], comparer, until=("running",), timeout_s=20)
    cancelled = await client.delete(f"/v1/batches/{batch['id']}", headers=comparer)
    assert cancelled.status_code == 200
    assert cancelled.json()["cancelled_at"]
    # An item still runs: the status says so until it finished, then `cancelled`.
    assert cancelled.json()["status"] in ("running", "cancelled")
    done = await wait_for_batch(client, batch["id"], comparer)
    counts = done["counts"]
    assert counts["cancelled"] >= 7
    assert counts["completed"] >= 1  # the item running at the cancel finished
    assert counts["completed"] + counts["cancelled"] == 10
    assert (done["status"], done["progress"]) == ("cancelled", 1.0)
    total, distinct = await call_stats(clean_pg, batch["id"])
    assert total == distinct == 2 * counts["completed"]


async def test_cancelling_a_batch_whose_items_all_run_cancels_nothing_and_says_so(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    """Every item had started: the DELETE cancels none of them, so the batch is `running` while
    they run and `completed` when they end, never `cancelled` with `cancelled: 0` (issue 37)."""
    client = await live_factory(settings_factory(SLOW_SIM, worker_concurrency=8))
    items = [compare_item(i) for i in range(3)]
    batch = (await client.post("/v1/batches", headers=comparer, json={"items": items})).json()
    path = f"/v1/batches/{batch['id']}"
    for _ in range(200):
        counts = (await client.get(path, headers=comparer)).json()["counts"]
        if counts["running"] == 3:
            break
        await asyncio.sleep(0.01)
    assert counts["running"] == 3, counts
    cancelled = (await client.delete(path, headers=comparer)).json()
    assert cancelled["cancelled_at"]
    assert (cancelled["status"], cancelled["counts"]["cancelled"]) == ("running", 0)
    done = await wait_for_batch(client, batch["id"], comparer)
    assert (done["status"], done["counts"]["completed"], done["counts"]["cancelled"]) == (
        "completed",
        3,
        0,
    )


async def test_privacy_mode_keeps_payloads_encrypted_until_processed_then_deletes_them(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    settings = settings_factory(SLOW_SIM, privacy="hash", worker_concurrency=1)
    client = await live_factory(settings)
    items = [compare_item(i) for i in range(4)]
    batch = (await client.post("/v1/batches", headers=comparer, json={"items": items})).json()
    waiting = (await item_rows(clean_pg, batch["id"]))[-1]
    assert waiting.encrypted
    assert waiting.payload is not None
    assert "good answer" not in waiting.payload
    assert "good answer 3" in crypto.decrypt(settings.secret_key, waiting.payload)
    done = await wait_for_batch(client, batch["id"], comparer)
    assert done["counts"]["completed"] == 4
    assert all(row.payload is None for row in await item_rows(clean_pg, batch["id"]))
