"""Issue 21: the labeling queue in privacy mode says why it shows no texts, and shows the rest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2

from app.config import Settings
from tests.conftest import make_key

COMPARE = {
    "prompt": "Which is right?",
    "response_a": "four\n[sim q=4]",
    "response_b": "five, surely\n[sim q=-4]",
    "criteria": "correctness",
    "tags": {"case": "c-17"},
}


async def queued(client: httpx2.AsyncClient, clean_pg: str) -> dict[str, Any]:
    comparer = await make_key(clean_pg, "comparer", ["compare"])
    labeler = await make_key(clean_pg, "labeler", ["label"])
    compared = await client.post("/v1/compare", headers=comparer, json=COMPARE)
    assert compared.status_code == 200, compared.text
    page = (await client.get("/v1/labeling-queue", headers=labeler)).json()
    (item,) = page["items"]
    assert item["id"] == compared.json()["id"]
    return dict(item)


async def test_queue_in_privacy_mode_says_the_texts_are_withheld_and_shows_lengths(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    client = await live_factory(settings_factory(privacy="hash"))
    item = await queued(client, clean_pg)
    assert item["texts_withheld"] == "privacy"
    assert (item["prompt"], item["response_a"], item["response_b"]) == (None, None, None)
    assert item["criteria"] is None  # its HMAC would read as a criterion
    assert item["lengths"] == {"a": len(COMPARE["response_a"]), "b": len(COMPARE["response_b"])}
    assert list(item["tags"]) == ["case"]  # to find the texts in the caller's own records


async def test_queue_with_texts_shows_them_and_withholds_nothing(
    client: httpx2.AsyncClient, clean_pg: str
) -> None:
    item = await queued(client, clean_pg)
    assert (item["texts_withheld"], item["prompt"]) == (None, COMPARE["prompt"])
    assert (item["criteria"], item["tags"]) == ("correctness", {"case": "c-17"})
    assert item["lengths"] == {"a": len(COMPARE["response_a"]), "b": len(COMPARE["response_b"])}
