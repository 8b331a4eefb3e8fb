"""Issue 39: Azure OpenAI judges. A request goes to
`/openai/deployments/{deployment}/chat/completions?api-version=...` with the key in `api-key`
(never `Authorization`), over real HTTP to `fairpair sim-judge --azure`, which answers Azure's
404 without an api-version and its 401 without a key. The deployment and the api-version are
held to patterns, so nothing a judge definition says reaches another path or query."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any

import httpx2
import pytest

from app.judging.egress import EgressRefused, azure_path
from app.judging.providers import build_judge
from app.judging.types import (
    DEFAULT_RUBRIC,
    JudgeConfig,
    SimKnobs,
)
from app.judging.versioning import judge_config_hash
from app.simjudge.azure import AZURE_ACCESS_DENIED, AZURE_NOT_FOUND
from tests.judging.fakes import (
    PAIR_A,
    PAIR_B,
    RecordingTransport,
    pair_over_http,
    running_sim_judge,
)

Deadline = Callable[[float], float]
KEY = "azure-key-0123456789abcdef"
PATH = "/openai/deployments/gpt-4o-judge/chat/completions"


@pytest.fixture(scope="module")
def azure_sim_url() -> Iterator[str]:
    with running_sim_judge(SimKnobs(), azure=True) as url:
        yield url


def _config(base_url: str = "https://res.openai.azure.com", **fields: Any) -> JudgeConfig:
    values: dict[str, Any] = {
        "name": "azure-judge",
        "provider": "azure_openai",
        "model": "gpt-4o",
        "base_url": base_url,
        "api_key": KEY,
        "deployment": "gpt-4o-judge",
        "api_version": "2024-10-21",
        "backoff_base_s": 0.01,
    }
    return JudgeConfig(**{**values, **fields})


async def test_an_azure_judge_sends_the_deployment_path_one_query_parameter_and_api_key(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    result = await pair_over_http(_config(azure_sim_url), transport, deadline_in(20))
    assert transport.statuses == [200]
    [sent] = transport.sent
    assert (sent.method, sent.path, sent.query) == ("POST", PATH, "api-version=2024-10-21")
    assert sent.headers["api-key"] == KEY
    assert "authorization" not in sent.headers
    # The deployment selects the model: the body names none; a plain judge's settings otherwise.
    assert list(sent.body) == ["messages", "temperature"]
    assert sent.body["temperature"] == 0.0
    assert result.ok
    assert result.error_kind is None
    # The sim answers as the deployment's model, as Azure answers as the model behind it.
    assert result.provider_model == "gpt-4o-judge"


async def test_an_azure_judge_asks_for_json_and_logprobs_when_set(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = _config(azure_sim_url, json_mode=True, logprobs=True)
    result = await pair_over_http(config, transport, deadline_in(20))
    [sent] = transport.sent
    assert list(sent.body) == [
        "messages", "temperature", "response_format", "logprobs", "top_logprobs"
    ]  # fmt: skip
    assert result.ok
    assert result.confidence_source == "logprobs"


async def test_an_azure_reasoning_judge_sends_effort_and_budget_and_no_temperature(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = _config(
        azure_sim_url, model="o4-mini", reasoning_effort="high", max_completion_tokens=3000
    )
    result = await pair_over_http(config, transport, deadline_in(20))
    [sent] = transport.sent
    assert set(sent.body) == {"messages", "max_completion_tokens", "reasoning_effort"}
    assert (sent.body["max_completion_tokens"], sent.body["reasoning_effort"]) == (3000, "high")
    assert (sent.path, sent.query) == (PATH, "api-version=2024-10-21")
    assert result.ok
    assert result.confidence_source == "stated"


async def test_an_azure_judge_scores_over_the_deployment_path(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    judge = build_judge(_config(azure_sim_url), transport=transport)
    try:
        result = await judge.judge_scores(
            "Capital of France?", [PAIR_A, PAIR_B], DEFAULT_RUBRIC, deadline=deadline_in(20)
        )
    finally:
        await judge.aclose()
    assert [(s.path, s.query) for s in transport.sent] == [(PATH, "api-version=2024-10-21")]
    assert result.ok
    assert result.scores is not None
    assert result.scores[0] > result.scores[1]


async def test_an_azure_judge_without_a_key_fails_as_auth_and_is_not_retried(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    result = await pair_over_http(_config(azure_sim_url, api_key=None), transport, deadline_in(20))
    assert transport.statuses == [401]
    [sent] = transport.sent
    assert "api-key" not in sent.headers
    assert "authorization" not in sent.headers
    assert not result.ok
    assert result.error_kind == "auth"
    assert result.error is not None
    assert "Access denied due to invalid subscription key" in result.error


# A Microsoft Entra ID access token's form (a JWT: header, claims, signature).
ENTRA_TOKEN = "eyJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJjb2duaXRpdmVzZXJ2aWNlcyJ9.c2lnbmF0dXJl"


async def test_an_entra_id_judge_sends_its_token_as_a_bearer_and_no_api_key(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = _config(azure_sim_url, api_key=ENTRA_TOKEN, azure_auth="entra_id")
    result = await pair_over_http(config, transport, deadline_in(20))
    assert transport.statuses == [200]
    [sent] = transport.sent
    assert (sent.path, sent.query) == (PATH, "api-version=2024-10-21")
    assert sent.headers["authorization"] == f"Bearer {ENTRA_TOKEN}"
    assert "api-key" not in sent.headers
    assert result.ok, result.error


async def test_an_entra_id_judge_whose_token_is_not_one_fails_as_auth(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    # An API key sent as a bearer is refused as Azure refuses it: 401, not retried.
    transport = RecordingTransport()
    config = _config(azure_sim_url, azure_auth="entra_id")
    result = await pair_over_http(config, transport, deadline_in(20))
    assert transport.statuses == [401]
    assert result.error_kind == "auth"


def test_azure_auth_takes_only_its_two_ways() -> None:
    with pytest.raises(ValueError, match="azure_auth"):
        _config(azure_auth="basic")


async def test_the_lean_client_sends_the_same_path_and_query(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    # Without a transport the judge's own HTTP client (LeanWire) sends the request.
    judge = build_judge(_config(azure_sim_url))
    try:
        result = await judge.judge_pair(
            "Capital of France?", PAIR_A, PAIR_B, deadline=deadline_in(20)
        )
    finally:
        await judge.aclose()
    assert result.ok, result.error


def test_the_azure_sim_answers_azures_404_without_an_api_version(azure_sim_url: str) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}]}
    headers = {"api-key": KEY}
    for query in ("", "?api-version=", "?other=1"):
        url = f"{azure_sim_url}{PATH}{query}"
        response = httpx2.post(url, json=body, headers=headers, timeout=10)
        assert response.status_code == 404, query
        assert (
            response.json()
            == AZURE_NOT_FOUND
            == {"error": {"code": "404", "message": "Resource not found"}}
        )


def test_the_azure_sim_answers_azures_401_without_an_api_key(azure_sim_url: str) -> None:
    body = {"messages": [{"role": "user", "content": "hi"}]}
    url = f"{azure_sim_url}{PATH}?api-version=2024-10-21"
    bearer = {"Authorization": f"Bearer {KEY}"}  # OpenAI's header is not Azure's
    for headers in ({}, bearer):
        response = httpx2.post(url, json=body, headers=headers, timeout=10)
        assert response.status_code == 401
        assert response.json() == AZURE_ACCESS_DENIED
    assert AZURE_ACCESS_DENIED["error"]["code"] == "401"
    assert AZURE_ACCESS_DENIED["error"]["message"].startswith(
        "Access denied due to invalid subscription key or wrong API endpoint."
    )


async def test_the_azure_sim_keeps_the_openai_routes(
    azure_sim_url: str, deadline_in: Deadline
) -> None:
    transport = RecordingTransport()
    config = JudgeConfig(name="gpt", provider="openai", model="gpt", base_url=azure_sim_url + "/v1")
    result = await pair_over_http(config, transport, deadline_in(20))
    assert [s.path for s in transport.sent] == ["/v1/chat/completions"]
    assert transport.statuses == [200]
    assert result.ok


@pytest.mark.parametrize(
    "deployment",
    ["a/b", "..", ".", "../x", "x?y=1", "x%2Fy", "x#y", "x&y", "x y", "é", "x" * 65, ""],
)
def test_a_deployment_that_could_reach_another_path_is_refused(deployment: str) -> None:
    with pytest.raises(EgressRefused, match="deployment"):
        azure_path(deployment, "2024-10-21")
    with pytest.raises(ValueError, match="deployment"):
        build_judge(_config(deployment=deployment))


@pytest.mark.parametrize(
    "api_version",
    ["2024-10-21&x=1", "2024-10-21#x", "2024-10-21 ", "2024-10-21\n", "2024-1-21", "latest",
     "2024-10-21-beta", "٢٠٢٤-10-21", ""],
)  # fmt: skip
def test_an_api_version_that_could_add_to_the_query_is_refused(api_version: str) -> None:
    with pytest.raises(EgressRefused, match="api_version"):
        azure_path("gpt-4o-judge", api_version)


def test_what_azure_names_is_accepted() -> None:
    assert azure_path("my_gpt-4o.v2", "2025-04-01-preview") == (
        "/openai/deployments/my_gpt-4o.v2/chat/completions?api-version=2025-04-01-preview"
    )
    assert azure_path("x" * 64, "2024-10-21").startswith("/openai/deployments/xxx")


def test_an_azure_judge_has_no_provider_batch_api() -> None:
    assert not _config().has_batch_api
    assert not _config(batch_api="auto").has_batch_api
    with pytest.raises(ValueError, match="Azure OpenAI's Batch API differs"):
        _config(batch_api="on")


def test_an_azure_judge_needs_its_deployment_and_api_version() -> None:
    for missing in ("deployment", "api_version", "base_url"):
        fields: dict[str, Any] = {missing: None}
        with pytest.raises(ValueError, match="needs base_url, deployment and api_version"):
            _config(**fields)


def test_the_deployment_and_the_api_version_make_a_new_judge_version() -> None:
    plain = _config()
    variants = [
        dataclasses.replace(plain, deployment="gpt-4o-judge-2"),
        dataclasses.replace(plain, api_version="2025-04-01-preview"),
        dataclasses.replace(plain, deployment="gpt-4o-judge-2", api_version="2025-04-01-preview"),
    ]
    hashes = {judge_config_hash(config) for config in [plain, *variants]}
    assert len(hashes) == 1 + len(variants)
    # An openai judge of the same model is another judge, too.
    openai = JudgeConfig(name="azure-judge", provider="openai", model="gpt-4o")
    assert judge_config_hash(openai) not in hashes
