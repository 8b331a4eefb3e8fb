"""`/metrics`: the bias counters give the report's figures; open on loopback, else a read key."""

from __future__ import annotations

import asyncio
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest
from prometheus_client.parser import text_string_to_metric_families

from app.config import Settings
from app.main import create_app
from app.metrics import REGISTRY, swap_class
from tests.support.live import LiveApp

JUDGES = """
default_panel = ["sim-m1", "sim-m2"]

[[judges]]
name = "sim-m1"
provider = "sim"
model = "sim-m1"
[judges.sim]
position_bias = 1.5
seed = 3

[[judges]]
name = "sim-m2"
provider = "sim"
model = "sim-m2"
[judges.sim]
tie_rate = 0.2
seed = 5

[[judges]]
name = "sim-broken"
provider = "sim"
model = "sim-broken"
[judges.sim]
malformed_rate = 1.0
"""

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def scrape(text: str) -> Samples:
    """Every sample of an exposition, keyed by name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def total(samples: Samples, name: str, **labels: str) -> float:
    """The sum of the samples of `name` whose labels include `labels`."""
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= ls)


def delta(after: Samples, before: Samples, name: str, **labels: str) -> float:
    return total(after, name, **labels) - total(before, name, **labels)


def body(rng: random.Random) -> dict[str, Any]:
    q = rng.choice([-1, 0, 1])
    return {
        "prompt": f"Question {rng.random()}",
        "response_a": f"One answer.\n[sim q={q}]",
        "response_b": f"Another answer.\n[sim q={-q}]",
    }


@pytest.mark.parametrize(
    ("p1", "p2", "expected"),
    [
        ("first", "second", "consistent"),
        ("second", "first", "consistent"),
        ("tie", "tie", "consistent"),
        ("first", "first", "primacy"),
        ("first", "tie", "primacy"),
        ("tie", "first", "primacy"),
        ("second", "second", "recency"),
        ("second", "tie", "recency"),
        ("tie", "second", "recency"),
    ],
)
def test_swap_pairs_are_classed_as_statistics_md_says(p1: str, p2: str, expected: str) -> None:
    assert swap_class(p1, p2) == expected


async def test_counters_after_traffic_give_the_reports_pc_and_first_pick_rate(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(JUDGES))
    before = scrape((await client.get("/metrics")).text)
    rng = random.Random(7)
    for _ in range(24):
        response = await client.post("/v1/compare", headers=comparer, json=body(rng))
        assert response.status_code == 200, response.text
    placebo = {"prompt": "Same?", "response_a": "Same.", "response_b": "Same."}
    assert (await client.post("/v1/compare", headers=comparer, json=placebo)).status_code == 200
    broken = {**body(rng), "judges": ["sim-m1", "sim-broken"]}
    assert (await client.post("/v1/compare", headers=comparer, json=broken)).status_code == 200
    scraped = await client.get("/metrics")
    assert scraped.status_code == 200
    assert scraped.headers["content-type"].startswith("text/plain")
    after = scrape(scraped.text)
    report = (await client.get("/v1/bias-report", headers=comparer)).json()
    by_judge = {j["judge"]: j for j in report["judges"]}

    for judge in ("sim-m1", "sim-m2"):
        consistency = by_judge[judge]["consistency"]
        pairs = delta(after, before, "fairpair_swap_pairs_total", judge=judge)
        consistent = delta(
            after, before, "fairpair_swap_pairs_total", judge=judge, **{"class": "consistent"}
        )
        assert pairs == consistency["pairs"] >= 20
        assert consistent / pairs == pytest.approx(consistency["position_consistency"])
        for name in ("primacy", "recency"):
            assert (
                delta(after, before, "fairpair_swap_pairs_total", judge=judge, **{"class": name})
                == consistency[f"{name}_pairs"]
            )
        position = by_judge[judge]["position"]
        first = delta(after, before, "fairpair_design_calls_total", judge=judge, pick="first")
        second = delta(after, before, "fairpair_design_calls_total", judge=judge, pick="second")
        assert first + second == position["n"]
        assert first / (first + second) == pytest.approx(position["first_pick_rate"])
    calls = by_judge["sim-m1"]["calls"]["total"]  # placebo calls included (issue 37)
    assert by_judge["sim-m1"]["calls"]["placebo"] == 2
    assert delta(after, before, "fairpair_judge_calls_total", judge="sim-m1") == calls
    latencies = delta(after, before, "fairpair_judge_call_duration_seconds_count", judge="sim-m1")
    assert latencies == calls
    assert delta(after, before, "fairpair_placebo_design_calls_total", judge="sim-m1") == 2
    failed = delta(
        after, before, "fairpair_judge_calls_total", judge="sim-broken", outcome="failed"
    )
    assert failed == by_judge["sim-broken"]["calls"]["failed"] == 2
    assert delta(after, before, "fairpair_comparisons_total", status="complete") == 25
    assert delta(after, before, "fairpair_comparisons_total", status="partial") == 1


async def test_metrics_need_a_read_key_off_loopback(
    settings_factory: Callable[..., Settings], reader: dict[str, str], comparer: dict[str, str]
) -> None:
    live = LiveApp(create_app(settings_factory()))
    await live.__aenter__()
    try:
        remote = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=live, client=("10.1.2.3", 40000)),
            base_url="http://testserver",
        )
        async with remote:
            assert (await remote.get("/metrics")).status_code == 401
            assert (await remote.get("/metrics", headers=reader)).status_code == 200
            assert (await remote.get("/metrics", headers=comparer)).status_code == 200
        local = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=live, client=("127.0.0.1", 40000)),
            base_url="http://testserver",
        )
        async with local:
            assert (await local.get("/metrics")).status_code == 200
    finally:
        await asyncio.shield(live.__aexit__(None, None, None))


def test_alert_rules_use_only_exported_series() -> None:
    path = Path(__file__).parent.parent / "deploy" / "prometheus" / "alerts.yml"
    rules = path.read_text()
    exported = (
        {sample.name for family in REGISTRY.collect() for sample in family.samples}
        | {f"{family.name}_total" for family in REGISTRY.collect() if family.type == "counter"}
        | {family.name for family in REGISTRY.collect() if family.type == "gauge"}
    )
    used = set(re.findall(r"\bfairpair_[a-z_]+", rules))
    assert used
    assert used <= exported, used - exported
    names = set(re.findall(r"- alert: (\w+)", rules))
    assert {
        "FairpairPositionBias",
        "FairpairPositionConsistencyLow",
        "FairpairJudgeFailureRate",
        "FairpairCanaryDrift",
    } <= names


async def test_a_metrics_token_closes_loopback_to_scrapers_without_it(
    settings_factory: Callable[..., Settings], reader: dict[str, str]
) -> None:
    # Issue 36: a same-host proxy makes every scraper a loopback one.
    live = LiveApp(create_app(settings_factory(metrics_token="scrape-me-0123456789")))
    await live.__aenter__()
    try:
        local = httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=live, client=("127.0.0.1", 40000)),
            base_url="http://testserver",
        )
        async with local:
            assert (await local.get("/metrics")).status_code == 401
            wrong = {"Authorization": "Bearer scrape-me-0123456788"}
            assert (await local.get("/metrics", headers=wrong)).status_code == 401
            token = {"Authorization": "Bearer scrape-me-0123456789"}
            assert (await local.get("/metrics", headers=token)).status_code == 200
            assert (await local.get("/metrics", headers=reader)).status_code == 200
    finally:
        await asyncio.shield(live.__aexit__(None, None, None))
