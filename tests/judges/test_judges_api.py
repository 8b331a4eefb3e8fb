"""The judges API: file judges read-only, API judges versioned, provider keys never echoed."""

from __future__ import annotations

import httpx2
from sqlalchemy import select

from app.db import create_engine, create_sessionmaker
from app.judges.models import JudgeVersion

NEW_JUDGE = {
    "name": "gpt-judge",
    "provider": "openai",
    "model": "gpt-4o-mini",
    # A public name that resolves nowhere (RFC 6761): no network, and no loopback to allow.
    "base_url": "https://judge.invalid/v1",
    "api_key": "sk-very-secret",
    "family": "openai",
}


async def test_file_judges_are_listed_with_the_default_flag(
    client: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    items = (await client.get("/v1/judges", headers=reader)).json()["items"]
    by_name = {j["name"]: j for j in items}
    assert set(by_name) == {"sim-a", "sim-b"}
    assert by_name["sim-a"]["default"] is True
    assert by_name["sim-b"]["default"] is False
    assert by_name["sim-a"]["source"] == "file"


async def test_created_judge_round_trips_without_its_key(
    client: httpx2.AsyncClient, admin: dict[str, str], clean_pg: str
) -> None:
    created = await client.post("/v1/judges", headers=admin, json=NEW_JUDGE)
    assert created.status_code == 201, created.text
    assert "sk-very-secret" not in created.text
    fetched = await client.get("/v1/judges/gpt-judge", headers=admin)
    assert fetched.json()["has_api_key"] is True
    assert "sk-very-secret" not in fetched.text
    assert fetched.json()["json_mode"] is False  # not api.openai.com: support unknown
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        stored = (await session.scalars(select(JudgeVersion.api_key_ciphertext))).all()
    await engine.dispose()
    assert any(stored)
    assert all("sk-very-secret" not in (c or "") for c in stored)


async def test_duplicate_name_is_409(client: httpx2.AsyncClient, admin: dict[str, str]) -> None:
    await client.post("/v1/judges", headers=admin, json=NEW_JUDGE)
    again = await client.post("/v1/judges", headers=admin, json=NEW_JUDGE)
    assert again.status_code == 409
    assert again.json()["type"] == "conflict"


async def test_judging_field_change_makes_a_new_version(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    await client.post("/v1/judges", headers=admin, json=NEW_JUDGE)
    patched = await client.patch("/v1/judges/gpt-judge", headers=admin, json={"temperature": 0.7})
    assert patched.json()["version"] == 2
    same = await client.patch("/v1/judges/gpt-judge", headers=admin, json={"rpm": 100})
    assert same.json()["version"] == 2
    versions = (await client.get("/v1/judges/gpt-judge", headers=admin)).json()["versions"]
    assert [v["version"] for v in versions] == [1, 2]


async def test_disabling_retires_a_judge(client: httpx2.AsyncClient, admin: dict[str, str]) -> None:
    await client.post("/v1/judges", headers=admin, json=NEW_JUDGE)
    await client.patch("/v1/judges/gpt-judge", headers=admin, json={"enabled": False})
    names = [j["name"] for j in (await client.get("/v1/judges", headers=admin)).json()["items"]]
    assert "gpt-judge" not in names


async def test_file_judges_are_managed_by_file(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    response = await client.patch("/v1/judges/sim-a", headers=admin, json={"temperature": 1})
    assert response.status_code == 409
    assert response.json()["type"] == "managed-by-file"


async def test_unknown_judge_is_404(client: httpx2.AsyncClient, admin: dict[str, str]) -> None:
    response = await client.get("/v1/judges/nope", headers=admin)
    assert response.status_code == 404
    assert response.json()["type"] == "not-found"


async def test_a_base_url_that_does_not_parse_is_422(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    # Found by the fuzzer: urlsplit raises on this, which once escaped as a 500.
    body = {**NEW_JUDGE, "base_url": 'http://"\u00b6]\u00a8'}
    response = await client.post("/v1/judges", headers=admin, json=body)
    assert response.status_code == 422
    assert response.json()["type"] == "validation-error"
