"""A judge without the key its provider needs is unavailable with the reason (issue 43), never a
judge that calls out with `Bearer no-key`: an `api_key_env` that is unset or empty, or a hosted
API with no key at all; a local server needs none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.config import Settings
from app.judges.registry import missing_key
from app.judging.types import JudgeConfig

JUDGES = """
default_panel = ["local"]

[[judges]]
name = "unset-env"
provider = "openai"
model = "gpt-4o"
api_key_env = "FAIRPAIR_TEST_UNSET_KEY"

[[judges]]
name = "empty-env"
provider = "anthropic"
model = "claude-sonnet-4-5"
api_key_env = "FAIRPAIR_TEST_EMPTY_KEY"

[[judges]]
name = "hosted-keyless"
provider = "openai"
model = "gpt-4o"

[[judges]]
name = "set-env"
provider = "openai"
model = "gpt-4o"
api_key_env = "FAIRPAIR_TEST_SET_KEY"

[[judges]]
name = "local"
provider = "openai"
model = "llama"
base_url = "http://127.0.0.1:9/v1"
"""


async def test_judges_without_the_key_they_need_are_unavailable_with_the_reason(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FAIRPAIR_TEST_UNSET_KEY", raising=False)
    monkeypatch.setenv("FAIRPAIR_TEST_EMPTY_KEY", "")
    monkeypatch.setenv("FAIRPAIR_TEST_SET_KEY", "sk-present")
    client = await live_factory(settings_factory(JUDGES, auth="off"))
    judges = {j["name"]: j for j in (await client.get("/v1/judges")).json()["items"]}
    reasons = {name: j["unavailable_reason"] for name, j in judges.items() if not j["available"]}
    assert reasons == {
        "unset-env": "its api_key_env 'FAIRPAIR_TEST_UNSET_KEY' is unset or empty in this "
        "process's environment",
        "empty-env": "its api_key_env 'FAIRPAIR_TEST_EMPTY_KEY' is unset or empty in this "
        "process's environment",
        "hosted-keyless": "it has no provider key and api.openai.com refuses calls without one "
        "(set api_key_env)",
    }
    refused = await client.post(
        "/v1/compare",
        json={"prompt": "p", "response_a": "a", "response_b": "b", "judges": ["unset-env"]},
    )
    assert refused.status_code == 503
    assert "FAIRPAIR_TEST_UNSET_KEY" in refused.json()["detail"]


@pytest.mark.parametrize(
    ("config", "missing"),
    [
        (JudgeConfig(name="j", provider="openai", model="m", api_key="sk"), False),
        (JudgeConfig(name="j", provider="openai", model="m"), True),
        (JudgeConfig(name="j", provider="anthropic", model="m"), True),
        (
            JudgeConfig(
                name="j",
                provider="openai",
                model="m",
                base_url="https://generativelanguage.googleapis.com/v1beta/openai",
            ),
            True,
        ),
        (
            JudgeConfig(
                name="j", provider="openai", model="m", base_url="https://openrouter.ai/api/v1"
            ),
            True,
        ),
        (
            JudgeConfig(
                name="j", provider="openai", model="m", base_url="http://localhost:8000/v1"
            ),
            False,
        ),
        (JudgeConfig(name="j", provider="sim", model="m"), False),
    ],
)
def test_which_judges_need_a_key(config: JudgeConfig, missing: bool) -> None:
    assert (missing_key(config, None) is not None) is missing


def test_a_named_key_variable_is_needed_even_for_a_local_server() -> None:
    local = JudgeConfig(name="j", provider="openai", model="m", base_url="http://localhost/v1")
    assert missing_key(local, "VLLM_KEY") is not None


async def test_readiness_names_the_judges_it_cannot_call_without_failing(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("FAIRPAIR_TEST_UNSET_KEY", raising=False)
    monkeypatch.setenv("FAIRPAIR_TEST_EMPTY_KEY", "")
    monkeypatch.setenv("FAIRPAIR_TEST_SET_KEY", "sk-present")
    client = await live_factory(settings_factory(JUDGES, auth="off"))
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert set(ready.json()["unavailable_judges"]) == {"unset-env", "empty-env", "hosted-keyless"}
