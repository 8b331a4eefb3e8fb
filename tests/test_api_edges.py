"""Issue 21 ("Honest answers"): blank texts, problem+json for 400/405, bad ids, readiness."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

PROBLEM = "application/problem+json"
GOOD = {"prompt": "Which is right?", "response_a": "four", "response_b": "five"}


@pytest.mark.parametrize(
    ("route", "body", "pointer"),
    [
        ("/v1/compare", {**GOOD, "prompt": " \n\t "}, "/prompt"),
        ("/v1/compare", {**GOOD, "response_a": "   "}, "/response_a/text"),
        ("/v1/compare", {**GOOD, "response_b": {"text": "\u3000\n"}}, "/response_b/text"),
        ("/v1/compare", {**GOOD, "criteria": "  "}, "/criteria"),
        ("/v1/compare", {**GOOD, "reference": " \n"}, "/reference"),
        ("/v1/compare", {**GOOD, "criteria": [{"name": " ", "weight": 1}]}, "/criteria"),
        ("/v1/score", {"prompt": "p", "responses": ["fine", " \t"]}, "/responses/1/text"),
        ("/v1/score", {"prompt": "\n", "responses": ["fine"]}, "/prompt"),
        (
            "/v1/score",
            {
                "prompt": "p",
                "responses": ["fine"],
                "rubric": {
                    "levels": [{"score": 1, "description": " "}, {"score": 2, "description": "ok"}]
                },
            },
            "/rubric/levels/0/description",
        ),
    ],
)
async def test_whitespace_only_texts_are_422(
    client: httpx2.AsyncClient,
    admin: dict[str, str],
    route: str,
    body: dict[str, Any],
    pointer: str,
) -> None:
    answer = await client.post(route, headers=admin, json=body)
    assert answer.status_code == 422, answer.text
    problem = answer.json()
    assert problem["type"] == "validation-error"
    assert any(e["pointer"].startswith(pointer) for e in problem["errors"]), problem


async def test_400_and_405_are_documented_problems_with_listed_slugs(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    openapi = (await client.get("/openapi.json")).json()
    compare = openapi["paths"]["/v1/compare"]["post"]["responses"]
    assert PROBLEM in compare["400"]["content"]
    not_json = await client.post(
        "/v1/compare", headers={**admin, "Content-Type": "application/json"}, content=b"{"
    )
    wrong_method = await client.put("/v1/compare", headers=admin)
    for answer, status, slug in (
        (not_json, 400, "bad-request"),
        (wrong_method, 405, "method-not-allowed"),
    ):
        assert (answer.status_code, answer.headers["content-type"]) == (status, PROBLEM)
        assert answer.json()["type"] == slug
        assert answer.json()["title"] != answer.json()["detail"] or status == 400


async def test_a_bad_batch_id_is_answered_like_a_bad_comparison_id(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    for bad in ("xyz", "NOT-A-UUID", "a" * 40, "00000000-0000-0000-0000-000000000000"):
        batch = await client.get(f"/v1/batches/{bad}", headers=admin)
        comparison = await client.get(f"/v1/comparisons/{bad}", headers=admin)
        results = await client.get(f"/v1/batches/{bad}/results", headers=admin)
        cancel = await client.delete(f"/v1/batches/{bad}", headers=admin)
        label = await client.post(
            f"/v1/comparisons/{bad}/labels", headers=admin, json={"winner": "A", "labeler": "ann"}
        )
        session = await client.get(f"/v1/score-sessions/{bad}", headers=admin)
        answers = (batch, comparison, results, cancel, label, session)
        assert {(a.status_code, a.json()["type"]) for a in answers} == {(404, "not-found")}, bad


async def test_readyz_says_redis_is_not_configured_when_there_is_none(
    client: httpx2.AsyncClient,
) -> None:
    answer = await client.get("/readyz")
    assert answer.status_code == 200
    assert answer.json()["checks"] == {"database": True, "redis": "not_configured"}


async def test_the_schema_advertises_which_texts_must_not_be_blank(
    client: httpx2.AsyncClient,
) -> None:
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    for model, field in (("CompareRequest", "prompt"), ("ResponseIn", "text")):
        assert schemas[model]["properties"][field]["pattern"] == r"\S", (model, field)


@pytest.mark.parametrize("route", ["/v1/compare", "/v1/score"])
async def test_a_criteria_list_past_20_is_422_without_validating_the_rest(
    client: httpx2.AsyncClient, admin: dict[str, str], route: str
) -> None:
    # Issue 36: the bound is in the schema, so validation stops at the 21st; the invalid
    # criteria after it are never looked at (each would be an error of its own).
    good = [{"name": f"c{i}", "weight": 1} for i in range(21)]
    body = {"prompt": "p", "response_a": "a", "response_b": "b", "responses": ["r"]}
    body = {k: v for k, v in body.items() if (k == "responses") == (route == "/v1/score")}
    body["prompt"] = "p"
    response = await client.post(
        route, headers=admin, json={**body, "criteria": good + [{"name": ""}] * 5000}
    )
    assert response.status_code == 422, response.text
    pointers = [error["pointer"] for error in response.json()["errors"]]
    # One error per form `criteria` may take (a text, a list), none per criterion.
    assert len(pointers) == 2
    assert all(pointer.startswith("/criteria") for pointer in pointers)
