"""Issue 43: an operator-set egress proxy (`FAIRPAIR_JUDGE_PROXY`) carries judge connections
without bypassing the egress policy. The policy checks the target first (a refused address never
reaches the proxy); an API-posted judge's tunnel names the address checked here, so the proxy
resolves nothing; a judges-file judge's names its host (resolved at the proxy when it does not
resolve here). TLS to the judge runs inside the tunnel, against the judge's host name."""

from __future__ import annotations

import base64
import ipaddress
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from pydantic import ValidationError

from app.config import Settings
from app.judging.egress import Address, EgressPolicy
from app.judging.providers.wire import LeanWire, WireError
from app.judging.types import SimKnobs
from app.proxies import JudgeProxy
from tests.judging.fakes import running_sim_judge
from tests.judging.servers import answer, connect_proxy, scripted_server
from tests.judging.test_wire import _self_signed

OK = answer(200, {"ok": True})
COMPARE = {
    "judges": ["proxied"],
    "prompt": "Which is better?",
    "response_a": "a\n[sim q=1]",
    "response_b": "b\n[sim q=0]",
}


def _resolving(address: str) -> Callable[[str, int], Any]:
    async def resolve(host: str, port: int) -> list[Address]:
        if host.endswith(".invalid"):
            raise OSError(f"{host} does not resolve here")
        return [ipaddress.ip_address(address)]

    return resolve


def _policy(proxy_url: str, *, trusted: bool = False, allow: str = "127.0.0.1") -> EgressPolicy:
    policy = EgressPolicy.parse(
        [allow], resolver=_resolving("127.0.0.1"), proxy=JudgeProxy.parse(proxy_url)
    )
    return policy.trusting() if trusted else policy


async def _post(wire: LeanWire) -> tuple[int, Any]:
    try:
        response = await wire.post_json("/v1/chat/completions", {"n": 1}, {}, 5)
    finally:
        await wire.aclose()
    return response.status, response.json()


async def test_an_api_posted_judges_tunnel_names_the_address_checked_here() -> None:
    async with scripted_server([OK]) as judge, connect_proxy() as proxy:
        wire = LeanWire(f"http://judge.example:{judge.port}/v1", _policy(proxy.url), 2)
        assert await _post(wire) == (200, {"ok": True})
    assert proxy.targets == [f"127.0.0.1:{judge.port}"]
    assert proxy.authorizations == [None]
    # The judge saw its own request, with its own Host, through the tunnel.
    [request] = judge.requests
    assert (request.path, request.headers["host"]) == (
        "/v1/chat/completions",
        f"judge.example:{judge.port}",
    )


async def test_a_trusted_judges_tunnel_names_its_host_and_may_resolve_only_at_the_proxy() -> None:
    async with (
        scripted_server([OK]) as judge,
        connect_proxy(names={"judge.invalid": "127.0.0.1", "judge.example": "127.0.0.1"}) as proxy,
    ):
        for host in ("judge.example", "judge.invalid"):  # the second resolves at the proxy only
            wire = LeanWire(f"http://{host}:{judge.port}/v1", _policy(proxy.url, trusted=True), 2)
            assert await _post(wire) == (200, {"ok": True})
    assert proxy.targets == [f"judge.example:{judge.port}", f"judge.invalid:{judge.port}"]


async def test_an_api_posted_judge_whose_host_does_not_resolve_here_is_not_sent_to_the_proxy() -> (
    None
):
    async with connect_proxy() as proxy:
        wire = LeanWire("http://judge.invalid:8080/v1", _policy(proxy.url), 2)
        with pytest.raises(WireError, match=r"cannot resolve judge\.invalid"):
            await _post(wire)
    assert proxy.targets == []


async def test_a_refused_address_never_reaches_the_proxy() -> None:
    async with connect_proxy() as proxy:
        for trusted in (False, True):  # metadata addresses are refused even for trusted judges
            policy = EgressPolicy.parse(
                [], resolver=_resolving("169.254.169.254"), proxy=JudgeProxy.parse(proxy.url)
            )
            wire = LeanWire("http://judge.example/v1", policy.trusting() if trusted else policy, 2)
            with pytest.raises(WireError, match="refused by the judge URL policy") as refused:
                await _post(wire)
            assert refused.value.refused
        # A private address an API-posted judge was not allowed: refused here too.
        private = _policy(proxy.url, allow="10.0.0.0/8")
        with pytest.raises(WireError, match="loopback address"):
            await _post(LeanWire("http://judge.example/v1", private, 2))
    assert proxy.targets == []


async def test_the_proxy_gets_the_urls_credentials_and_its_refusal_fails_the_call() -> None:
    async with connect_proxy(refuse="407 Proxy Authentication Required") as proxy:
        url = f"http://ops:s%40cret@127.0.0.1:{proxy.port}"
        wire = LeanWire("http://judge.example:9/v1", _policy(url), 2)
        with pytest.raises(WireError, match=r"refused the tunnel: HTTP/1\.1 407") as failed:
            await _post(wire)
        assert "s@cret" not in str(failed.value)
    assert proxy.authorizations == ["Basic " + base64.b64encode(b"ops:s@cret").decode()]


async def test_tls_runs_inside_the_tunnel_against_the_judges_host_name(tmp_path: Path) -> None:
    server_ssl, client_ssl = _self_signed(tmp_path, "judge.test")
    async with scripted_server([OK], ssl_context=server_ssl) as judge, connect_proxy() as proxy:
        wire = LeanWire(
            f"https://judge.test:{judge.port}/v1", _policy(proxy.url), 2, ssl_context=client_ssl
        )
        assert await _post(wire) == (200, {"ok": True})
    # The proxy carried the handshake: it saw an address, the judge its own name over TLS.
    assert proxy.targets == [f"127.0.0.1:{judge.port}"]
    assert judge.requests[0].headers["host"] == f"judge.test:{judge.port}"


@pytest.mark.parametrize(
    "url",
    [
        "https://proxy.internal:3128",
        "socks5://proxy.internal:1080",
        "http://proxy.internal",
        "http://proxy.internal:3128/path",
        "http://proxy.internal:3128?x=1",
        "http://user:hunter2@:3128",
        "proxy.internal:3128",
    ],
)
def test_a_proxy_setting_that_is_not_http_host_port_stops_the_start(url: str) -> None:
    with pytest.raises(ValidationError, match="FAIRPAIR_JUDGE_PROXY") as refused:
        Settings(judge_proxy=url)
    assert "hunter2" not in str(refused.value)


def test_the_proxy_setting_parses_host_port_and_credentials() -> None:
    settings = Settings(judge_proxy="http://a%3Ab:p%40ss@proxy.internal:3128")
    assert settings.judge_proxy_parsed() == JudgeProxy(
        "proxy.internal", 3128, "Basic " + base64.b64encode(b"a:b:p@ss").decode()
    )
    assert "p@ss" not in repr(settings)
    assert Settings().judge_proxy_parsed() is None


async def test_a_served_comparison_goes_through_the_operators_proxy(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> None:
    # An openai judge of the judges file, at a real sim-judge, with FAIRPAIR_JUDGE_PROXY set.
    with running_sim_judge(SimKnobs()) as sim_url:
        port = urlsplit(sim_url).port
        judges = (
            '[[judges]]\nname = "proxied"\nprovider = "openai"\nmodel = "m"\n'
            f'base_url = "http://sim.example:{port}/v1"\n'
        )
        async with connect_proxy(names={"sim.example": "127.0.0.1"}) as proxy:
            settings = settings_factory(judges, auth="off", judge_proxy=proxy.url)
            client = await live_factory(settings)
            response = await client.post("/v1/compare", json=COMPARE)
            assert response.status_code == 200, response.text
            calls = response.json()["judges"][0]["calls"]
            assert [call["error_kind"] for call in calls] == [None, None]
    # Both calls went through the proxy (one keep-alive tunnel or two), named by the host: the
    # operator wrote this judge, and sim.example resolves only at the proxy.
    assert proxy.targets
    assert set(proxy.targets) == {f"sim.example:{port}"}
