"""Issue 39 through the API: an Azure OpenAI judge's swap comparison and score session against
`fairpair sim-judge --azure` over real HTTP, the deployment and api_version as versions, and the
definition-time refusals (batch_api = on, a deployment or api_version that could reach another
path or query, a base_url with a path)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.judges.registry import JudgesFileError, read_judges_file
from app.judging.types import SimKnobs
from app.ledger.models import JudgeCall
from tests.hardening.support import all_rows, complete_swap_calls, sim_stats
from tests.judging.fakes import running_sim_judge

COMPARE = {
    "prompt": "What is 2+2?",
    "response_a": "4\n[sim q=4]",
    "response_b": "5\n[sim q=-4]",
    "protocol": {"kind": "swap"},
    "judges": ["azure-judge"],
}
SCORE = {
    "prompt": "Explain recursion in one paragraph.",
    "responses": [
        "A function that calls itself on a smaller input until a base case.\n[sim q=2]",
        "Recursion is when something repeats.\n[sim q=-2]",
    ],
    "judges": ["azure-judge"],
}
AZURE_JUDGE = {
    "name": "azure-judge",
    "provider": "azure_openai",
    "model": "gpt-4o",
    "base_url": "https://fairpair-test.openai.azure.com",
    "deployment": "gpt-4o-judge",
    "api_version": "2024-10-21",
    "api_key": "azure-very-secret",
}


def azure_judge(base_url: str, **fields: Any) -> str:
    """A `[[judges]]` table: an azure_openai judge talking to a sim-judge --azure."""
    values = {**AZURE_JUDGE, "base_url": base_url, **fields}
    lines = "".join(f"{key} = {json.dumps(value)}\n" for key, value in values.items())
    return f"\n[[judges]]\n{lines}"


@pytest.fixture(scope="module")
def azure_sim_url() -> Iterator[str]:
    with running_sim_judge(SimKnobs(), azure=True) as url:
        yield url


async def test_an_azure_judges_swap_comparison_runs_against_the_azure_sim(
    azure_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(azure_judge(azure_sim_url), auth="off"))
    result, _calls = complete_swap_calls(await client.post("/v1/compare", json=COMPARE))
    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == result["id"])
    # Azure answers as the model behind the deployment; the sim as the deployment.
    assert {c.provider_model for c in stored} == {"gpt-4o-judge"}
    assert sim_stats(azure_sim_url + "/v1")["answered"] == {"200": 2}


async def test_an_azure_judges_score_session_runs_against_the_azure_sim(
    azure_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    judge = azure_judge(azure_sim_url, reasoning_effort="low", max_completion_tokens=4000)
    client = await live_factory(settings_factory(judge, auth="off"))
    response = await client.post("/v1/score", json=SCORE)

    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "complete"
    [first, second] = body["responses"]
    assert first["raw"]["azure-judge"] > second["raw"]["azure-judge"]


async def test_an_entra_id_azure_judges_comparison_runs_against_the_azure_sim(
    azure_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    # The key variable's value is a Microsoft Entra ID token (a JWT), sent as a bearer.
    token = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJjb2duaXRpdmVzZXJ2aWNlcyJ9.c2lnbmF0dXJl"
    judge = azure_judge(azure_sim_url, api_key=token, azure_auth="entra_id")
    client = await live_factory(settings_factory(judge, auth="off"))
    _result, calls = complete_swap_calls(await client.post("/v1/compare", json=COMPARE))
    assert [call["error_kind"] for call in calls] == [None, None]
    shown = (await client.get("/v1/judges/azure-judge")).json()
    assert shown["config"]["azure_auth"] == "entra_id"
    assert token not in str(shown)


async def test_an_azure_judge_without_a_key_is_unavailable_and_sends_nothing(
    azure_sim_url: str,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    table = azure_judge(azure_sim_url).replace('api_key = "azure-very-secret"\n', "")
    client = await live_factory(settings_factory(table, auth="off"))
    listed = (await client.get("/v1/judges/azure-judge")).json()
    assert listed["available"] is False
    assert "no provider key" in listed["unavailable_reason"]
    response = await client.post("/v1/compare", json=COMPARE)

    assert response.status_code == 503, response.text
    assert "no provider key" in response.json()["detail"]
    assert await all_rows(clean_pg, JudgeCall) == []


async def test_changing_the_deployment_or_the_api_version_makes_a_new_judge_version(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    created = await client.post("/v1/judges", headers=admin, json=AZURE_JUDGE)
    assert created.status_code == 201, created.text
    config = created.json()["config"]
    assert (config["deployment"], config["api_version"]) == ("gpt-4o-judge", "2024-10-21")
    # JSON mode and logprobs default off: support depends on the deployment's model and version.
    assert (created.json()["json_mode"], created.json()["logprobs"]) == (False, False)
    moved = await client.patch(
        "/v1/judges/azure-judge", headers=admin, json={"deployment": "gpt-4o-judge-2"}
    )
    assert moved.status_code == 200, moved.text
    assert moved.json()["version"] == 2
    again = await client.patch(
        "/v1/judges/azure-judge", headers=admin, json={"api_version": "2025-04-01-preview"}
    )
    assert again.json()["version"] == 3
    hashes = {created.json()["config_hash"], moved.json()["config_hash"]}
    assert len(hashes | {again.json()["config_hash"]}) == 3


@pytest.mark.parametrize(
    ("change", "pointer", "says"),
    [
        ({"batch_api": "on"}, "/batch_api", "Azure OpenAI's Batch API differs"),
        ({"deployment": "a/b"}, "/deployment", "deployment name"),
        ({"deployment": ".."}, "/deployment", "deployment name"),
        ({"deployment": "x?api-version=1"}, "/deployment", "deployment name"),
        ({"deployment": "x%2Fy"}, "/deployment", "deployment name"),
        ({"api_version": "2024-10-21&x=1"}, "/api_version", "api_version"),
        ({"deployment": None}, "/deployment", "needs this setting"),
        ({"api_version": None}, "/api_version", "needs this setting"),
        ({"base_url": None}, "/base_url", "resource URL"),
        ({"base_url": "https://r.openai.azure.com/openai"}, "/base_url", "without a path"),
        ({"base_url": "https://r.openai.azure.com?api-version=1"}, "/base_url", "no query"),
        ({"provider": "openai"}, "/deployment", "only an azure_openai judge"),
        ({"azure_auth": "basic"}, "/azure_auth", "'api_key' or 'entra_id'"),
        (
            {"provider": "openai", "deployment": None, "api_version": None}
            | {"azure_auth": "entra_id"},
            "/azure_auth",
            "only an azure_openai judge",
        ),
    ],
    ids=[
        "batch_api on", "slash", "dot dot", "query", "encoded slash", "extra parameter",
        "no deployment", "no api_version", "no base_url", "base_url path", "base_url query",
        "openai with deployment", "unknown auth", "openai with entra_id",
    ],
)  # fmt: skip
async def test_an_azure_judge_that_cannot_work_is_refused_where_it_is_defined(
    change: dict[str, Any],
    pointer: str,
    says: str,
    client: httpx2.AsyncClient,
    admin: dict[str, str],
) -> None:
    response = await client.post("/v1/judges", headers=admin, json={**AZURE_JUDGE, **change})
    assert response.status_code == 422, response.text
    errors = response.json()["errors"]
    assert [e["pointer"] for e in errors] == [pointer]
    assert says in errors[0]["message"]


async def test_patching_batch_api_on_for_an_azure_judge_is_refused(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    await client.post("/v1/judges", headers=admin, json=AZURE_JUDGE)
    patched = await client.patch("/v1/judges/azure-judge", headers=admin, json={"batch_api": "on"})
    assert patched.status_code == 422, patched.text
    [error] = patched.json()["errors"]
    assert error["pointer"] == "/batch_api"
    assert "Azure OpenAI's Batch API differs" in error["message"]


def test_a_judges_file_with_an_azure_judge_on_the_batch_api_does_not_load(
    tmp_path: Path,
) -> None:
    path = tmp_path / "judges.toml"
    path.write_text(azure_judge("https://r.openai.azure.com", batch_api="on"))
    with pytest.raises(JudgesFileError, match="Azure OpenAI's Batch API differs"):
        read_judges_file(path)
