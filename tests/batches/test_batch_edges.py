"""Issue 21: a finished batch stays finished when deleted; the advertised request body is taken."""

from __future__ import annotations

import json

import httpx2

from tests.batches.support import compare_item, wait_for_batch


async def test_delete_of_a_finished_batch_leaves_it_finished(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    items = [compare_item(i) for i in range(2)]
    batch = (await client.post("/v1/batches", headers=comparer, json={"items": items})).json()
    done = await wait_for_batch(client, batch["id"], comparer)
    assert done["status"] == "completed"
    deleted = await client.delete(f"/v1/batches/{batch['id']}", headers=comparer)
    assert deleted.status_code == 200, deleted.text
    assert (deleted.json()["status"], deleted.json()["cancelled_at"]) == ("completed", None)
    assert deleted.json()["counts"] == done["counts"]
    again = (await client.get(f"/v1/batches/{batch['id']}", headers=comparer)).json()
    assert (again["status"], again["cancelled_at"]) == ("completed", None)


async def test_the_batch_body_the_openapi_advertises_is_accepted(
    client: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    openapi = (await client.get("/openapi.json")).json()
    body = openapi["paths"]["/v1/batches"]["post"]["requestBody"]
    schemas = openapi["components"]["schemas"]
    advertised = [*body["content"], *[t for t in ("ndjson",) if t in json.dumps(schemas)]]
    items = [compare_item(0), compare_item(1)]
    for media_type in advertised:
        if media_type == "application/json":
            sent = await client.post("/v1/batches", headers=comparer, json={"items": items})
        else:  # NDJSON, one item per line, wherever the schema mentions it
            lines = "".join(json.dumps(item) + "\n" for item in items).encode()
            headers = {**comparer, "Content-Type": "application/x-ndjson"}
            sent = await client.post("/v1/batches", headers=headers, content=lines)
        assert sent.status_code == 202, (media_type, sent.text)
        await wait_for_batch(client, sent.json()["id"], comparer)
