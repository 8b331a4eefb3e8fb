"""Judge secrets (issue 18 item 2): an admin key cannot make the server send its own secrets.

A fake provider over real HTTP records every Authorization header it receives; no path lets it
see FAIRPAIR_SECRET_KEY, the database URL, another judge's key, or a key after its origin moved.
Changes (key, URL, limits) reach every process on its next call, without a restart.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.config import Settings
from tests.security.provider import RecordingProvider, recording_provider

COMPARE = {"prompt": "2+2?", "response_a": "4", "response_b": "5"}
FILE_JUDGE_KEY = "sk-file-judge-key-never-shared"
FILE_JUDGE = f"""
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-model"

[[judges]]
name = "file-http"
provider = "openai"
model = "m"
base_url = "http://127.0.0.1:9/v1"
api_key = "{FILE_JUDGE_KEY}"
"""


def api_judge(provider: RecordingProvider, **fields: Any) -> dict[str, Any]:
    return {
        "name": "posted",
        "provider": "openai",
        "model": "m",
        "base_url": provider.base_url,
        "api_key": "sk-first-key",
        **fields,
    }


def settings_with_loopback(factory: Callable[..., Settings], **overrides: Any) -> Settings:
    return factory(FILE_JUDGE, judge_hosts_allow="127.0.0.1", **overrides)


async def compare_with(client: httpx2.AsyncClient, headers: dict[str, str], judge: str) -> None:
    response = await client.post(
        "/v1/compare", headers=headers, json={**COMPARE, "judges": [judge]}
    )
    assert response.status_code == 200, response.text


def never_leaked(providers: list[RecordingProvider], settings: Settings, *keys: str) -> None:
    """No provider saw the server's secrets or any of `keys`."""
    secrets = [settings.secret_key.get_secret_value(), settings.database_url, *keys]
    for provider in providers:
        for header in provider.authorizations:
            assert not any(secret in header for secret in secrets), header


@pytest.mark.parametrize(
    "variable", ["FAIRPAIR_SECRET_KEY", "FAIRPAIR_DATABASE_URL", "HOME", "OPENAI_API_KEY"]
)
async def test_api_key_env_must_be_one_the_operator_allowed(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    variable: str,
) -> None:
    async with recording_provider() as provider:
        client = await live_factory(settings_with_loopback(settings_factory))
        body = api_judge(provider, api_key=None, api_key_env=variable)
        response = await client.post("/v1/judges", headers=admin, json=body)
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["pointer"] == "/api_key_env"
        assert "FAIRPAIR_JUDGE_KEY_ENVS" in response.json()["detail"]
        patched = await client.post(
            "/v1/judges", headers=admin, json=api_judge(provider, name="other")
        )
        assert patched.status_code == 201
        moved = await client.patch(
            "/v1/judges/other", headers=admin, json={"api_key_env": variable}
        )
        assert moved.status_code == 422
        assert provider.authorizations == []


async def test_an_allowed_key_env_is_read_at_call_time(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    comparer: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("JUDGE_TEAM_KEY", "sk-team-key")
    async with recording_provider() as provider:
        bound = f"JUDGE_TEAM_KEY={provider.base_url}"
        settings = settings_with_loopback(settings_factory, judge_key_envs=bound)
        client = await live_factory(settings)
        body = api_judge(provider, api_key=None, api_key_env="JUDGE_TEAM_KEY")
        assert (await client.post("/v1/judges", headers=admin, json=body)).status_code == 201
        await compare_with(client, comparer, "posted")
    assert set(provider.authorizations) == {"Bearer sk-team-key"}


async def test_a_listed_key_variable_goes_only_to_the_origin_it_is_bound_to(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    comparer: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Listing OPENAI_API_KEY bare used to let any admin send it to any allowed host.
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-openai-key")
    monkeypatch.setenv("JUDGE_TEAM_KEY", "sk-team-key")
    async with recording_provider() as provider, recording_provider() as other:
        envs = f"OPENAI_API_KEY, JUDGE_TEAM_KEY={provider.base_url.removesuffix('/v1')}"
        client = await live_factory(settings_with_loopback(settings_factory, judge_key_envs=envs))
        stolen = api_judge(provider, api_key=None, api_key_env="OPENAI_API_KEY")
        response = await client.post("/v1/judges", headers=admin, json=stolen)
        assert response.status_code == 422, response.text
        assert response.json()["errors"][0]["pointer"] == "/api_key_env"
        assert "https://api.openai.com:443" in response.json()["detail"]

        # A bare name goes to its provider's official URL; moving the judge keeps it there.
        official = {**stolen, "name": "official", "base_url": None}
        assert (await client.post("/v1/judges", headers=admin, json=official)).status_code == 201
        for moved in ({"base_url": provider.base_url}, {"provider": "anthropic"}):
            patched = await client.patch("/v1/judges/official", headers=admin, json=moved)
            assert patched.status_code == 422, (moved, patched.text)
        listed = await client.get("/v1/judges/official", headers=admin)
        assert listed.json()["available"] is True

        # A bound name goes to its URL's origin (any path), nowhere else.
        elsewhere = api_judge(other, api_key=None, api_key_env="JUDGE_TEAM_KEY", name="team")
        response = await client.post("/v1/judges", headers=admin, json=elsewhere)
        assert response.json()["errors"][0]["pointer"] == "/api_key_env"
        team = {**elsewhere, "base_url": provider.base_url}
        assert (await client.post("/v1/judges", headers=admin, json=team)).status_code == 201
        await compare_with(client, comparer, "team")
    assert set(provider.authorizations) == {"Bearer sk-team-key"}
    assert other.authorizations == []


@pytest.mark.parametrize("value", ["KEY=ftp://host", "KEY=not a url", "=https://host", "KEY="])
def test_a_key_variable_bound_to_no_url_stops_the_settings(value: str) -> None:
    with pytest.raises(ValueError, match="NAME=https://host"):
        Settings(judge_key_envs=value)


async def test_a_stored_key_never_follows_its_judge_to_another_origin(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    comparer: dict[str, str],
) -> None:
    settings = settings_with_loopback(settings_factory)
    async with recording_provider() as first, recording_provider() as second:
        client = await live_factory(settings)
        assert (
            await client.post("/v1/judges", headers=admin, json=api_judge(first))
        ).status_code == 201
        await compare_with(client, comparer, "posted")

        moved = await client.patch(
            "/v1/judges/posted", headers=admin, json={"base_url": second.base_url}
        )
        assert moved.status_code == 422, moved.text
        assert moved.json()["errors"][0]["pointer"] == "/api_key"
        # Another path on the same origin keeps the key (same scheme, host and port).
        same_origin = first.base_url.removesuffix("/v1") + "/v1/"
        kept = await client.patch(
            "/v1/judges/posted", headers=admin, json={"base_url": same_origin}
        )
        assert kept.status_code == 200, kept.text
        await compare_with(client, comparer, "posted")
        assert second.authorizations == []

        with_key = await client.patch(
            "/v1/judges/posted",
            headers=admin,
            json={"base_url": second.base_url, "api_key": "sk-second-key"},
        )
        assert with_key.status_code == 200, with_key.text
        await compare_with(client, comparer, "posted")
    assert set(first.authorizations) == {"Bearer sk-first-key"}
    assert set(second.authorizations) == {"Bearer sk-second-key"}
    never_leaked([first, second], settings, FILE_JUDGE_KEY)


async def test_changes_reach_another_process_once_its_refresh_window_passed(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    comparer: dict[str, str],
) -> None:
    # Two app instances on one database: two API replicas (a batch worker resolves judges the
    # same way, through JudgeRegistry.resolve). Each trusts its read of the revisions for
    # `judge_refresh_s`: a change reaches the other within it.
    settings = settings_with_loopback(settings_factory, judge_refresh_s=0.2)
    async with recording_provider() as first, recording_provider() as second:
        writer = await live_factory(settings)
        other = await live_factory(settings)
        assert (
            await writer.post("/v1/judges", headers=admin, json=api_judge(first))
        ).status_code == 201
        await compare_with(other, comparer, "posted")

        rotated = await writer.patch(
            "/v1/judges/posted", headers=admin, json={"api_key": "sk-rotated", "rpm": 1000}
        )
        assert rotated.status_code == 200
        assert rotated.json()["version"] == 1  # a key or a limit is no new version
        await asyncio.sleep(0.25)
        await compare_with(other, comparer, "posted")
        assert first.authorizations[-2:] == ["Bearer sk-rotated"] * 2

        moved = await writer.patch(
            "/v1/judges/posted",
            headers=admin,
            json={"base_url": second.base_url, "api_key": "sk-moved"},
        )
        assert moved.json()["version"] == 2  # any part of the URL is a new version
        await asyncio.sleep(0.25)
        await compare_with(other, comparer, "posted")
    assert set(second.authorizations) == {"Bearer sk-moved"}
    never_leaked([first, second], settings, FILE_JUDGE_KEY)
