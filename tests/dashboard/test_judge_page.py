"""The judge page shows the self-preference section and the provider-model changes (issue 21)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx2

from app.config import Settings
from tests.reports.builders import BASE_TIME, StoredData


def self_preferring_traffic() -> StoredData:
    """An openai judge that always picks openai's response, beside a neutral judge; its
    provider moves to a new model snapshot on the second day."""
    data = StoredData()
    day0 = BASE_TIME.replace(hour=0)
    for i in range(120):
        own_a = i % 2 == 0
        at = day0 + timedelta(days=i // 60, hours=i % 20)
        comparison_id = data.comparison(
            family_a="openai" if own_a else "google",
            family_b="google" if own_a else "openai",
            at=at,
        )
        data.swap(
            "first" if own_a else "second",
            "second" if own_a else "first",
            judge="gpt-judge",
            family="openai",
            role="audit",
            comparison_id=comparison_id,
            at=at,
        )
        snapshot = "gpt-4o-2024-05-13" if i < 60 else "gpt-4o-2024-08-06"
        for row in data.calls[-2:]:
            row["provider_model"] = snapshot
        data.swap(
            "first", "second", judge="neutral", family="meta", comparison_id=comparison_id, at=at
        )
        for row in data.calls[-2:]:
            row["provider_model"] = None
    return data


def text_of(page: str, element_id: str) -> str:
    """The text of the element with that id, tags stripped, spaces collapsed."""
    found = re.search(rf'id="{element_id}"[^>]*>(.*?)</(table|section|p)>', page, re.S)
    assert found is not None, element_id
    return " ".join(re.sub(r"<[^>]+>", " ", found.group(1)).split())


async def test_the_judge_page_shows_self_preference_and_provider_model_changes(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    await self_preferring_traffic().insert(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    report = (await client.get("/v1/bias-report", params={"judge": "gpt-judge"})).json()
    section = report["judges"][0]["self_preference"]
    assert section["delta"] is not None
    page = (await client.get("/dashboard/judge", params={"judge": "gpt-judge"})).text

    self_preference = text_of(page, "self-preference")
    assert f"{section['delta']:.3f}" in self_preference
    low, high = section["ci95"]
    assert f"[{low:.3f}, {high:.3f}]" in self_preference
    assert f"{section['n']} comparisons" in self_preference
    assert section["tier"] in self_preference

    # Each adjusted p sits beside its raw p (the longer-win rate's, then Spearman's).
    assert text_of(page, "length").count("Holm") == 2

    summary = text_of(page, "judge-summary")
    assert "gpt-4o-2024-05-13, gpt-4o-2024-08-06" in summary
    second_day = (BASE_TIME.replace(hour=0) + timedelta(days=1)).date().isoformat()
    assert f"provider model changed on {second_day}" in summary

    spec = (
        await client.get(
            "/dashboard/charts/judge/series_first_pick.json", params={"judge": "gpt-judge"}
        )
    ).json()
    rules = [
        value
        for layer in spec["layer"]
        for value in layer.get("data", {}).get("values", [])
        if "what" in value and "bucket" in value
    ]
    assert [(r["bucket"][:10], r["what"]) for r in rules] == [
        (second_day, "gpt-judge: provider model change")
    ]


async def test_a_judge_without_audit_data_says_so(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    data = StoredData()
    for _ in range(30):
        data.swap("first", "second", judge="plain")
    await data.insert(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    page = (await client.get("/dashboard/judge", params={"judge": "plain"})).text
    assert "no comparison where this judge was conflicted" in text_of(page, "self-preference")
    assert "none reported" in text_of(page, "judge-summary")
