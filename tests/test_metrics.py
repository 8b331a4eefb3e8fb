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
import yaml  # type: ignore[import-untyped]
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


ALERTS = Path(__file__).parent.parent / "deploy" / "prometheus" / "alerts.yml"
# Series Prometheus makes itself for every scrape target.
SCRAPE_SERIES = {"up"}
# Words of PromQL and label names that the series pattern below would take for a series.
PROMQL_WORDS = {
    "sum", "by", "rate", "increase", "abs", "and", "or", "unless", "time", "histogram_quantile",
    "max", "min", "without", "le", "handler", "method", "status", "judge", "pick", "class",
    "outcome", "error_kind", "state", "step", "event", "loop", "canary", "instance", "job",
}  # fmt: skip


def exported_series() -> set[str]:
    """Every series name this process's registry can export (a labelled metric with no child
    yet exports no sample, so its names are derived from its family)."""
    suffixes = {"counter": ("_total",), "gauge": ("",), "histogram": ("_bucket", "_sum", "_count")}
    names = set()
    for family in REGISTRY.collect():
        names |= {sample.name for sample in family.samples}
        names |= {family.name + suffix for suffix in suffixes.get(family.type, ())}
    return names


def series_in(expr: str) -> set[str]:
    """The series an expression reads: names outside strings, braces and `[...]` windows."""
    bare = re.sub(r'"[^"]*"|\{[^}]*\}|\[[^\]]*\]', " ", expr)
    words = set(re.findall(r"(?<![\w:])[a-z_][a-z0-9_:]*", bare))
    return words - PROMQL_WORDS


def test_alert_rules_are_well_formed_and_read_only_exported_series() -> None:
    """promtool is not at hand: the rules' structure is checked here, and every series they read
    is one the app exports (or a recording rule of the file, or Prometheus's `up`)."""
    groups = yaml.safe_load(ALERTS.read_text())["groups"]
    rules = [rule for group in groups for rule in group["rules"]]
    assert len({group["name"] for group in groups}) == len(groups)
    records = {rule["record"] for rule in rules if "record" in rule}
    alerts = {rule["alert"]: rule for rule in rules if "alert" in rule}
    assert len(records) + len(alerts) == len(rules)
    for rule in rules:
        assert set(rule) <= {"record", "alert", "expr", "for", "labels", "annotations"}, rule
        assert ("record" in rule) != ("alert" in rule), rule
        assert isinstance(rule["expr"], str)
        assert rule["expr"].count("(") == rule["expr"].count(")"), rule
    for name, rule in alerts.items():
        assert re.fullmatch(r"Fairpair[A-Za-z]+", name)
        assert rule["labels"]["severity"] in {"info", "warning", "critical"}, name
        assert rule["annotations"]["summary"], name
        assert re.fullmatch(r"\d+[smhd]", rule.get("for", "0s")), name
    for record in records:
        assert re.fullmatch(r"fairpair:[a-z0-9_]+:[a-z0-9_]+", record), record
    used = set().union(*(series_in(rule["expr"]) for rule in rules))
    unknown = used - exported_series() - records - SCRAPE_SERIES
    assert not unknown, unknown
    # Bias, HTTP RED, batch, provider and canary work: each has an alert of its own.
    exprs = {name: rule["expr"] for name, rule in alerts.items()}
    for series in (
        "fairpair_design_calls_total",
        "http_requests_total",
        "http_request_duration_seconds_bucket",
        "fairpair_batch_items_total",
        "fairpair_provider_steps_total",
        "fairpair_provider_jobs_total",
        "fairpair_canary_ticks_total",
        "fairpair_canary_drift",
    ):
        readers = {r["record"] for r in rules if "record" in r and series in r["expr"]}
        assert any(
            series in expr or any(record in expr for record in readers) for expr in exprs.values()
        ), series
    loops = {"provider_rounds", "canary_scheduler"}
    assert {loop for loop in loops if any(f'loop="{loop}"' in e for e in exprs.values())} == loops


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


async def test_requests_are_counted_by_route_template_and_unknown_paths_collapse(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    settings = settings_factory(JUDGES)
    client: httpx2.AsyncClient = await live_factory(settings)
    before = scrape((await client.get("/metrics")).text)
    for n in range(3):
        assert (await client.get(f"/scan/{n}/wp-login.php")).status_code == 404
        missing = await client.get(f"/v1/comparisons/no-such-{n}", headers=comparer)
        assert missing.status_code == 404
        # A trailing slash redirects; the instrumentator's own lookup named it by its raw path.
        slashed = await client.get(f"/v1/comparisons/no-such-{n}/", headers=comparer)
        assert slashed.status_code == 307
    assert (await client.get("/v1/judges")).status_code == 401
    assert (await client.delete("/healthz")).status_code == 405
    after = scrape((await client.get("/metrics")).text)

    def counted(**labels: str) -> float:
        return delta(after, before, "http_requests_total", **labels)

    assert counted(handler="none", method="GET", status="4xx") == 3
    assert counted(handler="none", method="GET", status="3xx") == 3
    assert counted(handler="/v1/comparisons/{comparison_id}", status="4xx") == 3
    assert counted(handler="/v1/judges", method="GET", status="4xx") == 1
    assert counted(handler="/healthz", method="DELETE", status="4xx") == 1
    assert counted(handler="/metrics", method="GET", status="2xx") == 1  # the first scrape
    durations = "http_request_duration_seconds_count"
    assert delta(after, before, durations, handler="/v1/comparisons/{comparison_id}") == 3
    # The handlers these requests were counted under (the registry is the process's: earlier
    # tests' apps left series of their own routes in it).
    templates = set(create_app(settings).openapi()["paths"])
    handlers = {
        dict(labels)["handler"]
        for (name, labels), value in after.items()
        if name == "http_requests_total" and value > before.get((name, labels), 0.0)
    }
    assert handlers <= templates | {"none"}, handlers - templates
    assert {"none", "/v1/comparisons/{comparison_id}", "/v1/judges", "/healthz"} <= handlers
