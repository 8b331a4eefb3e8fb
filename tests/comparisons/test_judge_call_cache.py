"""Issue 39's judge-call cache, end to end over real HTTP to `fairpair sim-judge`: a seeded
comparison asked again makes no second upstream request (its calls are stored `cached` with the
original call's id, cost 0, counted once in the bias report and as hits in /metrics), on
PostgreSQL, on SQLite and in privacy mode; a judge without `cache`, a new judge version and a
changed provider-reported model each ask the judge again."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.comparisons.service import clients_of
from app.config import Settings
from app.jobs.callcache import StoredAnswers
from app.jobs.kind import Run
from app.judges.registry import RuntimeJudge
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash
from app.ledger.models import Comparison, JudgeCall
from app.privacy import TextKeeper
from tests.hardening.support import all_rows, http_judge
from tests.judging.fakes import running_sim_judge

JUDGE = "cached-judge"
BODY = {
    "prompt": "What is 2+2?",
    "response_a": "4\n[sim q=4]",
    "response_b": "5\n[sim q=-4]",
    "protocol": {"kind": "swap"},
    "judges": [JUDGE],
}
OTHER_BODY = {**BODY, "response_b": "22\n[sim q=-3]"}
PRICES = {"price_in_per_mtok": 2.5, "price_out_per_mtok": 10.0}


class Upstream:
    """The sim-judge's ASGI app, counting the chat requests it receives and, once `reported`
    is set, answering as that model (a provider moving its alias to a new snapshot)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.requests = 0
        self.reported: str | None = None
        self.url = ""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        chat = scope["type"] == "http" and scope["path"].endswith("/chat/completions")
        if not chat:
            await self.app(scope, receive, send)
            return
        self.requests += 1
        if self.reported is None:
            await self.app(scope, receive, send)
            return
        sent: list[dict[str, Any]] = []

        async def keep(message: dict[str, Any]) -> None:
            sent.append(message)

        await self.app(scope, receive, keep)
        start, *bodies = sent
        payload = json.loads(b"".join(m.get("body", b"") for m in bodies))
        payload["model"] = self.reported
        body = json.dumps(payload).encode()
        headers = [(k, v) for k, v in start["headers"] if k.lower() != b"content-length"]
        await send({**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]})
        await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def module_upstream() -> Iterator[Upstream]:
    wrapped: list[Upstream] = []

    def wrap(app: Any) -> Upstream:
        wrapped.append(Upstream(app))
        return wrapped[0]

    with running_sim_judge(SimKnobs(), wrap=wrap) as url:
        wrapped[0].url = url
        yield wrapped[0]


@pytest.fixture
def upstream(module_upstream: Upstream) -> Upstream:
    module_upstream.reported = None
    return module_upstream


def cached_judge(url: str, **fields: Any) -> str:
    """A judges file with the caching judge talking to the sim-judge at `url`."""
    return http_judge(JUDGE, url, **{"cache": True, **PRICES, **fields})


async def compare(client: httpx2.AsyncClient, upstream: Upstream, body: dict[str, Any]) -> Any:
    """POST the comparison; (its answer, the upstream requests it made)."""
    before = upstream.requests
    response = await client.post("/v1/compare", json=body)
    assert response.status_code == 200, response.text
    return response.json(), upstream.requests - before


def calls_of(answer: dict[str, Any]) -> list[dict[str, Any]]:
    [judged] = answer["judges"]
    calls: list[dict[str, Any]] = judged["calls"]
    return sorted(calls, key=lambda c: c["round"])


def metric(scraped: str, name: str, **labels: str) -> float:
    """One sample of a scrape (0 when absent)."""
    inner = ",".join(f'{k}="{v}"' for k, v in labels.items())
    for line in scraped.splitlines():
        if line.startswith(f"{name}{{{inner}}} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def judge_total(scraped: str, name: str) -> float:
    """A counter of the caching judge summed over its other labels."""
    mine = f'judge="{JUDGE}"'
    return sum(
        float(line.rsplit(" ", 1)[1])
        for line in scraped.splitlines()
        if line.startswith(f"{name}{{") and mine in line
    )


BIAS_COUNTERS = ("fairpair_design_calls_total", "fairpair_swap_pairs_total")


def cache_counts(scraped: str) -> tuple[float, float, float]:
    """(hits, misses, saved USD) of the caching judge in a scrape."""
    lookups = "fairpair_judge_cache_lookups_total"
    return (
        metric(scraped, lookups, judge=JUDGE, outcome="hit"),
        metric(scraped, lookups, judge=JUDGE, outcome="miss"),
        metric(scraped, "fairpair_judge_cache_saved_usd_total", judge=JUDGE),
    )


async def asked_twice(client: httpx2.AsyncClient, upstream: Upstream) -> tuple[Any, Any]:
    """The same seeded comparison twice: the first asks the judge, the second nothing; both
    answer the same, the second's calls cached from the first's, at no cost."""
    first, asked = await compare(client, upstream, BODY)
    second, asked_again = await compare(client, upstream, BODY)
    assert (asked, asked_again) == (2, 0)
    assert second["winner"] == first["winner"] == "A"
    for old, new in zip(calls_of(first), calls_of(second), strict=True):
        assert old["cached"] is False
        assert old["cached_from"] is None
        assert old["cost_usd"] > 0
        assert new["cached"] is True
        assert new["cost_usd"] == 0
        assert (new["tokens_in"], new["tokens_out"]) == (0, 0)
        for same in ("pick", "confidence", "confidence_source", "labels", "display_order"):
            assert new[same] == old[same]
    shown = (await client.get(f"/v1/comparisons/{second['id']}")).json()
    assert [c["cached"] for c in calls_of(shown)] == [True, True]
    return first, second


async def test_a_seeded_comparison_asked_again_is_answered_from_its_stored_calls(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    settings = settings_factory(cached_judge(upstream.url), auth="off", draw_seed=7)
    client = await live_factory(settings)
    scraped = (await client.get("/metrics")).text
    before = cache_counts(scraped)
    bias_before = [judge_total(scraped, name) for name in BIAS_COUNTERS]

    first, second = await asked_twice(client, upstream)

    rows = await all_rows(clean_pg, JudgeCall)
    originals = {c.round: c for c in rows if c.comparison_id == first["id"]}
    repeats = {c.round: c for c in rows if c.comparison_id == second["id"]}
    for round_index, repeat in repeats.items():
        original = originals[round_index]
        assert repeat.cached_from == original.id
        assert original.cached_from is None
        assert repeat.request_key == original.request_key is not None
        assert repeat.raw_output == original.raw_output is not None
        assert repeat.provider_model == original.provider_model == JUDGE
    scraped = (await client.get("/metrics")).text
    hits, misses, saved = cache_counts(scraped)
    assert (hits - before[0], misses - before[1]) == (2, 2)
    # The bias counters count the repeated calls once: two design calls, one swap pair.
    bias_after = [judge_total(scraped, name) for name in BIAS_COUNTERS]
    assert [a - b for a, b in zip(bias_after, bias_before, strict=True)] == [2, 1]
    paid = sum(c["cost_usd"] for c in calls_of(first))
    assert saved - before[2] == pytest.approx(paid)
    # The bias report counts the repeated calls once: two calls, one swap pair.
    report = (await client.get("/v1/bias-report", params={"judge": JUDGE})).json()
    [judged] = report["judges"]
    assert (judged["calls"]["total"], judged["calls"]["design"]) == (2, 2)
    assert judged["consistency"]["pairs"] == 1


async def test_a_judge_without_cache_is_asked_every_time(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    judges = http_judge(JUDGE, upstream.url, **PRICES)
    client = await live_factory(settings_factory(judges, auth="off", draw_seed=7))
    asked = [(await compare(client, upstream, BODY))[1] for _ in range(2)]
    assert asked == [2, 2]
    rows = await all_rows(clean_pg, JudgeCall)
    assert {(c.request_key, c.cached_from) for c in rows} == {(None, None)}


async def test_a_new_judge_version_asks_again(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    first = settings_factory(cached_judge(upstream.url), auth="off", draw_seed=7)
    client = await live_factory(first)
    assert (await compare(client, upstream, BODY))[1] == 2
    # The same judge with another temperature: a new version, on the same database.
    changed = cached_judge(upstream.url, temperature=0.2)
    again = await live_factory(settings_factory(changed, auth="off", draw_seed=7))
    answer, asked = await compare(again, upstream, BODY)
    assert asked == 2
    assert [c["cached"] for c in calls_of(answer)] == [False, False]
    assert (await compare(again, upstream, BODY))[1] == 0


async def test_a_changed_provider_model_asks_again_once_a_live_call_reports_it(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    settings = settings_factory(cached_judge(upstream.url), auth="off", draw_seed=7)
    client = await live_factory(settings)
    assert (await compare(client, upstream, BODY))[1] == 2
    upstream.reported = f"{JUDGE}-2026-12-01"
    # Another request meets the new snapshot: from then on, answers of the old one are stale.
    other, asked = await compare(client, upstream, OTHER_BODY)
    assert asked == 2
    assert {c["provider_model"] for c in calls_of(other)} == {f"{JUDGE}-2026-12-01"}
    answer, asked = await compare(client, upstream, BODY)
    assert asked == 2
    assert [c["cached"] for c in calls_of(answer)] == [False, False]
    assert (await compare(client, upstream, BODY))[1] == 0


async def test_the_cache_answers_on_the_embedded_sqlite_database(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    tmp_path: Path,
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    settings = settings_factory(
        cached_judge(upstream.url), auth="off", draw_seed=7, database_url=url
    )
    client = await live_factory(settings)
    await asked_twice(client, upstream)
    report = (await client.get("/v1/bias-report", params={"judge": JUDGE})).json()
    assert report["judges"][0]["calls"]["total"] == 2


async def test_in_privacy_mode_a_hit_copies_the_parsed_answer_under_an_hmac_key(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    settings = settings_factory(cached_judge(upstream.url), auth="off", draw_seed=7, privacy="hash")
    client = await live_factory(settings)
    await asked_twice(client, upstream)
    rows = await all_rows(clean_pg, JudgeCall)
    assert len(rows) == 4
    assert all(c.raw_output is None and c.pick is not None for c in rows)
    assert len({c.request_key for c in rows}) == 2


def test_the_request_key_is_a_keyed_hmac_in_privacy_mode() -> None:
    """Without the instance's salt, a guessed prompt's plain hash does not find its key."""
    material = '["hash",{},"pair","system","user"]'
    plain = hashlib.sha256(material.encode()).hexdigest()
    run: Any = type("RunStub", (), {})()
    run.keeper = TextKeeper(hash_only=False, salt=b"salt")
    assert StoredAnswers(None, JudgeCall, run).key(material) == plain  # type: ignore[arg-type]
    run.keeper = TextKeeper(hash_only=True, salt=b"salt")
    hashed = StoredAnswers(None, JudgeCall, run).key(material)  # type: ignore[arg-type]
    assert hashed == TextKeeper(hash_only=True, salt=b"salt").digest(material) != plain


def test_drift_canaries_and_card_probes_ask_the_judge_without_the_cache() -> None:
    """Comparisons of origin `canary` measure the judge as it answers now; traffic uses the
    cache of a judge that has it, and a judge without it is never looked up."""
    cached, plain = (
        JudgeConfig(name=name, provider="sim", model="sim", cache=cache)
        for name, cache in (("with", True), ("without", False))
    )
    judges = [
        RuntimeJudge(c.name, 1, judge_config_hash(c), c.model, None, True, build_judge(c))
        for c in (cached, plain)
    ]
    keeper = TextKeeper(hash_only=False, salt=b"salt")
    run = Run(None, None, keeper, None)  # type: ignore[arg-type]
    traffic = clients_of(Comparison(origin="traffic"), run)
    canary = clients_of(Comparison(origin="canary"), run)
    assert isinstance(traffic(judges[0])._cache, StoredAnswers)
    assert traffic(judges[1])._cache is None
    assert canary(judges[0])._cache is None


SCORE_BODY = {
    "prompt": "Explain recursion in one paragraph.",
    "responses": [
        "A function that calls itself on a smaller input until a base case.\n[sim q=2]",
        "Recursion is when something repeats.\n[sim q=-2]",
    ],
    "judges": [JUDGE],
}


async def test_a_score_session_asked_again_is_answered_from_its_stored_call_and_counted_once(
    upstream: Upstream,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    # Re-scoring a frozen transcript (issue 39): the reviewer's call is not paid for again, and
    # the scoring statistics (the report's reviewers) count its scores once.
    settings = settings_factory(cached_judge(upstream.url), auth="off", draw_seed=7)
    client = await live_factory(settings)
    answers, asked = [], []
    for _ in range(2):
        before = upstream.requests
        response = await client.post("/v1/score", json=SCORE_BODY)
        assert response.status_code == 200, response.text
        answers.append(response.json())
        asked.append(upstream.requests - before)
    assert asked == [1, 0]
    first, second = ([r["call"] for r in answer["reviewers"]] for answer in answers)
    assert [(c["cached"], c["cached_from"]) for c in first] == [(False, None)]
    assert [c["cached"] for c in second] == [True]
    assert second[0]["cost_usd"] == 0
    assert [r["raw"] for r in answers[1]["responses"]] == [
        r["raw"] for r in answers[0]["responses"]
    ]
    report = (await client.get("/v1/bias-report", params={"judge": JUDGE})).json()
    [reviewer] = [r for r in report["reviewers"] if r["reviewer"] == JUDGE]
    assert reviewer["n_total"] == len(SCORE_BODY["responses"])
