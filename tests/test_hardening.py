"""Faults and privacy: database outages, shutdown, rate limits, retention, privacy mode."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.ext.asyncio import AsyncEngine

from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.ledger.models import Comparison, JudgeCall
from app.params import parse_age
from app.retention import purge
from tests.conftest import SIM_JUDGES, write_judges_file
from tests.support.databases import SERVER_URL
from tests.support.provision import postgres_program
from tests.support.proxy import TcpProxy, proxied_database

BODY = {
    "prompt": "Which is right?",
    "response_a": "four\n[sim q=4]",
    "response_b": "five\n[sim q=-4]",
}


def slow_sim(latency_ms: int) -> str:
    return SIM_JUDGES.replace(
        'model = "sim-a"\n', f'model = "sim-a"\n[judges.sim]\nlatency_ms = {latency_ms}\n', 1
    )


@pytest.fixture
async def proxied(own_pg: str, tmp_path: Path) -> AsyncIterator[tuple[TcpProxy, str]]:
    """A proxy in front of PostgreSQL, and the test database's URL through it."""
    proxy, url = await proxied_database(own_pg)
    yield proxy, url
    await proxy.close()


def proxied_settings(url: str, tmp_path: Path, toml: str = SIM_JUDGES) -> Settings:
    return Settings(
        database_url=url,
        secret_key="test-secret",
        auth="off",
        judges_file=write_judges_file(tmp_path, toml),
        sweep_interval_s=3600,
    )


async def test_database_outage_is_503_and_the_same_process_recovers(
    proxied: tuple[TcpProxy, str], tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    proxy, url = proxied
    client = await live_factory(proxied_settings(url, tmp_path))
    assert (await client.post("/v1/compare", json=BODY)).status_code == 200
    await proxy.close()
    down = await client.post("/v1/compare", json=BODY)
    assert down.status_code == 503
    assert down.headers["content-type"] == "application/problem+json"
    assert down.json()["type"] == "service-unavailable"
    assert (await client.get("/readyz")).status_code == 503
    await proxy.open()
    assert (await client.get("/readyz")).status_code == 200
    assert (await client.post("/v1/compare", json=BODY)).status_code == 200


async def test_outage_after_the_judges_answered_returns_the_result_not_persisted(
    proxied: tuple[TcpProxy, str], tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    proxy, url = proxied
    settings = proxied_settings(url, tmp_path, slow_sim(600))
    client = await live_factory(settings.model_copy(update={"judge_refresh_s": 3600}))
    # Warm: the judges' revisions are read, so the next request reaches its judges without the
    # database (a cold one, on a loaded machine, could still be planning when the proxy closes).
    assert (await client.post("/v1/compare", json=BODY)).status_code == 200
    request = asyncio.create_task(client.post("/v1/compare", json=BODY))
    await asyncio.sleep(0.3)
    await proxy.close()
    response = await request
    assert response.status_code == 503
    problem = response.json()
    assert problem["not_persisted"] is True
    assert problem["result"]["winner"] == "A"
    assert len(problem["result"]["judges"][0]["calls"]) == 2


async def insert_waits_for_the_lock(engine: AsyncEngine) -> None:
    """Return once an INSERT into comparisons is waiting for a lock (at most 10 s)."""
    waiting = text(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
        "AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO comparisons%'"
    )
    async with asyncio.timeout(10):
        while True:
            async with engine.connect() as conn:
                if (await conn.execute(waiting)).scalar_one():
                    return
            await asyncio.sleep(0.02)


async def test_comparison_insert_lost_while_the_judges_answer_returns_the_result_not_persisted(
    proxied: tuple[TcpProxy, str], own_pg: str, tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    # Without an Idempotency-Key the comparison's row is inserted beside the judge calls. Hold
    # that INSERT behind a table lock, cut the database while it waits, let the judge answer.
    proxy, url = proxied
    client = await live_factory(proxied_settings(url, tmp_path, slow_sim(600)))
    locker = create_engine(own_pg)
    async with locker.connect() as lock:
        await lock.execute(text("LOCK TABLE comparisons IN EXCLUSIVE MODE"))
        request = asyncio.create_task(client.post("/v1/compare", json=BODY))
        await insert_waits_for_the_lock(locker)
        await proxy.close()
        response = await request
        await lock.rollback()
    await proxy.open()

    assert response.status_code == 503
    problem = response.json()
    assert problem["not_persisted"] is True
    assert problem["result"]["winner"] == "A"  # the judges were asked while the INSERT waited
    assert len(problem["result"]["judges"][0]["calls"]) == 2
    async with locker.connect() as conn:
        stored = await conn.execute(select(func.count()).select_from(Comparison))
        assert stored.scalar_one() == 0
        calls = await conn.execute(select(func.count()).select_from(JudgeCall))
        assert calls.scalar_one() == 0
    await locker.dispose()


async def test_shutdown_interrupts_what_cannot_finish_and_keeps_its_calls(
    settings_factory: Callable[..., Settings], clean_pg: str
) -> None:
    from app.main import create_app
    from tests.support.live import LiveApp

    settings = settings_factory(slow_sim(300), auth="off", shutdown_grace_s=1.0)
    live = LiveApp(create_app(settings))
    await live.__aenter__()
    client = httpx2.AsyncClient(
        transport=httpx2.ASGITransport(app=live), base_url="http://127.0.0.1"
    )
    shuffle = {
        **BODY,
        "response_a": "x\n[sim q=0]",
        "response_b": "y\n[sim q=0]",
        "protocol": {"kind": "shuffle", "pairs": 5},
    }
    requests = [asyncio.create_task(client.post("/v1/compare", json=shuffle)) for _ in range(5)]
    await asyncio.sleep(0.2)
    for request in requests:
        request.cancel()  # clients gone; the comparisons keep running
    await live.__aexit__(None, None, None)  # shutdown: 0.6 s grace, then interrupt
    await client.aclose()
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        rows = list(await session.scalars(select(Comparison)))
        counts = await session.execute(
            select(JudgeCall.comparison_id, func.count())
            .where(JudgeCall.pick.is_not(None))
            .group_by(JudgeCall.comparison_id)
        )
        parsed: dict[str, int] = dict(counts.all())
    await engine.dispose()
    assert len(rows) == 5
    assert all(r.status == "complete" or r.error_kind == "interrupted" for r in rows)
    interrupted = [r for r in rows if r.error_kind == "interrupted"]
    assert interrupted
    for row in interrupted:  # partial exactly when a call obtained before shutdown was kept
        assert row.status == ("partial" if parsed.get(row.id) else "failed")
    assert sum(parsed.values()) > 0


async def test_per_key_rate_limit_is_429_with_retry_after(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(rate_limit_per_minute=3))
    statuses = [(await client.get("/v1/judges", headers=reader)).status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    limited = await client.get("/v1/judges", headers=reader)
    assert limited.json()["type"] == "rate-limited"
    assert int(limited.headers["retry-after"]) >= 1


async def test_purge_removes_old_comparisons_or_only_their_texts(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    ids = [
        (await client.post("/v1/compare", headers=comparer, json=BODY)).json()["id"]
        for _ in range(2)
    ]
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    async with maker() as session:
        await session.execute(
            update(Comparison)
            .where(Comparison.id == ids[0])
            .values(created_at=utcnow() - timedelta(days=100))
        )
        await session.commit()
        for texts_only in (True, False):  # a dry run counts what it would touch, touches nothing
            dry = await purge(
                session, utcnow() - parse_age("90d"), texts_only=texts_only, dry_run=True
            )
            assert (dry.comparisons, dry.calls) == (1, 2)
            kept = await session.get(Comparison, ids[0], populate_existing=True)
            assert kept is not None
            assert kept.prompt == BODY["prompt"]
        texts = await purge(session, utcnow() - parse_age("90d"), texts_only=True)
        assert (texts.comparisons, texts.calls) == (1, 2)
        old = await session.get(Comparison, ids[0])
        assert old is not None
        assert old.prompt is None
        assert old.len_a == len(BODY["response_a"])
        gone = await purge(session, utcnow() - parse_age("90d"), texts_only=False)
        assert (gone.comparisons, gone.calls) == (1, 2)
        left = list(await session.scalars(select(Comparison.id)))
    await engine.dispose()
    assert left == [ids[1]]


async def test_privacy_mode_stores_no_text_anywhere(
    own_pg: str,
    tmp_path: Path,
    live_factory: Callable[..., Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    secret_prompt = "PROMPT-7d1f0b secret question"
    body = {
        "prompt": secret_prompt,
        "response_a": "ANSWER-A-91c2 first\n[sim q=4]",
        "response_b": "ANSWER-B-44e8 second\n[sim q=-4]",
        "reference": "REFERENCE-55aa",
    }
    settings = Settings(
        database_url=own_pg,
        secret_key="test-secret",
        auth="off",
        privacy="hash",
        judges_file=write_judges_file(tmp_path, SIM_JUDGES),
    )
    client = await live_factory(settings)
    answer = await client.post("/v1/compare", json=body)
    assert answer.status_code == 200
    assert answer.json()["winner"] == "A"
    database = own_pg.rsplit("/", 1)[1]
    dump = subprocess.run(  # noqa: ASYNC221 - a one-off dump after the traffic
        [postgres_program("pg_dump"), "--data-only", f"--dbname={SERVER_URL}/{database}"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    logs = capsys.readouterr()
    for marker in ("PROMPT-7d1f0b", "ANSWER-A-91c2", "ANSWER-B-44e8", "REFERENCE-55aa"):
        assert marker not in dump
        assert marker not in logs.out + logs.err
    engine = create_engine(own_pg)
    async with create_sessionmaker(engine)() as session:
        row = await session.scalar(select(Comparison))
        raw = list(await session.scalars(select(JudgeCall.raw_output)))
    await engine.dispose()
    assert row is not None
    assert row.prompt_hmac
    assert row.len_a == len(body["response_a"])
    assert raw == [None, None]


async def test_a_database_that_stops_answering_fails_the_compare_within_its_bound_and_recovers(
    proxied: tuple[TcpProxy, str], tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    # Issue 36: every wait on another party has a bound. A server that keeps its connections
    # open and says nothing (a network partition, a frozen host) never fails a statement by
    # itself; asyncpg's client-side timeout does.
    proxy, url = proxied
    settings = proxied_settings(url, tmp_path).model_copy(
        update={"database_timeout_s": 1.0, "judge_refresh_s": 3600}
    )
    client = await live_factory(settings)
    assert (await client.post("/v1/compare", json=BODY)).status_code == 200
    proxy.stall()
    async with asyncio.timeout(20):  # a bound on the test, far above the 1 s one under test
        stalled = await client.post("/v1/compare", json=BODY)
        not_ready = await client.get("/readyz")
    assert stalled.status_code == 503, stalled.text
    assert stalled.json()["type"] == "service-unavailable"
    assert not_ready.status_code == 503
    proxy.resume()
    # Connections that timed out are closed as they are found; the next ones connect afresh.
    for _ in range(100):
        if (await client.get("/readyz")).status_code == 200:
            break
        await asyncio.sleep(0.1)
    assert (await client.post("/v1/compare", json=BODY)).status_code == 200
