"""Judge URLs (issue 18 item 3): where an API-posted judge may send requests (SSRF policy).

The URL is checked when the judge is saved and again when each connection is made: a name that
resolves to a public address at saving and to loopback later (DNS rebinding) reaches nothing.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.judging.egress import Address, EgressPolicy, EgressRefused
from app.judging.providers.wire import LeanWire, WireError
from tests.security.provider import recording_provider

JUDGE = {"name": "posted", "provider": "openai", "model": "m", "api_key": "sk-x"}

NEVER = [
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/v1",
    "http://[fe80::1]/v1",
    "http://100.100.100.200/v1",
    "http://0.0.0.0:8000/v1",
]
LOCAL = [
    "http://127.0.0.1:11434/v1",
    "http://localhost:11434/v1",
    "http://2130706433/v1",  # 127.0.0.1 in decimal
    "http://0x7f000001/v1",  # in hex
    "http://127.1/v1",
    "http://[::1]:8000/v1",
    "http://[::ffff:127.0.0.1]/v1",
    "http://10.0.0.5/v1",
    "http://192.168.1.20:8000/v1",
    "http://[fd12:3456::1]/v1",
]
MALFORMED = [
    "http://user:password@judge.invalid/v1",
    "http://sk-key@judge.invalid/v1",
    "https://judge.invalid/v1?api_key=x",
    "https://judge.invalid/v1#x",
    "ftp://judge.invalid/v1",
    "file:///etc/passwd",
]


async def post_judge(client: httpx2.AsyncClient, admin: dict[str, str], url: str) -> Any:
    return await client.post("/v1/judges", headers=admin, json={**JUDGE, "base_url": url})


def pointer(response: httpx2.Response) -> str:
    problem = response.json()
    assert response.status_code == 422, problem
    assert response.headers["content-type"] == "application/problem+json"
    return str(problem["errors"][0]["pointer"])


@pytest.mark.parametrize("url", NEVER + LOCAL + MALFORMED)
async def test_forbidden_judge_urls_are_422(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    url: str,
) -> None:
    client = await live_factory(settings_factory())
    response = await post_judge(client, admin, url)
    assert pointer(response) == "/base_url"
    if url in LOCAL:
        assert "FAIRPAIR_JUDGE_HOSTS_ALLOW" in response.json()["detail"]


@pytest.mark.parametrize("url", NEVER)
async def test_link_local_and_metadata_stay_refused_whatever_is_allowed(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    url: str,
) -> None:
    everything = "0.0.0.0/0,::/0,169.254.169.254"
    client = await live_factory(settings_factory(judge_hosts_allow=everything))
    assert pointer(await post_judge(client, admin, url)) == "/base_url"


async def test_allowed_local_hosts_and_names_are_accepted(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(judge_hosts_allow="127.0.0.0/8,localhost"))
    for i, url in enumerate(["http://127.0.0.1:11434/v1", "http://localhost:8000/v1"]):
        body = {**JUDGE, "name": f"local-{i}", "base_url": url}
        response = await client.post("/v1/judges", headers=admin, json=body)
        assert response.status_code == 201, response.text
    refused = await post_judge(client, admin, "http://10.0.0.5/v1")
    assert pointer(refused) == "/base_url"


def test_the_embedded_default_allows_loopback_and_nothing_else() -> None:
    embedded = Settings(database_url="sqlite+aiosqlite:///x.db")
    policy = EgressPolicy.parse(embedded.judge_hosts_allowed())
    assert policy.refusal("localhost", ipaddress.ip_address("127.0.0.1")) is None
    assert policy.refusal("h", ipaddress.ip_address("10.0.0.1")) is not None
    server = Settings(database_url="postgresql+asyncpg://x@127.0.0.1/db")
    assert server.judge_hosts_allowed() == []


def rebinding(first: str, then: str) -> Callable[[str, int], Any]:
    """A resolver whose answer for every name changes after the first lookup."""
    answers = [first]

    async def resolve(host: str, port: int) -> list[Address]:
        answer = answers[-1]
        answers.append(then)
        return [ipaddress.ip_address(answer)]

    return resolve


async def test_a_name_rebound_to_loopback_after_saving_reaches_nothing() -> None:
    async with recording_provider() as provider:
        policy = EgressPolicy(resolver=rebinding("93.184.216.34", "127.0.0.1"))
        base_url = f"http://judge.example:{provider.port}/v1"
        await policy.check_url(base_url)  # saving: the name looks public
        wire = LeanWire(base_url, policy, 4)  # the judges' HTTP client
        with pytest.raises(WireError, match="FAIRPAIR_JUDGE_HOSTS_ALLOW"):
            await wire.post_json("/v1/chat/completions", {}, {}, 5)
        await wire.aclose()
        assert provider.authorizations == []

        # The same connection with loopback allowed does reach it: the guard is what stopped it.
        allowed = EgressPolicy.parse(["127.0.0.1"], resolver=rebinding("127.0.0.1", "127.0.0.1"))
        wire = LeanWire(base_url, allowed, 4)
        response = await wire.post_json("/v1/chat/completions", {"model": "m"}, {}, 5)
        await wire.aclose()
        assert response.status == 200
        assert len(provider.authorizations) == 1


async def test_a_name_with_one_forbidden_address_is_refused_whole() -> None:
    async def two_addresses(host: str, port: int) -> list[Address]:
        return [ipaddress.ip_address("93.184.216.34"), ipaddress.ip_address("169.254.169.254")]

    with pytest.raises(EgressRefused, match="metadata"):
        await EgressPolicy(resolver=two_addresses).check_url("https://judge.example/v1")


async def test_a_file_judge_on_loopback_is_trusted_and_its_calls_are_guarded(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    async with recording_provider() as provider:
        toml = f"""
[[judges]]
name = "local"
provider = "openai"
model = "m"
base_url = "{provider.base_url}"
"""
        client = await live_factory(settings_factory(toml))
        body = {"prompt": "p", "response_a": "a", "response_b": "b", "judges": ["local"]}
        response = await client.post("/v1/compare", headers=comparer, json=body)
        assert response.status_code == 200, response.text
        assert len(provider.authorizations) == 2


# IPv6 spellings that carry an IPv4 address to reach (or are private though Python calls them
# global), with the address they are judged as.
TRANSITION = [
    ("::7f00:1", "127.0.0.1"),  # IPv4-compatible ::/96
    ("::a00:5", "10.0.0.5"),
    ("::ffff:0:7f00:1", "127.0.0.1"),  # IPv4-translated ::ffff:0:0:0/96
    ("64:ff9b::7f00:1", "127.0.0.1"),  # NAT64 64:ff9b::/96
    ("64:ff9b::a9fe:a9fe", "169.254.169.254"),
    ("2002:7f00:1::", "127.0.0.1"),  # 6to4 2002::/16
    ("2002:a9fe:a9fe::1", "169.254.169.254"),
    ("fec0::1", "fec0::1"),  # site-local, deprecated but routable inside a site
    ("64:ff9b:1::a00:1", "64:ff9b:1::a00:1"),  # local-use NAT64
]


@pytest.mark.parametrize(("address", "judged_as"), TRANSITION)
def test_ipv6_transition_addresses_are_judged_by_the_ipv4_address_they_carry(
    address: str, judged_as: str
) -> None:
    reason = EgressPolicy().refusal("h", ipaddress.ip_address(address))
    assert reason is not None
    assert f"resolves to {judged_as}," in reason
    # Public addresses behind the same prefixes are still public, and ::1 is still loopback.
    for public in ("::808:808", "64:ff9b::808:808", "2002:808:808::1"):
        assert EgressPolicy().refusal("h", ipaddress.ip_address(public)) is None
    assert "loopback" in str(EgressPolicy().refusal("h", ipaddress.ip_address("::1")))


# URLs the judges' client cannot parse, or whose host is no address or DNS name: each was a 500
# (httpx2's InvalidURL, the resolver's UnicodeError) or was saved as a judge nothing could reach.
ODD = [
    "http://0177.0.0.1/v1",  # an octal quad
    "http://0177.0.0.1",
    "http://999.0.0.1/v1",
    "http://exa\tmple.com/v1",
    "http://example.com/v\t1",
    "http://ex\nample.com/v1",
    "http://[::1",
    "http://[::1]x/v1",
    "http://[v1.fe]/v1",
    "http://%31%32%37.0.0.1/v1",
    "http://exa mple.com/v1",
    "http://.example.com/v1",
    "http://" + "a" * 64 + ".example/v1",
    "http://" + "a." * 127 + "example/v1",
]


async def test_odd_admin_urls_are_422_when_posted_and_patched(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory())
    body = {**JUDGE, "name": "public", "base_url": "https://judge.invalid/v1"}
    assert (await client.post("/v1/judges", headers=admin, json=body)).status_code == 201
    for url in ODD:
        assert pointer(await post_judge(client, admin, url)) == "/base_url", url
        patch = {"base_url": url, "api_key": "sk-y"}
        patched = await client.patch("/v1/judges/public", headers=admin, json=patch)
        assert pointer(patched) == "/base_url", url
