"""Issue 21: a request the HTTP parser refuses is a 400 problem+json from `fairpair serve` too."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from tests.support.processes import free_port, running

UNPARSEABLE = [
    b"POST /v1/compare HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: abc\r\n\r\n{}",
    b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: v\r\n\r\n",
    b"NOT HTTP AT ALL\r\n\r\n",
]


def exchange(port: int, request: bytes) -> tuple[bytes, dict[bytes, bytes], bytes]:
    """Send raw bytes; the answer's status line, headers and body (the server closes)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    head, _, body = b"".join(chunks).partition(b"\r\n\r\n")
    status, *lines = head.split(b"\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(b":") for line in lines)}
    return status, headers, body


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> object:
    tmp: Path = tmp_path_factory.mktemp("served")
    port = free_port()
    env = {"FAIRPAIR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'fp.db'}", "FAIRPAIR_AUTH": "off"}
    with running(
        "serve", "--port", str(port), env=env, health_url=f"http://127.0.0.1:{port}/healthz"
    ):
        yield port


@pytest.mark.parametrize("request_bytes", UNPARSEABLE)
def test_a_request_the_http_parser_refuses_is_a_bad_request_problem(
    served: int, request_bytes: bytes
) -> None:
    status, headers, body = exchange(served, request_bytes)
    assert status.startswith(b"HTTP/1.1 400"), status
    assert headers[b"content-type"] == b"application/problem+json"
    problem = json.loads(body)
    assert (problem["type"], problem["status"]) == ("bad-request", 400)
    assert int(headers[b"content-length"]) == len(body)
