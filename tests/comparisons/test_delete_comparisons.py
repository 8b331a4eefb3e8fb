"""An admin deletes comparisons through the server that holds them (issue 43): one by id, or
every one with the tags given; their calls, tags and labels go, the report stops counting
them, a running one is left, and the deletes are logged with the key that asked."""

from __future__ import annotations

import httpx2
from sqlalchemy import update
from structlog.testing import capture_logs

from app.db import create_engine, create_sessionmaker
from app.jobs.models import JobStatus
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from tests.hardening.support import all_rows

BODY = {
    "prompt": "What is 2+2?",
    "response_a": "4\n[sim q=4]",
    "response_b": "5\n[sim q=-4]",
    "judges": ["sim-a"],
}


async def compared(client: httpx2.AsyncClient, headers: dict[str, str], **tags: str) -> str:
    answer = await client.post("/v1/compare", headers=headers, json={**BODY, "tags": tags})
    assert answer.status_code == 200, answer.text
    comparison_id: str = answer.json()["id"]
    return comparison_id


async def test_one_comparison_is_deleted_with_its_calls_and_leaves_the_report(
    client: httpx2.AsyncClient, admin: dict[str, str], comparer: dict[str, str], clean_pg: str
) -> None:
    gone, kept = await compared(client, comparer), await compared(client, comparer)
    with capture_logs() as logs:
        answer = await client.delete(f"/v1/comparisons/{gone}", headers=admin)
    assert answer.status_code == 200, answer.text
    assert answer.json() == {"comparisons": 1, "calls": 2}
    assert (await client.get(f"/v1/comparisons/{gone}", headers=comparer)).status_code == 404
    assert {c.comparison_id for c in await all_rows(clean_pg, JudgeCall)} == {kept}
    report = (await client.get("/v1/bias-report", headers=comparer)).json()
    assert report["judges"][0]["calls"]["total"] == 2  # only the kept comparison's
    [logged] = [log for log in logs if log["event"] == "comparisons_deleted"]
    assert logged["comparison_id"] == gone
    assert logged["by_key"]  # the admin key's id
    again = await client.delete(f"/v1/comparisons/{gone}", headers=admin)
    assert again.status_code == 404


async def test_deleting_by_tag_takes_every_tag_given_and_needs_one(
    client: httpx2.AsyncClient, admin: dict[str, str], comparer: dict[str, str], clean_pg: str
) -> None:
    both = await compared(client, comparer, run="7", team="red")
    other_team = await compared(client, comparer, run="7", team="blue")
    untagged = await compared(client, comparer)
    deleted = await client.delete(
        "/v1/comparisons", params=[("tag", "run:7"), ("tag", "team:red")], headers=admin
    )
    assert deleted.json() == {"comparisons": 1, "calls": 2}
    left = {c.id for c in await all_rows(clean_pg, Comparison)}
    assert left == {other_team, untagged}
    assert both not in {t.comparison_id for t in await all_rows(clean_pg, ComparisonTag)}
    refused = await client.delete("/v1/comparisons", headers=admin)
    assert refused.status_code == 422
    assert "at least one" in refused.json()["detail"]
    assert {c.id for c in await all_rows(clean_pg, Comparison)} == left


async def test_a_running_comparison_is_not_deleted_and_only_an_admin_deletes(
    client: httpx2.AsyncClient, admin: dict[str, str], comparer: dict[str, str], clean_pg: str
) -> None:
    running = await compared(client, comparer, run="8")
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        await session.execute(
            update(Comparison).where(Comparison.id == running).values(status=JobStatus.RUNNING)
        )
        await session.commit()
    await engine.dispose()
    conflict = await client.delete(f"/v1/comparisons/{running}", headers=admin)
    assert conflict.status_code == 409
    by_tag = await client.delete("/v1/comparisons", params={"tag": "run:8"}, headers=admin)
    assert by_tag.json() == {"comparisons": 0, "calls": 0}
    assert (await client.delete(f"/v1/comparisons/{running}", headers=comparer)).status_code == 403
    assert (await client.delete(f"/v1/comparisons/{running}")).status_code == 401
    assert [c.id for c in await all_rows(clean_pg, Comparison)] == [running]
