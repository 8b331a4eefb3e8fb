"""Privacy mode means no submitted text (issue 18 item 8).

With `FAIRPAIR_PRIVACY=hash` the app runs comparisons, score sessions and a batch carrying
criteria, rubric texts, tags, Idempotency-Keys and item ids, with one judge that fails with an
error text quoting the request (a provider's 400 often does). Then every text, varchar and json
column of every table is searched for each submitted string: none may appear. Tag filters and
idempotent replays still work (they hash the incoming value as the stored one was hashed), and
every read answers. `purge` removes score sessions and raw outputs as it does comparisons.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy import func, select, text

from app.batches.schemas import BatchCreate
from app.comparisons.schemas import CompareRequest
from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.jobs.idempotency import request_hash
from app.ledger.models import JudgeCall
from app.retention import purge
from app.scoring.models import Score, ScoreCall, ScoreResponse, ScoreSession
from app.scoring.schemas import ScoreRequest
from tests.batches.support import wait_for_batch
from tests.conftest import SIM_JUDGES, TEST_SECRET_KEY, write_judges_file
from tests.hardening.support import http_judge

# Each submitted string is marked so that no digest, id or token can contain it by chance.
SECRET = {
    name: f"Zq{name}Zq-private"
    for name in (
        "prompt", "answerA", "answerB", "reference", "criteria", "critname", "critdesc",
        "level", "anchor", "tagcmp", "tagscore", "tagbatch", "idemcmp", "idemscore",
        "idembatch", "itemid", "itemprompt", "itemtag", "providererror",
    )
}  # fmt: skip
TEXT_COLUMN_TYPES = ("text", "character varying", "json", "jsonb")


class RefusingProvider(BaseHTTPRequestHandler):
    """An OpenAI-style provider answering 400 with an error text that quotes the request."""

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        quoted = " ".join(str(m["content"]) for m in body["messages"])[:2000]
        answer = json.dumps(
            {"error": {"message": f"{SECRET['providererror']} refused: {quoted}"}}
        ).encode()
        self.send_response(400)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *_args: Any) -> None:
        """Quiet: the test reads what the app stored, not the server's log."""


@contextmanager
def refusing_provider() -> Iterator[str]:
    """The `/v1` base URL of a local provider that refuses every call."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), RefusingProvider)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def judges_toml(refusing_url: str) -> str:
    """Two sim judges and one that always fails with a provider error text."""
    return SIM_JUDGES + http_judge("refuser", refusing_url)


def private_settings(database_url: str, tmp_path: Path, refusing_url: str) -> Settings:
    return Settings(
        database_url=database_url,
        secret_key=TEST_SECRET_KEY,
        auth="off",
        privacy="hash",
        judges_file=write_judges_file(tmp_path, judges_toml(refusing_url)),
        sweep_interval_s=3600,
    )


def compare_body() -> dict[str, Any]:
    return {
        "prompt": SECRET["prompt"],
        "response_a": {"text": SECRET["answerA"] + "\n[sim q=2]", "model": "model-x"},
        "response_b": {"text": SECRET["answerB"] + "\n[sim q=-2]", "model": "model-y"},
        "reference": SECRET["reference"],
        "criteria": SECRET["criteria"],
        "judges": ["sim-a", "refuser"],
        "tags": {"team": SECRET["tagcmp"]},
    }


def score_body() -> dict[str, Any]:
    return {
        "prompt": SECRET["prompt"],
        "responses": [SECRET["answerA"] + "\n[sim q=2]", SECRET["answerB"] + "\n[sim q=-2]"],
        "rubric": {
            "levels": [
                {"score": 1, "description": SECRET["level"] + " low"},
                {
                    "score": 5,
                    "description": SECRET["level"] + " high",
                    "anchors": [SECRET["anchor"]],
                },
            ]
        },
        "criteria": [{"name": SECRET["critname"], "weight": 1, "description": SECRET["critdesc"]}],
        "judges": ["sim-a", "sim-b", "refuser"],
        "tags": {"team": SECRET["tagscore"]},
    }


def batch_body() -> dict[str, Any]:
    item = compare_body() | {"prompt": SECRET["itemprompt"], "tags": {"team": SECRET["itemtag"]}}
    return {"items": [{"item_id": SECRET["itemid"], "compare": item}]}


async def post_twice(
    client: httpx2.AsyncClient, path: str, body: dict[str, Any], key: str
) -> tuple[dict[str, Any], httpx2.Response]:
    """The first answer, and the replay of the same request under the same Idempotency-Key."""
    first = await client.post(path, json=body, headers={"Idempotency-Key": key})
    assert first.status_code in (200, 202), first.text
    again = await client.post(path, json=body, headers={"Idempotency-Key": key})
    assert again.status_code == first.status_code, again.text
    assert again.headers.get("idempotent-replayed") == "true"
    assert again.json()["id"] == first.json()["id"]
    return first.json(), again


async def stored_text_values(url: str) -> dict[str, list[str]]:
    """Every non-null value of every text, varchar and json column, by `table.column`."""
    engine = create_engine(url)
    found: dict[str, list[str]] = {}
    async with engine.connect() as connection:
        columns = await connection.execute(
            text(
                "SELECT table_name, column_name FROM information_schema.columns "
                "WHERE table_schema = 'public' AND data_type = ANY(:types)"
            ),
            {"types": list(TEXT_COLUMN_TYPES)},
        )
        for table, column in columns.all():
            values = await connection.scalars(
                text(f'SELECT "{column}"::text FROM "{table}" WHERE "{column}" IS NOT NULL')
            )
            found[f"{table}.{column}"] = list(values)
    await engine.dispose()
    return found


async def count(url: str, model: Any) -> int:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        n = await session.scalar(select(func.count()).select_from(model))
    await engine.dispose()
    return int(n or 0)


async def run_everything(client: httpx2.AsyncClient) -> dict[str, Any]:
    """A comparison, a score session and a batch, each posted twice under one key."""
    comparison, _ = await post_twice(client, "/v1/compare", compare_body(), SECRET["idemcmp"])
    assert comparison["status"] == "partial"  # the refusing judge failed; sim-a decided
    session, _ = await post_twice(client, "/v1/score", score_body(), SECRET["idemscore"])
    assert session["status"] == "partial"
    batch, _ = await post_twice(client, "/v1/batches", batch_body(), SECRET["idembatch"])
    done = await wait_for_batch(client, batch["id"], {})
    assert done["counts"]["completed"] == 1, done
    return {"comparison": comparison, "session": session, "batch": batch}


async def test_privacy_mode_stores_no_submitted_text_in_any_column(
    own_pg: str, tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    with refusing_provider() as refusing_url:
        client = await live_factory(private_settings(own_pg, tmp_path, refusing_url))
        await run_everything(client)
    stored = await stored_text_values(own_pg)
    assert "comparisons.criteria" in stored  # the scan sees the columns it must
    leaks = {
        (column, name)
        for column, values in stored.items()
        for name, secret in SECRET.items()
        if any(secret in value for value in values)
    }
    assert leaks == set()
    plain_hashes = {  # a plain hash of a request would confirm a guessed one
        request_hash(CompareRequest.model_validate(compare_body())),
        request_hash(ScoreRequest.model_validate(score_body())),
        request_hash(BatchCreate.model_validate(batch_body())),
    }
    assert not [v for values in stored.values() for v in values if v in plain_hashes]
    assert await count(own_pg, ScoreSession) == 1  # the scan looked at stored sessions
    failed = [c for c in await all_calls(own_pg) if c.error_kind == "bad_request"]
    assert failed  # the refusing judge's calls are stored, without their error text


async def all_calls(url: str) -> list[JudgeCall]:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        calls = list(await session.scalars(select(JudgeCall)))
    await engine.dispose()
    return calls


async def test_privacy_mode_keeps_tag_filters_replays_and_reads_working(
    own_pg: str, tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    with refusing_provider() as refusing_url:
        client = await live_factory(private_settings(own_pg, tmp_path, refusing_url))
        ran = await run_everything(client)
        comparison_id = ran["comparison"]["id"]
        # The leaderboard counts complete comparisons only: one without the refusing judge.
        complete = await client.post("/v1/compare", json=compare_body() | {"judges": ["sim-a"]})
        assert complete.json()["status"] == "complete", complete.text

        tagged = await client.get("/v1/comparisons", params={"tag": f"team:{SECRET['tagcmp']}"})
        found = {c["id"] for c in tagged.json()["items"]}
        assert found == {comparison_id, complete.json()["id"]}
        other = await client.get("/v1/comparisons", params={"tag": "team:someone-else"})
        assert other.json()["items"] == []
        board = await client.get("/v1/leaderboard", params={"tag": f"team:{SECRET['tagcmp']}"})
        assert board.status_code == 200, board.text
        assert board.json()["n"] == 1
        empty_board = await client.get("/v1/leaderboard", params={"tag": "team:someone-else"})
        assert empty_board.json()["n"] == 0

        reads = [
            f"/v1/comparisons/{comparison_id}",
            f"/v1/score-sessions/{ran['session']['id']}",
            f"/v1/batches/{ran['batch']['id']}",
            f"/v1/batches/{ran['batch']['id']}/results",
            "/v1/labeling-queue",
            f"/v1/bias-report?tag=team:{SECRET['tagcmp']}",
            f"/v1/bias-report?tag=team:{SECRET['tagscore']}",
            "/dashboard",
            f"/dashboard?tag=team:{SECRET['tagcmp']}",
            "/dashboard/reviewers",
            "/dashboard/position-score",
            f"/dashboard/leaderboard?tag=team:{SECRET['tagcmp']}",
        ]
        for path in reads:
            response = await client.get(path)
            assert response.status_code == 200, (path, response.text)
    results = (await client.get(f"/v1/batches/{ran['batch']['id']}/results")).json()["items"]
    assert [item["position"] for item in results] == [0]  # matched by position, not item id
    assert SECRET["itemid"] not in json.dumps(results)


async def test_purge_covers_score_sessions_and_raw_outputs(
    clean_pg: str, settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> None:
    client = await live_factory(settings_factory(auth="off"))
    compared = await client.post("/v1/compare", json=compare_body() | {"judges": ["sim-a"]})
    assert compared.status_code == 200, compared.text
    scored = await client.post("/v1/score", json=score_body() | {"judges": ["sim-a", "sim-b"]})
    assert scored.status_code == 200, scored.text
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    later = utcnow() + timedelta(minutes=1)  # everything stored so far is older
    async with maker() as session:
        stripped = await purge(session, later, texts_only=True)
    assert (stripped.comparisons, stripped.score_sessions, stripped.score_calls) == (1, 1, 2)
    async with maker() as session:
        assert await session.scalar(select(ScoreSession.prompt)) is None
        assert set(await session.scalars(select(ScoreResponse.text))) == {None}
        assert set(await session.scalars(select(ScoreCall.raw_output))) == {None}
        assert set(await session.scalars(select(JudgeCall.raw_output))) == {None}
        assert set(await session.scalars(select(ScoreSession.criteria))) == {None}
    async with maker() as session:
        deleted = await purge(session, later, texts_only=False)
    assert (deleted.comparisons, deleted.score_sessions, deleted.score_calls) == (1, 1, 2)
    async with maker() as session:
        for model in (ScoreSession, ScoreCall, ScoreResponse, Score, JudgeCall):
            assert await session.scalar(select(func.count()).select_from(model)) == 0, model
    await engine.dispose()
