"""Judge definitions (issue 18 item 5): checked when posted, never when used.

Templates compile in the sandbox and render against a sample, label pools obey JUDGING.md, and
anything invalid is a 422 with a pointer. A stored judge that cannot be built (a row written
behind the API's back, a key the secret no longer opens) never stops start-up: it is listed as
unavailable with its reason, requests naming it get a problem+json, everything else serves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from sqlalchemy import select, update

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.judges.models import Judge, JudgeVersion

JUDGE = {"name": "posted", "provider": "sim", "model": "m"}
COMPARE = {"prompt": "p", "response_a": "a", "response_b": "b"}


@pytest.mark.parametrize(
    ("fields", "where"),
    [
        ({"label_pool": [["A", "B"]]}, "/label_pool"),
        ({"label_pool": [["X", "x"]]}, "/label_pool"),
        ({"label_pool": [["P", "1"]]}, "/label_pool"),
        ({"label_pool": [["first", "second"]]}, "/label_pool"),
        ({"label_pool": []}, "/label_pool"),
        ({"label_pool": [["P", "Q"]] * 51}, "/label_pool"),
        ({"templates": {"pairwise_user": "{% if %}"}}, "/templates"),
        ({"templates": {"pairwise_user": "{{ task.__class__.__mro__ }}"}}, "/templates"),
        (
            {"templates": {"pairwise_system": "{{ ''.__class__.__base__.__subclasses__() }}"}},
            "/templates",
        ),
        ({"templates": {"scoring_user": "{{ undefined_thing.attribute }}"}}, "/templates"),
        ({"templates": {"nonsense": "x"}}, "/templates"),
    ],
)
async def test_invalid_definitions_are_422_with_a_pointer(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    fields: dict[str, Any],
    where: str,
) -> None:
    client = await live_factory(settings_factory())
    created = await client.post("/v1/judges", headers=admin, json={**JUDGE, **fields})
    assert created.status_code == 422, created.text
    assert created.json()["errors"][0]["pointer"].startswith(where), created.json()
    valid = await client.post("/v1/judges", headers=admin, json=JUDGE)
    assert valid.status_code == 201
    patched = await client.patch("/v1/judges/posted", headers=admin, json=fields)
    assert patched.status_code == 422, patched.text
    assert patched.json()["errors"][0]["pointer"].startswith(where)


async def break_behind_the_apis_back(database_url: str, name: str, **changes: Any) -> None:
    """Write a judge's current version as an older release or a changed secret would leave it."""
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        judge = await session.scalar(select(Judge).where(Judge.name == name))
        assert judge is not None
        version = await session.scalar(
            select(JudgeVersion).where(
                JudgeVersion.judge_id == judge.id, JudgeVersion.version == judge.current_version
            )
        )
        assert version is not None
        config = {**version.config, **changes.pop("config", {})}
        await session.execute(
            update(JudgeVersion)
            .where(JudgeVersion.id == version.id)
            .values(config=config, **changes)
        )
        await session.commit()
    await engine.dispose()


@pytest.mark.parametrize(
    ("breakage", "reason"),
    [
        ({"config": {"label_pool": [["A", "B"]]}}, "label_pool"),
        ({"config": {"templates": {"pairwise_user": "{% for %}"}}}, "templates"),
        ({"config": {"provider": "gone"}}, "provider"),
        ({"api_key_ciphertext": "not-a-fernet-token"}, "cannot be decrypted"),
    ],
)
async def test_a_stored_judge_that_cannot_be_built_leaves_the_service_up(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    reader: dict[str, str],
    comparer: dict[str, str],
    clean_pg: str,
    breakage: dict[str, Any],
    reason: str,
) -> None:
    settings = settings_factory()
    first = await live_factory(settings)
    body = {**JUDGE, "api_key": "sk-posted"}
    assert (await first.post("/v1/judges", headers=admin, json=body)).status_code == 201
    await break_behind_the_apis_back(clean_pg, "posted", **breakage)

    client: httpx2.AsyncClient = await live_factory(settings)  # starts, with the broken row
    assert (await client.get("/readyz")).status_code == 200
    listed = (await client.get("/v1/judges", headers=reader)).json()["items"]
    posted = next(item for item in listed if item["name"] == "posted")
    assert posted["available"] is False
    assert reason in posted["unavailable_reason"]
    assert all(item["available"] for item in listed if item["name"] != "posted")

    named = await client.post(
        "/v1/compare", headers=comparer, json={**COMPARE, "judges": ["posted"]}
    )
    assert named.status_code == 503, named.text
    # No Retry-After: nothing says when an operator fixes it (docs/DECISIONS.md, issue 37).
    assert "retry-after" not in named.headers
    assert named.headers["content-type"] == "application/problem+json"
    assert "posted" in named.json()["detail"]
    others = await client.post("/v1/compare", headers=comparer, json=COMPARE)
    assert others.status_code == 200, others.text


async def test_a_revision_broken_behind_a_running_process_is_refused_once_built(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    comparer: dict[str, str],
    clean_pg: str,
    capfd: pytest.CaptureFixture[str],
) -> None:
    # Revisions read on every request (the default window: tests/judges/test_registry_refresh.py).
    client: httpx2.AsyncClient = await live_factory(settings_factory(judge_refresh_s=0))
    assert (await client.post("/v1/judges", headers=admin, json=JUDGE)).status_code == 201
    named = {**COMPARE, "judges": ["posted"]}
    assert (await client.post("/v1/compare", headers=comparer, json=named)).status_code == 200
    # A new revision that cannot be built (as an older release or a hand edit would leave it).
    await break_behind_the_apis_back(clean_pg, "posted", config={"label_pool": [["A", "B"]]})
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        await session.execute(
            update(Judge).where(Judge.name == "posted").values(revision=Judge.revision + 1)
        )
        await session.commit()
    await engine.dispose()
    capfd.readouterr()
    for _ in range(3):  # never the older revision's client, and built (and logged) once
        refused = await client.post("/v1/compare", headers=comparer, json=named)
        assert refused.status_code == 503, refused.text
    assert capfd.readouterr().err.count('"judge_unavailable"') == 1
