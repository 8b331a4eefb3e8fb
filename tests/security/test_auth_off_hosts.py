"""Auth off serves loopback `Host` names only, so a DNS-rebinding page cannot use the API."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.auth.hosts import is_loopback_host
from app.config import Settings

LOOPBACK = (
    "localhost",
    "LOCALHOST:8000",
    "localhost.",
    "app.localhost:8000",
    "127.0.0.1",
    "127.0.0.1:8000",
    "127.9.8.7:1",
    "[::1]",
    "[::1]:8000",
    "[::ffff:127.0.0.1]:80",
)
# Names an attacker's page can make resolve to 127.0.0.1, and addresses that are not loopback.
FOREIGN = (
    "evil.example",
    "evil.example:8000",
    "127.0.0.1.nip.io",
    "localhost.evil.example",
    "localhost@evil.example",
    "evil.example#localhost",
    "0.0.0.0",
    "0.0.0.0:8000",
    "10.0.0.1",
    "[fe80::1]:8000",
    "[::]",
    "::1",
    "[::1]x",
    "2130706433",
    "0x7f000001",
    "127.0.0.1:80:80",
    "localhost:",
    "",
)


@pytest.fixture
async def app_off(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with auth off."""
    client: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    return client


async def test_auth_off_refuses_every_host_that_is_not_a_loopback_name(
    app_off: httpx2.AsyncClient,
) -> None:
    for host in FOREIGN:
        for path in ("/v1/judges", "/healthz", "/dashboard"):
            refused = await app_off.get(path, headers={"Host": host})
            assert refused.status_code == 403, (host, path)
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["type"] == "forbidden"
    posted = await app_off.post(
        "/v1/judges",
        headers={"Host": "evil.example"},
        json={"name": "x", "provider": "sim", "model": "m"},
    )
    assert posted.status_code == 403
    names = {judge["name"] for judge in (await app_off.get("/v1/judges")).json()["items"]}
    assert names == {"sim-a", "sim-b"}  # the refused post created nothing


async def test_auth_off_serves_loopback_names_and_addresses_with_or_without_port(
    app_off: httpx2.AsyncClient,
) -> None:
    for host in LOOPBACK:
        answer = await app_off.get("/v1/judges", headers={"Host": host})
        assert answer.status_code == 200, host


async def test_with_auth_on_the_host_is_not_checked(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    client = await live_factory(settings_factory())
    answer = await client.get("/v1/judges", headers={**reader, "Host": "fairpair.example.com"})
    assert answer.status_code == 200


def test_a_missing_host_is_not_loopback() -> None:
    assert not is_loopback_host(None)
    assert all(is_loopback_host(host) for host in LOOPBACK)
    assert not any(is_loopback_host(host) for host in FOREIGN)


# What a page of another site makes the browser send with a request to http://127.0.0.1:8000.
CROSS_SITE: tuple[dict[str, str], ...] = (
    {"Origin": "https://evil.example"},
    {"Origin": "http://127.0.0.1.nip.io:8000"},
    {"Origin": "null"},  # a sandboxed frame or a file:// page
    {"Origin": "localhost:8000"},  # not an origin at all
    {"Sec-Fetch-Site": "cross-site"},
    {"Origin": "http://localhost:8000", "Sec-Fetch-Site": "cross-site"},
)
SAME_MACHINE: tuple[dict[str, str], ...] = (
    {},  # curl, the client library: no Origin
    {"Origin": "http://localhost:8000"},
    {"Origin": "http://127.0.0.1:3000", "Sec-Fetch-Site": "same-site"},
    {"Origin": "http://[::1]:8000", "Sec-Fetch-Site": "same-origin"},
    {"Sec-Fetch-Site": "none"},  # typed in the address bar
)


async def test_auth_off_refuses_a_state_change_from_another_site(
    app_off: httpx2.AsyncClient,
) -> None:
    # The canary-run route takes no body: a cross-site fetch needs no preflight to reach it.
    for headers in CROSS_SITE:
        for method, path in (
            ("POST", "/v1/canaries/gold/runs"),
            ("POST", "/v1/compare"),
            ("PATCH", "/v1/judges/sim-a"),
            ("DELETE", "/v1/batches/00000000-0000-0000-0000-000000000000"),
        ):
            refused = await app_off.request(method, path, headers=headers)
            assert refused.status_code == 403, (headers, path, refused.text)
            assert refused.headers["content-type"] == "application/problem+json"
            assert refused.json()["type"] == "forbidden"
        # Reading is not a change, and the browser shows the page no answer without CORS.
        assert (await app_off.get("/v1/judges", headers=headers)).status_code == 200


async def test_auth_off_serves_changes_from_loopback_pages_and_from_other_clients(
    app_off: httpx2.AsyncClient,
) -> None:
    for headers in SAME_MACHINE:
        answer = await app_off.post("/v1/canaries/gold/runs", headers=headers)
        assert answer.status_code == 404, (headers, answer.text)  # reached the route: no canary


async def test_with_auth_on_the_origin_is_the_key_checks_business(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory())
    headers = {**admin, "Origin": "https://tool.example", "Sec-Fetch-Site": "cross-site"}
    assert (await client.post("/v1/canaries/gold/runs", headers=headers)).status_code == 404
