"""Issue 21, honest answers, through the API on PostgreSQL: per-call provider model, what the
verdict fields say, pairs that agree, interrupted comparisons, and the family stored on calls."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx2
from sqlalchemy import delete, select, update

from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.ledger.models import Comparison, JudgeCall

BODY = {"prompt": "What is 2+2?", "response_a": "4\n[sim q=4]", "response_b": "5\n[sim q=-4]"}


async def stored_calls(url: str, comparison_id: str) -> list[JudgeCall]:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        rows = await session.scalars(
            select(JudgeCall)
            .where(JudgeCall.comparison_id == comparison_id)
            .order_by(JudgeCall.judge_name, JudgeCall.round)
        )
        calls = list(rows)
    await engine.dispose()
    return calls


async def test_each_call_shows_the_model_the_provider_reported(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    answer = (await client.post("/v1/compare", headers=comparer, json=BODY)).json()
    shown = answer["judges"][0]["calls"]
    stored = await stored_calls(clean_pg, answer["id"])
    assert [c["provider_model"] for c in shown] == [c.provider_model for c in stored]
    assert all(c["provider_model"] == "sim-a" for c in shown)
    fetched = (await client.get(f"/v1/comparisons/{answer['id']}", headers=comparer)).json()
    assert fetched["judges"][0]["calls"][0]["provider_model"] == "sim-a"


async def test_answer_schema_says_what_bias_detected_and_position_consistent_mean(
    client: httpx2.AsyncClient,
) -> None:
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    comparison = schemas["ComparisonRead"]["properties"]
    result = schemas["JudgeResultRead"]["properties"]
    assert "display order" in comparison["position_consistent"]["description"]
    assert "position_consistent == false" in comparison["bias_detected"]["description"]
    assert "both display orders" in result["position_consistent"]["description"]
    assert "inconsistent" in result["confidence_source"]["description"]
    assert "same vote" in result["pairs_agree"]["description"]


async def test_shuffle_result_says_its_pairs_agree_and_the_answer_names_its_source(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    body = {**BODY, "protocol": {"kind": "shuffle", "pairs": 2}}
    answer = (await client.post("/v1/compare", headers=comparer, json=body)).json()
    result = answer["judges"][0]["result"]
    assert (result["winner"], result["pairs_agree"], result["confidence_source"]) == (
        "A",
        True,
        "votes",
    )
    assert answer["confidence_source"] == "votes"


async def test_swap_result_cannot_tell_whether_pairs_agree_and_keeps_its_calls_source(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    answer = (await client.post("/v1/compare", headers=comparer, json=BODY)).json()
    result = answer["judges"][0]["result"]
    assert result["pairs_agree"] is None
    assert answer["confidence_source"] == result["confidence_source"] == "stated"
    assert answer["confidence"] >= 0.5


async def orphan_before_the_verdict(url: str, comparison_id: str, unfinished_judge: str) -> None:
    """Leave a comparison as a process killed before `unfinished_judge` answered and before
    the verdict was written leaves it."""
    past = utcnow() - timedelta(minutes=5)
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        await session.execute(
            delete(JudgeCall).where(
                JudgeCall.comparison_id == comparison_id, JudgeCall.judge_name == unfinished_judge
            )
        )
        await session.execute(
            update(Comparison)
            .where(Comparison.id == comparison_id)
            .values(
                status="running",
                completed_at=None,
                deadline_at=past,
                winner=None,
                confidence=None,
                agreement=None,
                position_consistent=None,
                bias_detected=None,
                judge_results=None,
            )
        )
        await session.commit()
    await engine.dispose()


async def test_interrupted_comparison_keeps_the_verdict_of_a_judge_that_finished_its_pair(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    body = {**BODY, "judges": ["sim-a", "sim-b"]}
    answer = (await client.post("/v1/compare", headers=comparer, json=body)).json()
    assert answer["winner"] == "A"
    await orphan_before_the_verdict(clean_pg, answer["id"], "sim-b")
    read = (await client.get(f"/v1/comparisons/{answer['id']}", headers=comparer)).json()
    assert (read["status"], read["error_kind"], read["winner"]) == ("partial", "interrupted", "A")
    results = {j["judge"]: j["result"] for j in read["judges"]}
    assert results["sim-a"]["winner"] == "A"
    assert results["sim-b"] is None
    assert read["confidence"] == results["sim-a"]["confidence"]
    assert read["position_consistent"] is True
    assert read["bias_detected"] is False


async def test_an_interrupted_comparison_whose_calls_have_a_gap_is_closed_without_a_verdict(
    client: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    """Its first pair lost (a database blip), a later one stored: no verdict can be derived,
    and the closing must not fail (it would stop the sweep for every job and 500 the read)."""
    body = {**BODY, "judges": ["sim-a"], "protocol": {"kind": "shuffle", "pairs": 2}}
    answer = (await client.post("/v1/compare", headers=comparer, json=body)).json()
    await orphan_before_the_verdict(clean_pg, answer["id"], "no-such-judge")
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        first_pair = JudgeCall.round.in_([0, 1])
        await session.execute(
            delete(JudgeCall).where(JudgeCall.comparison_id == answer["id"], first_pair)
        )
        await session.commit()
    await engine.dispose()
    read = await client.get(f"/v1/comparisons/{answer['id']}", headers=comparer)
    assert read.status_code == 200, read.text
    closed = read.json()
    assert (closed["status"], closed["error_kind"], closed["winner"]) == (
        "partial",
        "interrupted",
        None,
    )


PREFIX_FAMILY_JUDGES = """
default_panel = ["gpt-sim"]

[[judges]]
name = "gpt-sim"
provider = "sim"
model = "gpt-sim-1"

[[judges]]
name = "plain-sim"
provider = "sim"
model = "plain-sim-1"
"""


async def test_judge_whose_family_comes_from_the_prefixes_is_stored_with_it_and_audited(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    reader: dict[str, str],
    clean_pg: str,
) -> None:
    # gpt-sim has no explicit family: FAIRPAIR_FAMILY_PREFIXES makes it openai, so it is
    # conflicted on a gpt- response, exactly as the panel was planned.
    client = await live_factory(settings_factory(PREFIX_FAMILY_JUDGES))
    body = {
        **BODY,
        "response_a": {"text": "4\n[sim q=4]", "model": "gpt-4o"},
        "response_b": {"text": "5\n[sim q=-4]", "model": "claude-3-5-sonnet"},
        "judges": ["gpt-sim", "plain-sim"],
        "self_preference": "audit",
    }
    answer = (await client.post("/v1/compare", headers=comparer, json=body)).json()
    roles = {j["judge"]: j["role"] for j in answer["judges"]}
    assert roles == {"gpt-sim": "audit", "plain-sim": "voter"}
    families = {c.judge_name: c.judge_family for c in await stored_calls(clean_pg, answer["id"])}
    assert families == {"gpt-sim": "openai", "plain-sim": None}
    listed = (await client.get("/v1/judges", headers=reader)).json()["items"]
    assert {j["name"]: j["family"] for j in listed}["gpt-sim"] == "openai"
    report = (await client.get("/v1/bias-report", headers=reader)).json()
    section = next(j for j in report["judges"] if j["judge"] == "gpt-sim")["self_preference"]
    assert section["n"] == 1
    assert section["reason"] != "no_audit_data"


async def test_schema_accepts_a_response_as_plain_text_or_an_object(
    client: httpx2.AsyncClient,
) -> None:
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    request = schemas["CompareRequest"]["properties"]
    for side in ("response_a", "response_b"):
        forms = request[side]["anyOf"]
        assert [form.get("type") for form in forms if "$ref" not in form] == ["string"]
        assert {"$ref": "#/components/schemas/ResponseIn"} in forms


SUBSTITUTE_JUDGES = """
default_panel = ["gpt-sim", "other-sim"]

[[judges]]
name = "gpt-sim"
provider = "sim"
model = "gpt-sim-1"

[[judges]]
name = "plain-sim"
provider = "sim"
model = "plain-sim-1"

[[judges]]
name = "other-sim"
provider = "sim"
model = "other-sim-1"
"""


async def test_conflicted_judges_are_split_by_what_each_policy_did_with_them(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    """`conflicted` lists the conflicted judges under every policy; the added fields say which
    voted, which ran as audits and which did not run (issue 37)."""
    settings = settings_factory(SUBSTITUTE_JUDGES, self_preference_audit_rate=0.0)
    client = await live_factory(settings)
    body = {
        **BODY,
        "response_a": {"text": "4\n[sim q=4]", "model": "gpt-4o"},
        "response_b": {"text": "5\n[sim q=-4]", "model": "claude-3-5-sonnet"},
        "judges": ["gpt-sim", "plain-sim"],
    }
    expected = {
        "allow": (["gpt-sim"], [], []),
        "warn": (["gpt-sim"], [], []),
        "audit": ([], ["gpt-sim"], []),
        "exclude": ([], [], ["gpt-sim"]),
        "substitute": ([], [], ["gpt-sim"]),
    }
    for policy, split in expected.items():
        answer = await client.post(
            "/v1/compare", headers=comparer, json={**body, "self_preference": policy}
        )
        assert answer.status_code == 200, answer.text
        for read in (
            answer.json(),
            (await client.get(f"/v1/comparisons/{answer.json()['id']}", headers=comparer)).json(),
        ):
            assert read["conflicted"] == ["gpt-sim"], policy
            fields = ("conflicted_voters", "conflicted_audits", "conflicted_excluded")
            assert tuple(read[f] for f in fields) == split, (policy, read)
    schema = (await client.get("/openapi.json")).json()["components"]["schemas"]
    assert "that voted" not in schema["ComparisonRead"]["properties"]["conflicted"]["description"]
