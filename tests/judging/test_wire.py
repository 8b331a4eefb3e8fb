"""The lean judge transport against real servers on loopback: pooling, framing, limits, policy."""

from __future__ import annotations

import asyncio
import datetime as dt
import gzip
import ipaddress
import ssl
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import uvloop
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from app.judging.egress import Address, EgressPolicy
from app.judging.providers import build_judge
from app.judging.providers.wire import LeanWire, WireError, WireResponse
from app.judging.retries import ProviderCallError
from app.judging.types import JudgeConfig
from tests.judging.servers import Answer, ScriptedServer, answer, scripted_server
from tests.support.processes import free_port

LOOPBACK = EgressPolicy.parse(["127.0.0.1"])
OK = answer(200, {"ok": True})


async def _post(wire: LeanWire, body: dict[str, Any] | None = None, timeout_s: float = 5) -> Any:
    response = await wire.post_json("/v1/chat/completions", body or {"n": 1}, {}, timeout_s)
    return response.status, response.json()


def _wire(server: ScriptedServer, max_connections: int = 4, **kwargs: Any) -> LeanWire:
    return LeanWire(server.base_url, kwargs.pop("policy", LOOPBACK), max_connections, **kwargs)


async def test_sequential_requests_share_one_keep_alive_connection() -> None:
    async with scripted_server([OK]) as server:
        wire = _wire(server)
        for n in range(20):
            assert await _post(wire, {"n": n}) == (200, {"ok": True})
        await wire.aclose()
    assert server.accepts == 1
    assert [r.json()["n"] for r in server.requests] == list(range(20))
    sent = server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/chat/completions")
    assert sent.headers["host"] == f"127.0.0.1:{server.port}"
    assert sent.headers["content-type"] == sent.headers["accept"] == "application/json"
    assert int(sent.headers["content-length"]) == len(sent.body)
    assert "accept-encoding" not in sent.headers


def test_the_wire_works_on_uvloop_the_loop_the_api_runs() -> None:
    """uvicorn runs the API on uvloop, whose transports are not asyncio's classes."""

    async def exchange() -> tuple[list[Any], int]:
        async with scripted_server([OK]) as server:
            wire = _wire(server)
            results = [await _post(wire, {"n": n}) for n in range(3)]
            await wire.aclose()
        return results, server.accepts

    assert uvloop.run(exchange()) == ([(200, {"ok": True})] * 3, 1)


async def test_concurrent_requests_never_exceed_max_connections() -> None:
    async with scripted_server([answer(200, {"ok": True}, delay_s=0.05)]) as server:
        wire = _wire(server, max_connections=3)
        results = await asyncio.gather(*(_post(wire, {"n": n}) for n in range(12)))
        await wire.aclose()
    assert results == [(200, {"ok": True})] * 12
    assert server.max_active == 3
    assert server.accepts == 3


async def test_a_connection_the_server_closed_while_idle_is_replaced_without_error() -> None:
    async with scripted_server([OK], idle_close_s=0.05) as server:
        wire = _wire(server)
        assert await _post(wire) == (200, {"ok": True})
        await asyncio.sleep(0.3)  # the server hangs up meanwhile
        assert await _post(wire) == (200, {"ok": True})
        await wire.aclose()
    assert server.accepts == 2


async def test_an_answer_saying_connection_close_is_not_reused() -> None:
    closing = answer(200, {"ok": True}, {"Connection": "close"}, close=True)
    async with scripted_server([closing]) as server:
        wire = _wire(server)
        for _ in range(3):
            assert await _post(wire) == (200, {"ok": True})
        await wire.aclose()
    assert server.accepts == 3


async def test_http_1_0_answers_with_a_length_or_until_the_close() -> None:
    sized = answer(200, {"ok": True}, version="1.0", close=True)
    until_close = Answer(
        b'HTTP/1.0 200 OK\r\nContent-Type: application/json\r\n\r\n{"ok": 1}', True
    )
    async with scripted_server([sized, until_close]) as server:
        wire = _wire(server)
        assert await _post(wire) == (200, {"ok": True})
        assert await _post(wire) == (200, {"ok": 1})
        await wire.aclose()
    assert server.accepts == 2


async def test_a_chunked_answer_is_joined() -> None:
    head = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
    raw = head + b'4\r\n{"ok\r\n8\r\n": true}\r\n0\r\n\r\n'
    async with scripted_server([Answer(raw)]) as server:
        wire = _wire(server)
        assert await _post(wire) == (200, {"ok": True})
        assert await _post(wire) == (200, {"ok": True})
        await wire.aclose()
    assert server.accepts == 1


async def test_an_interim_100_continue_is_skipped_for_the_real_answer() -> None:
    async with scripted_server([Answer(b"HTTP/1.1 100 Continue\r\n\r\n" + OK.raw)]) as server:
        wire = _wire(server)
        assert await _post(wire) == (200, {"ok": True})
        assert await _post(wire) == (200, {"ok": True})
        await wire.aclose()
    assert server.accepts == 1


async def test_a_second_answer_to_one_request_retires_the_connection() -> None:
    async with scripted_server([Answer(OK.raw + OK.raw)]) as server:
        wire = _wire(server)
        assert await _post(wire) == (200, {"ok": True})
        assert await _post(wire) == (200, {"ok": True})
        await wire.aclose()
    assert server.accepts == 2


async def test_a_gzip_answer_is_decoded_though_none_was_asked_for() -> None:
    zipped = gzip.compress(b'{"ok": true}')
    async with scripted_server([answer(200, zipped, {"Content-Encoding": "gzip"})]) as server:
        wire = _wire(server)
        assert await _post(wire) == (200, {"ok": True})
        await wire.aclose()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + b"x" * 10, "before a complete"),
        (b"HELLO THERE\r\n\r\n", "malformed"),
        (b"", "before a complete"),
        (b"HTTP/1.1 100 Continue\r\n\r\n", "before a complete"),
    ],
    ids=["truncated body", "garbage status line", "closed without an answer", "only 100"],
)
async def test_an_incomplete_or_malformed_answer_is_a_connection_error(
    raw: bytes, message: str
) -> None:
    async with scripted_server([Answer(raw, close=True), OK]) as server:
        wire = _wire(server)
        with pytest.raises(WireError, match=message) as failed:
            await _post(wire)
        assert not failed.value.timeout
        assert await _post(wire) == (200, {"ok": True})  # on a new connection
        await wire.aclose()
    assert server.accepts == 2


async def test_an_oversized_answer_is_refused_as_a_server_error() -> None:
    huge = answer(200, b"x" * (17 * 1024 * 1024))
    async with scripted_server([huge]) as server:
        wire = _wire(server)
        with pytest.raises(ProviderCallError, match="larger than 16 MiB") as failed:
            await _post(wire)
        await wire.aclose()
    assert failed.value.kind == "server_error"


async def test_a_slow_server_times_out_within_the_call_timeout() -> None:
    async with scripted_server([answer(200, {"ok": True}, delay_s=3), OK]) as server:
        wire = _wire(server)
        started = time.monotonic()
        with pytest.raises(WireError) as failed:
            await _post(wire, timeout_s=0.3)
        assert failed.value.timeout
        assert 0.25 < time.monotonic() - started < 1.0
        await wire.aclose()


async def test_a_cancelled_exchange_never_leaves_its_answer_to_the_next_request() -> None:
    late = answer(200, {"n": "late"}, delay_s=0.2)
    async with scripted_server([late, answer(200, {"n": "second"})]) as server:
        wire = _wire(server)
        with pytest.raises(TimeoutError):
            async with asyncio.timeout(0.05):
                await _post(wire)
        await asyncio.sleep(0.3)
        assert await _post(wire) == (200, {"n": "second"})
        await wire.aclose()
    assert server.accepts == 2


async def test_nobody_listening_is_a_connection_error() -> None:
    wire = LeanWire(f"http://127.0.0.1:{free_port()}/v1", LOOPBACK, 2)
    with pytest.raises(WireError, match="cannot connect") as failed:
        await _post(wire)
    assert not failed.value.timeout
    assert not failed.value.refused


async def test_loopback_not_allowed_by_the_policy_is_refused_before_connecting() -> None:
    async with scripted_server([OK]) as server:
        wire = _wire(server, policy=EgressPolicy())
        with pytest.raises(WireError, match="refused by the judge URL policy") as failed:
            await _post(wire)
        assert failed.value.refused
        assert "FAIRPAIR_JUDGE_HOSTS_ALLOW" in str(failed.value)
    assert server.accepts == 0


async def test_a_judge_refused_by_the_policy_records_a_connection_error_naming_it() -> None:
    async with scripted_server([OK]) as server:
        config = JudgeConfig(
            name="j", provider="openai", model="m", base_url=server.base_url, max_attempts=1
        )
        judge = build_judge(config, egress=EgressPolicy())
        result = await judge.judge_pair("q", "a", "b", deadline=time.monotonic() + 5)
        await judge.aclose()
    assert result.error_kind == "connection"
    assert result.error is not None
    assert result.error.startswith("Connection error: refused by the judge URL policy")
    assert server.accepts == 0


def _resolving(*answers: str) -> Callable[[str, int], Any]:
    """A resolver whose answer for every name changes with each lookup (the last repeats)."""
    queue = list(answers)

    async def resolve(host: str, port: int) -> list[Address]:
        return [ipaddress.ip_address(queue.pop(0) if len(queue) > 1 else queue[0])]

    return resolve


async def test_a_name_rebound_to_loopback_after_saving_reaches_nothing() -> None:
    async with scripted_server([OK]) as server:
        url = f"http://judge.example:{server.port}/v1"
        policy = EgressPolicy(resolver=_resolving("93.184.216.34", "127.0.0.1"))
        await policy.check_url(url)  # saving: the name looks public
        with pytest.raises(WireError, match="FAIRPAIR_JUDGE_HOSTS_ALLOW"):
            await _post(LeanWire(url, policy, 2))
        assert server.accepts == 0

        allowed = EgressPolicy.parse(["127.0.0.1"], resolver=_resolving("127.0.0.1"))
        wire = LeanWire(url, allowed, 2)
        assert await _post(wire) == (200, {"ok": True})  # to the checked address, by name
        await wire.aclose()
    assert server.requests[0].headers["host"] == f"judge.example:{server.port}"


def _self_signed(tmp_path: Path, name: str) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server context with a self-signed certificate for `name`, and a client trusting it."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(hours=1))
        .not_valid_after(now + dt.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_pem = cert.public_bytes(serialization.Encoding.PEM)
    (tmp_path / "cert.pem").write_bytes(cert_pem)
    (tmp_path / "key.pem").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    return server, ssl.create_default_context(cadata=cert_pem.decode())


async def test_tls_checks_the_certificate_against_the_host_name(tmp_path: Path) -> None:
    server_ssl, client_ssl = _self_signed(tmp_path, "judge.test")
    policy = EgressPolicy.parse(["127.0.0.1"], resolver=_resolving("127.0.0.1"))
    async with scripted_server([OK], ssl_context=server_ssl) as server:
        trusting = LeanWire(
            f"https://judge.test:{server.port}/v1", policy, 2, ssl_context=client_ssl
        )
        assert await _post(trusting) == (200, {"ok": True})
        assert await _post(trusting) == (200, {"ok": True})
        await trusting.aclose()
        default = LeanWire(f"https://judge.test:{server.port}/v1", policy, 2)
        with pytest.raises(WireError, match="CERTIFICATE_VERIFY_FAILED"):
            await _post(default)
    assert server.accepts == 1  # the untrusting handshake never got to HTTP


async def test_responses_carry_lower_case_headers() -> None:
    async with scripted_server([answer(429, {}, {"Retry-After-Ms": "10"})]) as server:
        wire = _wire(server)
        response = await wire.post_json("/v1/x", {}, {"Authorization": "Bearer k"}, 5)
        await wire.aclose()
    assert isinstance(response, WireResponse)
    assert (response.status, response.headers["retry-after-ms"]) == (429, "10")
    assert server.requests[0].headers["authorization"] == "Bearer k"
