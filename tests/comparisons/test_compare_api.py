"""`POST /v1/compare` end to end on PostgreSQL: verdicts, persistence, idempotency, failures."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx2
from sqlalchemy import func, select

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.judging.types import SimKnobs
from app.ledger.models import Comparison, JudgeCall
from tests.support.sim import CountingTransport, http_sim_judges_toml

EQUAL = "\n[sim q=0]"
BODY = {"prompt": "What is 2+2?", "response_a": "4\n[sim q=4]", "response_b": "5\n[sim q=-4]"}


def sim_judges(**knobs: float) -> str:
    """A judges file with one in-process sim judge with these knobs."""
    lines = "\n".join(f"{k} = {v}" for k, v in knobs.items())
    return f"""
default_panel = ["sim-x"]

[[judges]]
name = "sim-x"
provider = "sim"
model = "sim-x"

[judges.sim]
{lines}
"""


async def statuses_become(url: str, wanted: set[str], timeout_s: float = 10.0) -> bool:
    """Wait until the stored comparisons' statuses are exactly `wanted`; False at the timeout."""
    engine = create_engine(url)
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                async with engine.connect() as conn:
                    found = set((await conn.scalars(select(Comparison.status))).all())
                if found == wanted:
                    return True
                await asyncio.sleep(0.02)
    except TimeoutError:
        return False
    finally:
        await engine.dispose()


async def stored_calls(url: str, comparison_id: str) -> list[JudgeCall]:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        rows = await session.scalars(
            select(JudgeCall)
            .where(JudgeCall.comparison_id == comparison_id)
            .order_by(JudgeCall.round)
        )
        calls = list(rows)
    await engine.dispose()
    return calls


async def test_swap_verdict_follows_quality_and_every_call_is_stored(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    response = await client.post("/v1/compare", headers=comparer, json=BODY)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "complete"
    assert body["winner"] == "A"
    assert body["simulated"] is True
    assert response.headers["fairpair-simulated"] == "true"
    calls = await stored_calls(clean_pg, body["id"])
    assert [(c.round, c.display_order, c.design) for c in calls] == [
        (0, "AB", True),
        (1, "BA", True),
    ]
    for stored, shown in zip(calls, body["judges"][0]["calls"], strict=True):
        assert {"A": stored.label_a, "B": stored.label_b} == shown["labels"]
        assert stored.label_pair == shown["label_pair"]
        assert stored.nonces
        assert stored.template_hash
    fetched = await client.get(f"/v1/comparisons/{body['id']}", headers=comparer)
    assert fetched.json() == body


async def test_inconsistent_orders_give_tie_and_flag_bias(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    # A judge that always picks the first slot disagrees with itself across the swap.
    client = await live_factory(settings_factory(sim_judges(position_bias=50)))
    body = {"prompt": "p", "response_a": "a" + EQUAL, "response_b": "b" + EQUAL}
    answer = (await client.post("/v1/compare", headers=comparer, json=body)).json()
    assert answer["winner"] == "tie"
    assert answer["bias_detected"] is True
    assert answer["position_consistent"] is False
    assert answer["confidence"] == 0.5


async def test_the_two_calls_of_a_pair_overlap(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(sim_judges(latency_ms=200)))
    answer = (await client.post("/v1/compare", headers=comparer, json=BODY)).json()
    first, second = await stored_calls(clean_pg, answer["id"])
    assert first.started_at < second.finished_at
    assert second.started_at < first.finished_at


async def test_same_key_and_body_replays_without_new_judge_requests(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    sim = CountingTransport(SimKnobs())
    client = await live_factory(
        settings_factory(http_sim_judges_toml()), transport_for=lambda _name: sim
    )
    headers = {**comparer, "Idempotency-Key": "k-1"}
    first = await client.post("/v1/compare", headers=headers, json=BODY)
    assert first.status_code == 200, first.text
    assert first.json()["simulated"] is False  # an OpenAI-compatible judge, not the built-in sim
    requests_after_first = sim.requests
    again = await client.post("/v1/compare", headers=headers, json=BODY)
    assert again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert sim.requests == requests_after_first == 2


async def test_an_empty_idempotency_key_is_no_key(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    # It was stored as the key "" without being looked up: the second request then collided with
    # the first one's row (a 500 found by the schema fuzzer).
    headers = {**comparer, "Idempotency-Key": ""}
    first = await client.post("/v1/compare", headers=headers, json=BODY)
    second = await client.post("/v1/compare", headers=headers, json={**BODY, "prompt": "other"})
    assert (first.status_code, second.status_code) == (200, 200), second.text
    assert "idempotent-replayed" not in second.headers
    assert first.json()["id"] != second.json()["id"]


async def test_same_key_with_another_body_is_409(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    headers = {**comparer, "Idempotency-Key": "k-2"}
    assert (await client.post("/v1/compare", headers=headers, json=BODY)).status_code == 200
    other = await client.post("/v1/compare", headers=headers, json={**BODY, "prompt": "other"})
    assert other.status_code == 409
    assert other.json()["type"] == "idempotency-conflict"


async def test_concurrent_duplicate_is_409_in_progress(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(sim_judges(latency_ms=500)))
    headers = {**comparer, "Idempotency-Key": "k-3"}
    first = asyncio.create_task(client.post("/v1/compare", headers=headers, json=BODY))
    await asyncio.sleep(0.2)
    second = await client.post("/v1/compare", headers=headers, json=BODY)
    assert second.status_code == 409
    assert second.json()["type"] == "idempotency-in-progress"
    assert "retry-after" in second.headers
    assert (await first).status_code == 200


async def test_all_calls_failing_gives_502_with_the_stored_comparison(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(sim_judges(malformed_rate=1)))
    response = await client.post("/v1/compare", headers=comparer, json=BODY)
    assert response.status_code == 502
    problem = response.json()
    assert problem["type"] == "judges-failed"
    calls = await stored_calls(clean_pg, problem["comparison_id"])
    assert [c.error_kind for c in calls] == ["unparseable", "unparseable"]
    assert all(c.raw_output for c in calls)  # kept for audit
    stored = (
        await client.get(f"/v1/comparisons/{problem['comparison_id']}", headers=comparer)
    ).json()
    assert stored["status"] == "failed"
    assert stored["winner"] is None


async def test_a_judge_without_result_makes_the_comparison_partial(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    toml = (
        sim_judges() + '\n[[judges]]\nname = "broken"\nprovider = "sim"\nmodel = "broken"\n'
        "[judges.sim]\nmalformed_rate = 1\n"
    )
    client = await live_factory(settings_factory(toml))
    answer = (
        await client.post(
            "/v1/compare", headers=comparer, json={**BODY, "judges": ["sim-x", "broken"]}
        )
    ).json()
    assert answer["status"] == "partial"
    assert answer["winner"] == "A"
    results = {j["judge"]: j["result"] for j in answer["judges"]}
    assert results["broken"] is None


async def test_deadline_cancels_slow_calls_and_stores_them_failed(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(sim_judges(latency_ms=5000)))
    response = await client.post("/v1/compare", headers=comparer, json={**BODY, "timeout_s": 0.3})
    assert response.status_code == 502
    calls = await stored_calls(clean_pg, response.json()["comparison_id"])
    assert [c.error_kind for c in calls] == ["deadline", "deadline"]


async def test_list_filters_by_tag_and_pages_with_a_cursor(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    for i in range(3):
        body = {**BODY, "tags": {"team": "search" if i < 2 else "ads", "i": str(i)}}
        assert (await client.post("/v1/compare", headers=comparer, json=body)).status_code == 200
    page = (await client.get("/v1/comparisons?tag=team:search&limit=1", headers=comparer)).json()
    assert len(page["items"]) == 1
    assert page["items"][0]["tags"]["i"] == "1"  # newest first
    rest = (
        await client.get(
            f"/v1/comparisons?tag=team:search&limit=1&cursor={page['next_cursor']}",
            headers=comparer,
        )
    ).json()
    assert [c["tags"]["i"] for c in rest["items"]] == ["0"]
    assert rest["next_cursor"] is None


async def test_card_alias_post_compare_works_and_is_hidden(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    assert (await client.post("/compare", headers=comparer, json=BODY)).status_code == 200
    paths = (await client.get("/openapi.json")).json()["paths"]
    assert "/compare" not in paths
    assert paths["/v1/compare"]["post"]["operationId"] == "compare"


async def test_interrupted_comparisons_are_swept(clean_pg: str) -> None:
    from datetime import timedelta

    from app.comparisons.service import CompareKind
    from app.db import utcnow
    from app.jobs.closing import sweep
    from app.scoring.service import ScoreKind

    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    async with maker() as session:
        past = utcnow() - timedelta(minutes=5)
        session.add(
            Comparison(
                id="c-1",
                created_at=past,
                deadline_at=past,
                status="running",
                request_hash="h",
                len_a=1,
                len_b=1,
                protocol="swap",
                protocol_params={},
                planned_rounds=2,
                self_preference="exclude",
                timeout_s=1,
                panel={"judges": [], "excluded": []},
            )
        )
        await session.commit()
    assert await sweep(maker, [CompareKind.tables, ScoreKind.tables], grace_s=0) == 1
    async with maker() as session:
        row = await session.get(Comparison, "c-1")
        assert row is not None
        assert (row.status, row.error_kind) == ("failed", "interrupted")
        assert await session.scalar(select(func.count()).select_from(Comparison)) == 1
    await engine.dispose()


async def test_client_disconnect_does_not_cancel_and_a_retry_gets_the_stored_answer(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(sim_judges(latency_ms=400)))
    headers = {**comparer, "Idempotency-Key": "k-disconnect"}
    request = asyncio.create_task(client.post("/v1/compare", headers=headers, json=BODY))
    # Leave once the comparison is under way (a fixed sleep sometimes left before it started).
    assert await statuses_become(clean_pg, {"running"})
    request.cancel()  # the client goes away mid-comparison
    assert await statuses_become(clean_pg, {"complete"})
    retry = await client.post("/v1/compare", headers=headers, json=BODY)
    assert retry.status_code == 200
    assert retry.headers["idempotent-replayed"] == "true"
    assert retry.json()["status"] == "complete"
    assert len(await stored_calls(clean_pg, retry.json()["id"])) == 2


async def test_single_shows_one_order_and_so_detects_nothing_rather_than_no_bias(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    # A judge that always picks the first slot: under single nobody can see it.
    client = await live_factory(settings_factory(sim_judges(position_bias=50)))
    body = {**BODY, "protocol": {"kind": "single"}}
    answer = (await client.post("/v1/compare", headers=comparer, json=body)).json()
    assert answer["status"] == "complete"
    assert (answer["position_consistent"], answer["bias_detected"]) == (None, None)
    assert answer["judges"][0]["result"]["position_consistent"] is None
    fetched = (await client.get(f"/v1/comparisons/{answer['id']}", headers=comparer)).json()
    assert fetched["bias_detected"] is None
    # Stored null too, so the explorer's `bias_detected=false` does not list it as checked.
    engine = create_engine(clean_pg)
    async with engine.connect() as conn:
        stored = await conn.scalar(
            select(Comparison.bias_detected).where(Comparison.id == answer["id"])
        )
    await engine.dispose()
    assert stored is None
