"""The comparison explorer (issue 23): find comparisons, show one as the API does, open the
comparisons behind a report figure, privacy mode, and hostile filters."""

from __future__ import annotations

import html
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from sqlalchemy.ext.asyncio import AsyncSession

from app.config import Settings
from app.dashboard import explorer
from app.db import create_engine, create_sessionmaker
from app.jobs.lifecycle import read_job
from app.retention import purge
from app.stats import pc_classify
from tests.dashboard.seed import seed, traffic
from tests.reports.builders import BASE_TIME

COMPARE: dict[str, Any] = {
    "prompt": "What is two plus two?",
    "response_a": {"text": "four\n[sim q=3]", "model": "model-left"},
    "response_b": {"text": "five, surely\n[sim q=-3]", "model": "model-right"},
    "reference": "4",
}


@pytest.fixture
async def app_off(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with auth off."""
    client: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    return client


async def compare(client: httpx2.AsyncClient, judges: list[str], tags: dict[str, str]) -> str:
    """A comparison through the API; its id."""
    answer = await client.post("/v1/compare", json={**COMPARE, "judges": judges, "tags": tags})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["id"])


def total(page: str) -> int:
    """The page's count of matching comparisons."""
    found = re.search(r'data-field="total">(\d+)<', page)
    assert found is not None, page[:2000]
    return int(found.group(1))


def listed_ids(page: str) -> list[str]:
    """The ids of the rows shown, in order."""
    return re.findall(r'<tr data-id="([^"]+)">', page)


def text_of(fragment: str) -> str:
    """A cell's text without markup, unescaped, spaces collapsed."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", fragment)).split())


def found(pattern: str, page: str) -> str:
    """The text of the pattern's first group, which must be on the page."""
    match = re.search(pattern, page, re.S)
    assert match is not None, pattern
    return text_of(match.group(1))


def call_cells(page: str, judge: str, round_index: int) -> dict[str, str]:
    """The cells of one call's row of the calls table, by field."""
    row = re.search(
        rf'<tr data-judge="{re.escape(judge)}" data-round="{round_index}">(.*?)</tr>', page, re.S
    )
    assert row is not None, (judge, round_index)
    cells = re.findall(r'<td[^>]*data-field="([^"]+)"[^>]*>(.*?)</td>', row.group(1), re.S)
    return {field: text_of(value) for field, value in cells}


def shown(value: Any, spec: str = "") -> str:
    """How the page prints an API value for people (None as a dash; numbers by `spec`)."""
    return "—" if value is None else format(value, spec) if spec else str(value)


def expected_cells(call: dict[str, Any]) -> dict[str, str]:
    """The calls-table cells the API's call must produce."""
    source = f" ({call['confidence_source']})" if call["confidence_source"] else ""
    error = (
        call["error_kind"] + (f": {call['error']}" if call["error"] else "")
        if call["error_kind"]
        else "—"
    )
    return {
        "round": str(call["round"]),
        "display_order": call["display_order"],
        "labels": f"{call['labels']['A']}, {call['labels']['B']} ({call['label_pair']})",
        "pick": shown(call["pick"]),
        "mapped_winner": shown(call["mapped_winner"]),
        "confidence": shown(call["confidence"], ",.3f") + source,
        "latency_ms": shown(call["latency_ms"], ",.0f"),
        "tokens": f"{shown(call['tokens_in'], ',')} / {shown(call['tokens_out'], ',')}",
        "cost_usd": "—" if call["cost_usd"] is None else "$" + shown(call["cost_usd"], ",.4g"),
        "retries": str(call["retries"]),
        "error": error,
        "provider_model": shown(call["provider_model"]),
    }


async def test_the_explorer_finds_a_comparison_by_tag_and_judge(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    wanted = await compare(app_off, ["sim-a", "sim-b"], {"case": "c-1", "team": "red"})
    other_tag = await compare(app_off, ["sim-a", "sim-b"], {"case": "c-2"})
    other_judge = await compare(app_off, ["sim-a"], {"case": "c-1"})
    everything = (await app_off.get("/dashboard/comparisons")).text
    assert total(everything) == 3
    assert set(listed_ids(everything)) == {wanted, other_tag, other_judge}

    found = await app_off.get("/dashboard/comparisons?judge=sim-b&tag=case:c-1")
    assert found.status_code == 200
    assert (total(found.text), listed_ids(found.text)) == (1, [wanted])
    assert f'href="/dashboard/comparisons/{wanted}"' in found.text
    assert "case:c-1, team:red" in found.text
    both_tags = await app_off.get("/dashboard/comparisons?tag=case:c-1&tag=team:red")
    assert listed_ids(both_tags.text) == [wanted]
    by_tag = (await app_off.get("/dashboard/comparisons?tag=case:c-1")).text
    assert (total(by_tag), set(listed_ids(by_tag))) == (2, {wanted, other_judge})
    nobody = await app_off.get("/dashboard/comparisons?judge=nobody")
    assert nobody.status_code == 422  # a typo, not a judge without comparisons (issue 37)
    assert "/judge: no judge named" in html.unescape(nobody.text)
    canaries = (await app_off.get("/dashboard/comparisons?origin=canary")).text
    assert total(canaries) == 0
    assert total((await app_off.get("/dashboard/comparisons?origin=all")).text) == 3


async def test_filters_by_verdict_status_placebo_and_bias_match_the_stored_columns(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    ids = [await compare(app_off, ["sim-a"], {"n": str(i)}) for i in range(3)]
    answers = [(await app_off.get(f"/v1/comparisons/{i}")).json() for i in ids]
    for verdict in ("A", "B", "tie"):
        page = (await app_off.get(f"/dashboard/comparisons?verdict={verdict}")).text
        want = {a["id"] for a in answers if a["winner"] == verdict}
        assert (total(page), set(listed_ids(page))) == (len(want), want), verdict
    for flag in ("true", "false"):
        page = (await app_off.get(f"/dashboard/comparisons?bias_detected={flag}")).text
        want = {a["id"] for a in answers if str(a["bias_detected"]).lower() == flag}
        assert set(listed_ids(page)) == want, flag
    assert total((await app_off.get("/dashboard/comparisons?placebo=true")).text) == 0
    assert total((await app_off.get("/dashboard/comparisons?placebo=false")).text) == 3
    assert total((await app_off.get("/dashboard/comparisons?status=complete")).text) == 3
    assert total((await app_off.get("/dashboard/comparisons?status=failed")).text) == 0
    assert total((await app_off.get("/dashboard/comparisons?since=1h&until=2099-01-01")).text) == 3
    assert total((await app_off.get("/dashboard/comparisons?until=2000-01-01")).text) == 0


async def test_pages_walk_the_keyset_and_keep_the_count(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    ids = {await compare(app_off, ["sim-a"], {"n": str(i)}) for i in range(3)}
    seen: list[str] = []
    url: str | None = "/dashboard/comparisons?limit=2"
    while url is not None:
        page = (await app_off.get(url)).text
        assert total(page) == 3
        seen += listed_ids(page)
        link = re.search(r'id="next-page" href="([^"]+)"', page)
        url = "/dashboard/comparisons" + html.unescape(link.group(1)) if link else None
    assert sorted(seen) == sorted(ids)
    assert len(seen) == 3


async def test_a_comparison_page_shows_every_call_as_the_api_answers_it(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    comparison_id = await compare(app_off, ["sim-a", "sim-b"], {"case": "c-9"})
    api = (await app_off.get(f"/v1/comparisons/{comparison_id}")).json()
    answer = await app_off.get(f"/dashboard/comparisons/{comparison_id}")
    assert answer.status_code == 200
    page = answer.text
    assert answer.headers["content-security-policy"].startswith("default-src 'none'")
    calls = [(j["judge"], c) for j in api["judges"] for c in j["calls"]]
    assert len(calls) == 4  # two judges, a swap pair each
    for judge, call in calls:
        assert call_cells(page, judge, call["round"]) == expected_cells(call), (judge, call)
    assert len(re.findall(r'<tr data-judge="[^"]+" data-round="\d+">', page)) == len(calls)
    # Not blind: the texts and the models that wrote them.
    for text in ("What is two plus two?", "four\n[sim q=3]", "five, surely\n[sim q=-3]"):
        assert html.escape(text) in page
    assert "model-left" in page
    assert "model-right" in page
    assert '<pre class="text">4</pre>' in page  # the reference
    assert page.count('<tr class="raw"') == len(calls)  # every raw judge output is stored
    # The derivation, from the stored result and calls.
    for entry in api["judges"]:
        result = entry["result"]
        sentence = found(rf'<li data-judge="{entry["judge"]}">(.*?)</li>', page)
        winner = "a tie" if result["winner"] == "tie" else f"{result['winner']} wins"
        assert f"{winner} with confidence {result['confidence']:.4g}" in sentence, sentence
        consistent = "consistent," if result["position_consistent"] else "inconsistent,"
        assert consistent in sentence, sentence
    verdict = found(r'data-field="verdict">(.*?)</p>', page)
    panel_winner = "a tie" if api["winner"] == "tie" else f"{api['winner']} wins"
    assert verdict.startswith(f"Verdict: {panel_winner} with confidence {api['confidence']:.4g}")


async def test_the_derivation_names_an_inconsistent_pair(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    biased = """
default_panel = ["sim-first"]

[[judges]]
name = "sim-first"
provider = "sim"
model = "sim-first"
[judges.sim]
position_bias = 50.0
"""
    client = await live_factory(settings_factory(biased, auth="off"))
    comparison_id = await compare(client, ["sim-first"], {})
    page = (await client.get(f"/dashboard/comparisons/{comparison_id}")).text
    sentence = found(r'<li data-judge="sim-first">(.*?)</li>', page)
    assert sentence == (
        "sim-first picked A shown AB (first slot) and B shown BA (first slot): inconsistent, "
        "so its vote is a tie with confidence 0.5 (inconsistent)."
    )


def oracle_pairs(judge: str) -> dict[str, int]:
    """Swap pairs of the seeded traffic by class, counted from the rows themselves."""
    data = traffic()
    placebo = {c["id"] for c in data.comparisons if c["placebo"]}
    picks: dict[str, dict[int, Any]] = {}
    for call in data.calls:
        if call["judge_name"] == judge and call["comparison_id"] not in placebo:
            picks.setdefault(call["comparison_id"], {})[call["round"]] = call["pick"]
    counts = {"primacy": 0, "recency": 0, "consistent": 0}
    for rounds in picks.values():
        if rounds.get(0) is not None and rounds.get(1) is not None:
            counts[pc_classify(rounds[0], rounds[1])] += 1
    return counts


# The seeded calls lie 4 and 3 days before now: the second window holds the second day only.
WINDOWS = ("", f"&since={quote((BASE_TIME - timedelta(hours=12)).isoformat())}")


@pytest.mark.parametrize("window", WINDOWS)
async def test_a_report_figure_links_to_its_comparisons_and_their_count_is_the_figure(
    app_off: httpx2.AsyncClient, clean_pg: str, window: str
) -> None:
    await seed(clean_pg)
    judge_page = (await app_off.get(f"/dashboard/judge?judge=judge-a{window}")).text
    report = (await app_off.get(f"/v1/bias-report?judge=judge-a{window}")).json()
    (entry,) = [j for j in report["judges"] if j["judge"] == "judge-a"]
    figures = {
        "primacy": entry["consistency"]["primacy_pairs"],
        "recency": entry["consistency"]["recency_pairs"],
    }
    figures["consistent"] = entry["consistency"]["pairs"] - figures["primacy"] - figures["recency"]
    if not window:
        assert figures == oracle_pairs("judge-a")  # every seeded call is in the default window
    else:
        assert 0 < figures["primacy"] + figures["recency"] < sum(oracle_pairs("judge-a").values())
    assert figures["primacy"] > figures["recency"]  # judge-a prefers the first slot
    for kind, figure in figures.items():
        link = re.search(rf'data-field="{kind}_pairs" href="([^"]+)">{kind} (\d+)</a>', judge_page)
        assert link is not None, kind
        assert int(link.group(2)) == figure, kind
        target = html.unescape(link.group(1))
        assert target.startswith("/dashboard/comparisons?judge=judge-a&since=")
        assert f"swap={kind}" in target
        listed = await app_off.get(target)
        assert listed.status_code == 200, target
        assert total(listed.text) == figure, (kind, target)


async def test_swap_pairs_ignore_placebo_running_and_calls_outside_the_window(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await seed(clean_pg)
    base = "/dashboard/comparisons?judge=judge-a&swap=primacy"
    everything = total((await app_off.get(base)).text)
    assert everything == oracle_pairs("judge-a")["primacy"]
    placebo_only = total((await app_off.get(base + "&placebo=true")).text)
    assert placebo_only == 0
    assert total((await app_off.get(base + "&until=2000-01-01T00:00:00Z")).text) == 0


async def test_privacy_mode_shows_hashes_and_lengths_and_says_why(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    client = await live_factory(settings_factory(auth="off", privacy="hash"))
    comparison_id = await compare(client, ["sim-a"], {"case": "secret"})
    page = (await client.get(f"/dashboard/comparisons/{comparison_id}")).text
    assert "privacy mode (FAIRPAIR_PRIVACY=hash)" in page
    for text in ("What is two plus two?", "four", "five, surely"):
        assert text not in page
    hashes = re.findall(r'data-field="hmac">([0-9a-f]{64})<', page)
    assert len(hashes) == 3 + 2  # prompt, two responses, two raw outputs
    assert len(set(hashes[:3])) == 3
    for side in ("response_a", "response_b"):
        length = len(COMPARE[side]["text"])
        assert f"{length} characters" in page
    assert "not stored in privacy mode" in page  # the reference keeps no hash
    listed = (await client.get("/dashboard/comparisons?tag=case:secret")).text
    assert listed_ids(listed) == [comparison_id]
    table = listed[listed.index('<table id="comparisons">') :]
    assert "case:secret" not in table  # the tag value is stored as its HMAC
    assert re.search(r"case:[0-9a-f]{64}", table)


HOSTILE = (
    "verdict=C",
    "status=exploded",
    "origin=mars",
    "placebo=maybe",
    "bias_detected=2",
    "swap=primacy",
    "swap=sideways&judge=sim-a",
    "since=yesterday-ish",
    "until=99999-01-01",
    "since=2026-02-01&until=2026-01-01",
    "limit=0",
    "limit=201",
    "limit=-5",
    "limit=1e3",
    "cursor=garbage",
    f"cursor={quote('MjAyNi0wMS0wMXxcMDA=')}",
    "cursor=" + "A" * 600,
    "tag=nocolon",
    "tag=:value",
    "judge=" + "j" * 101,
    "judge=%00",
    "tag=a:%00",
    "since=%ED%A0%80",
    "judge=%F0%9F%92%A9&tag=%E2%80%AE:x",
    "limit=%00",
    "&".join(["tag=a:b"] * 17),
    "q=" + "%25" * 200,
    "q=" + "q" * 201,
    "q=%00",
    "q=" + quote("(a+)+$ \\ _%' OR 1=1 --"),
    "q=%ED%A0%80",
)


@pytest.mark.parametrize("query", HOSTILE)
async def test_hostile_filters_are_answered_not_crashed_on(
    app_off: httpx2.AsyncClient, clean_pg: str, query: str
) -> None:
    answer = await app_off.get(f"/dashboard/comparisons?{query}")
    assert answer.status_code in (200, 422), (query, answer.status_code, answer.text[:300])
    if answer.status_code == 422 and answer.headers["content-type"].startswith("text/html"):
        assert 'class="error" id="filter-error"' in answer.text


async def test_a_bad_filter_is_a_422_page_that_says_what_is_wrong(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    answer = await app_off.get("/dashboard/comparisons?verdict=C&judge=sim-a")
    assert answer.status_code == 422
    assert "/verdict: unknown verdict 'C'" in html.unescape(answer.text)
    assert 'value="sim-a"' in answer.text  # the form keeps what was typed


@pytest.mark.parametrize(
    "path", ["no-such-id", "x" * 37, "%00", "%E2%80%AE", "..%2F..%2Fetc", "00000000-0000-0000-0000"]
)
async def test_unknown_or_malformed_comparison_ids_are_not_found_not_crashed_on(
    app_off: httpx2.AsyncClient, clean_pg: str, path: str
) -> None:
    answer = await app_off.get(f"/dashboard/comparisons/{path}")
    assert answer.status_code in (404, 422), (path, answer.status_code)


async def test_a_comparison_purged_between_the_pages_two_reads_is_not_found(
    app_off: httpx2.AsyncClient, clean_pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    comparison_id = await compare(app_off, ["sim-a"], {})

    async def read_then_purge(kind: Any, session: AsyncSession, job_id: str, grace_s: float) -> Any:
        answer = await read_job(kind, session, job_id, grace_s)
        session.expunge_all()  # the page's next read goes to the database
        engine = create_engine(clean_pg)
        async with create_sessionmaker(engine)() as other:
            await purge(other, datetime.now(UTC) + timedelta(minutes=1), texts_only=False)
        await engine.dispose()
        return answer

    monkeypatch.setattr(explorer, "read_job", read_then_purge)
    answer = await app_off.get(f"/dashboard/comparisons/{comparison_id}")
    assert answer.status_code == 404
    assert f"no comparison with id &#39;{comparison_id}&#39;" in answer.text


async def test_the_explorer_needs_a_read_key(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    reader: dict[str, str],
    comparer: dict[str, str],
) -> None:
    client = await live_factory(settings_factory())
    compared = await client.post("/v1/compare", headers=comparer, json=COMPARE)
    comparison_id = compared.json()["id"]
    for path in ("/dashboard/comparisons", f"/dashboard/comparisons/{comparison_id}"):
        away = await client.get(path)
        assert away.status_code == 303
        assert away.headers["location"].startswith("/dashboard/login?next=")
        assert (await client.get(path, headers=reader)).status_code == 200


async def test_text_search_matches_the_prompt_or_a_response_literally(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    plain = await compare(app_off, ["sim-a"], {"case": "plain"})
    odd = {
        **COMPARE,
        "prompt": "Is 100% of 50_000 more than 5\\0? Say so in ONE word.",
        "judges": ["sim-a"],
        "tags": {"case": "odd"},
    }
    answer = await app_off.post("/v1/compare", json=odd)
    assert answer.status_code == 200, answer.text
    odd_id = answer.json()["id"]

    async def search(text: str) -> list[str]:
        page = await app_off.get("/dashboard/comparisons", params={"q": text})
        assert page.status_code == 200, (text, page.text[:300])
        assert total(page.text) == len(listed_ids(page.text))
        return sorted(listed_ids(page.text))

    assert await search("two plus") == [plain]  # the prompt, any case below
    assert await search("TWO PLUS") == [plain]
    assert await search("five, surely") == sorted([plain, odd_id])  # response B of both
    assert await search("100%") == [odd_id]
    # LIKE's wildcards and escape are the user's text, matched as themselves:
    assert await search("%") == [odd_id]
    assert await search("_") == [odd_id]
    assert await search("0_0") == [odd_id]
    assert await search("1_0") == []  # would match "100" if _ were a wildcard
    assert await search("5\\0") == [odd_id]
    assert await search("10%50") == []  # would match "100% of 50" if % were a wildcard
    assert await search("  word.  ") == [odd_id]  # ends trimmed
    assert await search("") == sorted([plain, odd_id])  # no search: every comparison
    # The list shows each prompt's start on one line.
    listed = (await app_off.get("/dashboard/comparisons", params={"q": "ONE word"})).text
    assert found(r'data-field="prompt">(.*?)</td>', listed) == odd["prompt"]


async def test_prompt_previews_are_cut_and_search_is_refused_in_privacy_mode(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    client = await live_factory(settings_factory(auth="off"))
    long_prompt = "word " * 100 + "\n\n  tail"
    answer = await client.post(
        "/v1/compare", json={**COMPARE, "prompt": long_prompt, "judges": ["sim-a"]}
    )
    assert answer.status_code == 200, answer.text
    listed = (await client.get("/dashboard/comparisons")).text
    preview = found(r'data-field="prompt">(.*?)</td>', listed)
    assert preview == ("word " * 100)[: explorer.PREVIEW_CHARS].rstrip() + "…"
    assert len(preview) <= explorer.PREVIEW_CHARS + 1

    private = await live_factory(settings_factory(auth="off", privacy="hash"))
    refused = await private.get("/dashboard/comparisons", params={"q": "two"})
    assert refused.status_code == 422
    assert "privacy mode" in html.unescape(refused.text)
