"""`POST /v1/score` on PostgreSQL: answers, persistence, idempotency, limits, failures."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from sqlalchemy import func, select

from app.comparisons.service import CompareKind
from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.jobs.closing import JobTables, sweep
from app.scoring.models import Score, ScoreCall, ScoreResponse, ScoreSession
from app.scoring.service import ScoreKind
from app.scoring.stats import length_normalized_score
from tests.scoring.builders import sim_judges_toml

PANEL = sim_judges_toml({"rev-a": -1.0, "rev-b": 0.0, "rev-c": 0.8})
BODY: dict[str, Any] = {
    "prompt": "Explain recursion in one paragraph.",
    "responses": [
        "A function that calls itself on a smaller input until a base case.\n[sim q=1]",
        {"text": "Recursion is when something repeats.\n[sim q=-1]", "model": "gpt-4o"},
        {"text": "It is a loop.\n[sim q=0]", "model": "m-3", "family": "acme"},
    ],
}


def judge(name: str, family: str = "", **knobs: float) -> str:
    """One more `[[judges]]` table for a judges file."""
    family_line = f'family = "{family}"\n' if family else ""
    sim = "[judges.sim]\n" + "".join(f"{k} = {v}\n" for k, v in knobs.items()) if knobs else ""
    return f'\n[[judges]]\nname = "{name}"\nprovider = "sim"\nmodel = "{name}"\n{family_line}{sim}'


async def rows(url: str, model: Any, session_id: str | None = None) -> list[Any]:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as db:
        query = select(model)
        if session_id is not None:
            query = query.where(model.session_id == session_id)
        found = list(await db.scalars(query))
    await engine.dispose()
    return found


async def count(url: str, model: Any) -> int:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as db:
        n = int(await db.scalar(select(func.count()).select_from(model)) or 0)
    await engine.dispose()
    return n


async def test_every_reviewer_scores_every_response_in_its_own_order_and_all_is_stored(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(PANEL))
    response = await client.post("/v1/score", headers=admin, json={**BODY, "tags": {"t": "1"}})
    assert response.status_code == 200, response.text
    assert response.headers["fairpair-simulated"] == "true"
    body = response.json()
    assert body["status"] == "complete"
    assert [r["family"] for r in body["responses"]] == [None, "openai", "acme"]
    assert all(set(r["raw"]) == {"rev-a", "rev-b", "rev-c"} for r in body["responses"])
    assert body["calibration"]["clipped"] is False
    assert len(body["rubric"]["id"]) == 16
    calls = {c.judge_name: c for c in await rows(clean_pg, ScoreCall, body["id"])}
    scores = await rows(clean_pg, Score, body["id"])
    assert len(scores) == 9
    for entry in body["reviewers"]:
        call = calls[entry["reviewer"]]
        assert sorted(call.display_order) == [0, 1, 2]
        assert len(set(call.labels)) == 3
        assert len(call.nonces) == 3
        assert call.template_hash
        assert call.raw_output
        assert call.judge_config_hash
        shown = [(s["response"], s["label"], s["score"]) for s in entry["call"]["shown"]]
        assert shown == list(zip(call.display_order, call.labels, call.scores or [], strict=True))
        for s in scores:
            if s.reviewer == entry["reviewer"]:
                assert call.display_order[s.position - 1] == s.response_index
                assert body["responses"][s.response_index]["raw"][s.reviewer] == s.score
    lengths = [
        r.length
        for r in sorted(
            await rows(clean_pg, ScoreResponse, body["id"]), key=lambda r: r.response_index
        )
    ]
    assert lengths == [r["length"] for r in body["responses"]]
    fetched = await client.get(f"/v1/score-sessions/{body['id']}", headers=admin)
    assert fetched.json() == body


async def test_same_key_and_body_replays_without_new_calls_and_another_body_is_409(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(PANEL))
    headers = {**admin, "Idempotency-Key": "s-1"}
    first = await client.post("/v1/score", headers=headers, json=BODY)
    again = await client.post("/v1/score", headers=headers, json=BODY)
    assert again.status_code == 200
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first.json()
    assert await count(clean_pg, ScoreCall) == 3
    other = await client.post("/v1/score", headers=headers, json={**BODY, "prompt": "other"})
    assert other.status_code == 409
    assert other.json()["type"] == "idempotency-conflict"


async def test_a_concurrent_duplicate_is_409_in_progress(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(
        settings_factory('default_panel = ["slow"]' + judge("slow", latency_ms=500))
    )
    headers = {**admin, "Idempotency-Key": "s-2"}
    first = asyncio.create_task(client.post("/v1/score", headers=headers, json=BODY))
    await asyncio.sleep(0.2)
    second = await client.post("/v1/score", headers=headers, json=BODY)
    assert second.status_code == 409
    assert second.json()["type"] == "idempotency-in-progress"
    assert "retry-after" in second.headers
    assert (await first).status_code == 200


LONG = "x" * 70_000
INVALID: list[tuple[dict[str, Any], str]] = [
    ({**BODY, "responses": ["r"] * 21}, "/responses"),
    ({**BODY, "responses": ["fine", ""]}, "/responses/1/text"),
    # The edge refuses NUL where it stands in the JSON (app/middleware.py): the string itself.
    ({**BODY, "responses": ["fine", "nul \x00"]}, "/responses/1"),
    (
        {
            **BODY,
            "rubric": {
                "levels": [{"score": 1, "description": "bad"}, {"score": 9, "description": "good"}],
                "max": 5,
            },
        },
        "/rubric",
    ),
    ({**BODY, "judges": ["rev-a", "nobody"]}, "/judges/1"),
    ({**BODY, "timeout_s": 500}, "/timeout_s"),
    ({**BODY, "responses": [LONG, LONG, LONG]}, "/responses"),
    ({**BODY, "surprise": 1}, "/surprise"),
    ({**BODY, "criteria": "be fair \x00"}, "/criteria"),
    ({**BODY, "tags": {"team": "a\x00"}}, "/tags/team"),
    (
        {**BODY, "rubric": {"levels": [{"score": 1, "description": "x", "anchors": ["\x00"]}]}},
        "/rubric",
    ),
]


async def test_invalid_requests_are_422_with_a_pointer_and_store_nothing(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(PANEL))
    for body, pointer in INVALID:
        response = await client.post("/v1/score", headers=admin, json=body)
        assert response.status_code == 422, (pointer, response.text)
        problem = response.json()
        assert problem["type"] == "validation-error"
        pointers = [e["pointer"] for e in problem.get("errors", [])]
        found = [p for p in pointers if p.startswith(pointer)] or problem["detail"].startswith(
            pointer
        )
        assert found, (pointer, problem)
    assert await count(clean_pg, ScoreSession) == 0


async def test_too_many_judges_or_calls_point_to_batches(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(PANEL, max_panel=2))
    response = await client.post("/v1/score", headers=admin, json=BODY)
    assert response.status_code == 422
    assert response.json()["type"] == "too-many-calls"
    client = await live_factory(settings_factory(PANEL, max_sync_calls=2))
    response = await client.post("/v1/score", headers=admin, json=BODY)
    assert response.json()["type"] == "too-many-calls"
    assert "/v1/batches" in response.json()["detail"]


async def test_no_reviewer_scoring_is_502_stored_and_releases_the_key(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(
        settings_factory('default_panel = ["bad"]' + judge("bad", malformed_rate=1))
    )
    headers = {**admin, "Idempotency-Key": "s-3"}
    response = await client.post("/v1/score", headers=headers, json=BODY)
    assert response.status_code == 502
    problem = response.json()
    assert problem["type"] == "judges-failed"
    (call,) = await rows(clean_pg, ScoreCall, problem["score_session_id"])
    assert (call.error_kind, call.scores, call.retries) == ("unparseable", None, 1)
    assert call.raw_output  # kept for audit
    stored = (
        await client.get(f"/v1/score-sessions/{problem['score_session_id']}", headers=admin)
    ).json()
    assert stored["status"] == "failed"
    retry = await client.post("/v1/score", headers=headers, json=BODY)
    assert retry.status_code == 502  # the key was released: it ran again
    assert retry.json()["score_session_id"] != problem["score_session_id"]


async def test_the_deadline_cancels_slow_calls_and_stores_them_failed(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(
        settings_factory('default_panel = ["slow"]' + judge("slow", latency_ms=5000))
    )
    response = await client.post("/v1/score", headers=admin, json={**BODY, "timeout_s": 0.3})
    assert response.status_code == 502
    (call,) = await rows(clean_pg, ScoreCall, response.json()["score_session_id"])
    assert call.error_kind == "deadline"
    assert sorted(call.display_order) == [0, 1, 2]


async def test_a_failing_reviewer_makes_the_session_partial(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(PANEL + judge("bad", malformed_rate=1)))
    body = (
        await client.post("/v1/score", headers=admin, json={**BODY, "judges": ["rev-b", "bad"]})
    ).json()
    assert body["status"] == "partial"
    entries = {e["reviewer"]: e for e in body["reviewers"]}
    assert entries["bad"]["call"]["error_kind"] == "unparseable"
    assert all(set(r["raw"]) == {"rev-b"} for r in body["responses"])


async def test_under_exclude_a_reviewer_does_not_score_its_own_family(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    # No audit draw: with the default 5% audit share the exclusion would be an audit now and then.
    settings = settings_factory(
        PANEL + judge("gpt-judge", family="openai"), self_preference_audit_rate=0
    )
    client = await live_factory(settings)
    request = {**BODY, "judges": ["rev-b", "gpt-judge"]}
    body = (await client.post("/v1/score", headers=admin, json=request)).json()
    entries = {e["reviewer"]: e for e in body["reviewers"]}
    assert entries["gpt-judge"]["responses"] == [0, 2]
    calls = {c.judge_name: c for c in await rows(clean_pg, ScoreCall, body["id"])}
    assert sorted(calls["gpt-judge"].display_order) == [0, 2]
    assert body["responses"][1]["excluded"] == ["gpt-judge"]
    assert set(body["responses"][1]["raw"]) == {"rev-b"}
    assert body["conflicted"] == ["gpt-judge"]
    alone = (
        await client.post("/v1/score", headers=admin, json={**request, "judges": ["gpt-judge"]})
    ).json()
    assert alone["self_preference_risk"] is True
    assert set(alone["responses"][1]["raw"]) == {"gpt-judge"}


async def test_audit_scores_are_stored_but_kept_out_of_the_means(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(PANEL + judge("gpt-judge", family="openai")))
    request = {**BODY, "judges": ["rev-b", "gpt-judge"], "self_preference": "audit"}
    body = (await client.post("/v1/score", headers=admin, json=request)).json()
    audited = body["responses"][1]
    assert set(audited["audit"]) == {"gpt-judge"}
    assert audited["raw_mean"] == audited["raw"]["rev-b"]
    stored = {
        (s.reviewer, s.response_index): s.counted for s in await rows(clean_pg, Score, body["id"])
    }
    assert stored[("gpt-judge", 1)] is False
    assert stored[("gpt-judge", 0)] is True


async def test_length_normalized_scores_come_beside_the_raw_ones(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(PANEL))
    request = {**BODY, "length_normalize": True, "length_target": 10}
    body = (await client.post("/v1/score", headers=admin, json=request)).json()
    assert body["length_target"] == 10
    for response in body["responses"]:
        expected = {
            name: length_normalized_score(score, response["length"], 1, 10)
            for name, score in response["raw"].items()
        }
        assert response["length_normalized"] == pytest.approx(expected)
        assert any(response["length_normalized"][n] < s for n, s in response["raw"].items())
        assert response["length_normalized_mean"] == pytest.approx(sum(expected.values()) / 3)


async def test_scopes_and_unknown_sessions(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(PANEL))
    assert (await client.post("/v1/score", headers=reader, json=BODY)).status_code == 403
    assert (await client.get("/v1/score-sessions/nope", headers=reader)).status_code == 404
    schema = (await client.get("/openapi.json")).json()["paths"]
    assert schema["/v1/score"]["post"]["operationId"] == "score"
    assert schema["/v1/score-sessions/{session_id}"]["get"]["operationId"] == "get_score_session"


async def test_privacy_mode_keeps_only_hmacs_of_texts(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(PANEL, privacy="hash"))
    body = (await client.post("/v1/score", headers=admin, json=BODY)).json()
    (session,) = await rows(clean_pg, ScoreSession)
    assert session.prompt is None
    assert session.prompt_hmac
    assert all(r.text is None and r.text_hmac for r in await rows(clean_pg, ScoreResponse))
    assert all(c.raw_output is None and c.raw_output_hmac for c in await rows(clean_pg, ScoreCall))
    assert body["responses"][0]["length"] == len(BODY["responses"][0])


def killed_session() -> ScoreSession:
    """A session a killed process left running, five minutes past its deadline."""
    past = utcnow() - timedelta(minutes=5)
    return ScoreSession(
        id="killed", created_at=past, deadline_at=past, status="running",
        request_hash="h", idempotency_key="k", rubric={"levels": []}, rubric_id="r",
        rubric_min=1, rubric_max=5, self_preference="exclude", timeout_s=1,
        panel={"reviewers": [], "plan": {"requested": [], "responses": []}},
    )  # fmt: skip


async def test_the_sweeper_closes_a_session_left_running_by_a_killed_process(
    clean_pg: str,
) -> None:
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as db:
        db.add(killed_session())
        await db.commit()
        kinds: list[JobTables[Any]] = [CompareKind.tables, ScoreKind.tables]
        assert await sweep(create_sessionmaker(engine), kinds, grace_s=60) == 1
        row = await db.get(ScoreSession, "killed", populate_existing=True)
        assert row is not None
        assert (row.status, row.error_kind, row.idempotency_key) == ("failed", "interrupted", None)
    await engine.dispose()


async def test_a_session_left_running_by_a_killed_process_is_closed_when_read(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(PANEL))
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as db:
        db.add(killed_session())
        await db.commit()
    await engine.dispose()
    stored = (await client.get("/v1/score-sessions/killed", headers=admin)).json()
    assert (stored["status"], stored["error_kind"]) == ("failed", "interrupted")
