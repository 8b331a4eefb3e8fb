"""Issue 39 through the API: a reasoning judge's swap comparison against `fairpair sim-judge
--reasoning` over real HTTP, another judge refused by it, the settings' versions, and the
definition-time refusal of logprobs on a reasoning judge."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.judges.registry import JudgesFileError, read_judges_file
from app.judging.types import SimKnobs
from app.ledger.models import JudgeCall
from app.simjudge.server import SIM_REASONING_TOKENS
from tests.hardening.support import all_rows, complete_swap_calls, http_judge
from tests.judging.fakes import running_sim_judge

BODY = {
    "prompt": "What is 2+2?",
    "response_a": "4\n[sim q=4]",
    "response_b": "5\n[sim q=-4]",
    "protocol": {"kind": "swap"},
}
REASONING_JUDGE = {
    "name": "o3-judge",
    "provider": "openai",
    "model": "o3",
    "api_key": "sk-very-secret",
    "reasoning_effort": "low",
}


@pytest.fixture(scope="module")
def reasoning_sim_url() -> Iterator[str]:
    with running_sim_judge(SimKnobs(), reasoning=True) as url:
        yield url


async def test_a_reasoning_judges_swap_comparison_runs_against_the_reasoning_sim(
    reasoning_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    judge = http_judge(
        "o3-judge",
        reasoning_sim_url,
        reasoning_effort="low",
        max_completion_tokens=4000,
        json_mode=True,
    )
    client = await live_factory(settings_factory(judge, auth="off"))
    before = reasoning_tokens_counted((await client.get("/metrics")).text)
    response = await client.post("/v1/compare", json={**BODY, "judges": ["o3-judge"]})
    _result, calls = complete_swap_calls(response)
    assert {c["confidence_source"] for c in calls} == {"stated"}
    # Each call's reasoning tokens are stored, shown, and counted per judge in /metrics.
    stored = (await client.get(f"/v1/comparisons/{response.json()['id']}")).json()
    shown = [c["reasoning_tokens"] for j in stored["judges"] for c in j["calls"]]
    assert shown == [SIM_REASONING_TOKENS] * 2
    after = reasoning_tokens_counted((await client.get("/metrics")).text)
    assert after - before == 2 * SIM_REASONING_TOKENS
    # The bias report sums them per judge: the whole hours from the rollups (the default window)
    # and a partial hour from the calls (a window starting just before them) alike.
    started = min(c["started_at"] for j in stored["judges"] for c in j["calls"])
    since = (datetime.fromisoformat(started) - timedelta(seconds=1)).isoformat()
    for params in ({"judge": "o3-judge"}, {"judge": "o3-judge", "since": since}):
        [judged] = (await client.get("/v1/bias-report", params=params)).json()["judges"]
        counts = judged["calls"]
        assert counts["reasoning_tokens"] == 2 * SIM_REASONING_TOKENS
        assert counts["tokens_out"] > counts["reasoning_tokens"]
        assert counts["tokens_in"] > 0


async def test_a_reasoning_judges_score_calls_count_their_reasoning_tokens_in_metrics(
    reasoning_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    judge = http_judge("o3-judge", reasoning_sim_url, reasoning_effort="low", json_mode=True)
    client = await live_factory(settings_factory(judge, auth="off"))
    before = reasoning_tokens_counted((await client.get("/metrics")).text)
    score = {
        "prompt": "Explain recursion in one paragraph.",
        "responses": ["Calls itself on smaller input.\n[sim q=2]", "Repeats.\n[sim q=-2]"],
        "judges": ["o3-judge"],
    }
    response = await client.post("/v1/score", json=score)
    assert response.status_code == 200, response.text
    assert response.json()["status"] == "complete"
    after = reasoning_tokens_counted((await client.get("/metrics")).text)
    assert after - before == SIM_REASONING_TOKENS


def reasoning_tokens_counted(scraped: str) -> float:
    """`fairpair_judge_reasoning_tokens_total{judge="o3-judge"}` in a scrape (0 before any)."""
    for line in scraped.splitlines():
        if line.startswith('fairpair_judge_reasoning_tokens_total{judge="o3-judge"}'):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


async def test_a_judge_that_is_not_reasoning_fails_against_the_reasoning_sim(
    reasoning_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    judge = http_judge("gpt-judge", reasoning_sim_url)
    client = await live_factory(settings_factory(judge, auth="off"))
    response = await client.post("/v1/compare", json={**BODY, "judges": ["gpt-judge"]})

    assert response.status_code == 502, response.text
    problem = response.json()
    assert problem["type"] == "judges-failed"
    stored = await all_rows(
        clean_pg, JudgeCall, JudgeCall.comparison_id == problem["comparison_id"]
    )
    assert [(c.error_kind, c.retries) for c in stored] == [("unsupported_parameter", 0)] * 2
    assert all("'temperature' does not support 0.0" in (c.error or "") for c in stored)


async def test_changing_the_effort_makes_a_new_judge_version(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    created = await client.post("/v1/judges", headers=admin, json=REASONING_JUDGE)
    assert created.status_code == 201, created.text
    # On api.openai.com logprobs default on, but a reasoning judge asks for none.
    assert (created.json()["logprobs"], created.json()["json_mode"]) == (False, True)
    patch = {"reasoning_effort": "high"}
    patched = await client.patch("/v1/judges/o3-judge", headers=admin, json=patch)
    assert patched.json()["version"] == 2
    assert patched.json()["config"]["reasoning_effort"] == "high"
    budget = {"max_completion_tokens": 20_000}
    again = await client.patch("/v1/judges/o3-judge", headers=admin, json=budget)
    assert again.json()["version"] == 3
    hashes = {created.json()["config_hash"], patched.json()["config_hash"]}
    assert len(hashes | {again.json()["config_hash"]}) == 3


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"logprobs": True}, "/logprobs"),
        ({"provider": "anthropic", "model": "claude"}, "/reasoning_effort"),
        ({"max_completion_tokens": 0}, "/max_completion_tokens"),
    ],
    ids=["logprobs", "anthropic", "no budget"],
)
async def test_a_reasoning_judge_that_cannot_work_is_refused_where_it_is_defined(
    change: dict[str, Any], pointer: str, client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    response = await client.post("/v1/judges", headers=admin, json={**REASONING_JUDGE, **change})
    assert response.status_code == 422, response.text
    assert [e["pointer"] for e in response.json()["errors"]] == [pointer]


async def test_patching_logprobs_on_a_reasoning_judge_is_refused(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    await client.post("/v1/judges", headers=admin, json=REASONING_JUDGE)
    patched = await client.patch("/v1/judges/o3-judge", headers=admin, json={"logprobs": True})
    assert patched.status_code == 422, patched.text
    assert [e["pointer"] for e in patched.json()["errors"]] == ["/logprobs"]


def test_a_judges_file_with_a_reasoning_judge_asking_for_logprobs_does_not_load(
    tmp_path: Path,
) -> None:
    path = tmp_path / "judges.toml"
    path.write_text(
        http_judge("o3-judge", "https://api.openai.com/v1", reasoning=True, logprobs=True)
    )
    with pytest.raises(JudgesFileError, match="logprobs"):
        read_judges_file(path)


THINKING_JUDGE = {
    "name": "claude-thinking",
    "provider": "anthropic",
    "model": "claude-sonnet-4-5",
    "api_key": "sk-ant-secret",
    "thinking_budget_tokens": 4096,
}


async def test_a_thinking_judge_is_defined_and_its_budget_makes_a_new_version(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    created = await client.post("/v1/judges", headers=admin, json=THINKING_JUDGE)
    assert created.status_code == 201, created.text
    assert created.json()["config"]["thinking_budget_tokens"] == 4096
    more = {"thinking_budget_tokens": 8192}
    patched = await client.patch("/v1/judges/claude-thinking", headers=admin, json=more)
    assert patched.json()["version"] == 2
    assert patched.json()["config_hash"] != created.json()["config_hash"]


@pytest.mark.parametrize(
    ("change", "pointer"),
    [
        ({"thinking_budget_tokens": 1000}, "/thinking_budget_tokens"),
        ({"provider": "openai", "model": "gpt-4o"}, "/thinking_budget_tokens"),
    ],
    ids=["under 1024", "openai"],
)
async def test_a_thinking_judge_that_cannot_work_is_refused_where_it_is_defined(
    change: dict[str, Any], pointer: str, client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    response = await client.post("/v1/judges", headers=admin, json={**THINKING_JUDGE, **change})
    assert response.status_code == 422, response.text
    assert [e["pointer"] for e in response.json()["errors"]] == [pointer]
