"""Fuzz every operation of the live app's OpenAPI schema: no 5xx, answers match their schema.

A second pass puts NUL and lone surrogates into the path and query parameters of every operation
(issue 18): they must be 422 problems, never a 5xx.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.processes import FAIRPAIR, free_port, run_cli, wait_until_up

# A CI time budget: enough examples to find crashes, few enough to finish in minutes.
EXAMPLES = int(os.environ.get("FAIRPAIR_FUZZ_EXAMPLES", "25"))
HOSTILE_EXAMPLES = int(os.environ.get("FAIRPAIR_FUZZ_HOSTILE_EXAMPLES", "15"))


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """`fairpair serve` on its embedded default (SQLite, in-process sim), with an admin key."""
    directory: Path = tmp_path_factory.mktemp("fuzz")
    env = {
        "FAIRPAIR_DATABASE_URL": f"sqlite+aiosqlite:///{directory / 'fuzz.db'}",
        "FAIRPAIR_MAX_BODY_BYTES": "200000",
        "FAIRPAIR_COMPARE_TIMEOUT_S": "10",
    }
    run_cli("migrate", env=env)
    token = run_cli("keys", "create", "--name", "fuzz", "--scopes", "admin", env=env).splitlines()[
        -1
    ]
    port = free_port()
    server = subprocess.Popen(
        [FAIRPAIR, "serve", "--port", str(port)],
        cwd=directory,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_until_up(f"{base}/healthz")
        yield base, token
    finally:
        server.terminate()
        server.wait(timeout=15)


def test_no_input_breaks_the_api(live_server: tuple[str, str]) -> None:
    base, token = live_server
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    # An operation schemathesis cannot read would be an Err here: .ok() raises on it.
    operations: list[Any] = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) >= 8
    failures: list[str] = []
    for operation in operations:
        try:
            fuzz(operation, base, token)
        except Exception as exc:  # collect every operation's failure, then report them all
            failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    assert not failures, "\n\n".join(failures)


def fuzz(operation: Any, base: str, token: str) -> None:
    """Send generated requests to one operation and validate every answer."""

    @given(case=operation.as_strategy())
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,  # the same cases every CI run: a red build means a real regression
    )
    def check(case: Any) -> None:
        case.call_and_validate(
            base_url=base,
            headers={"Authorization": f"Bearer {token}"},
            checks=[status_code_conformance, content_type_conformance, response_schema_conformance],
            additional_checks=[no_server_error],
        )

    check()


def no_server_error(ctx: Any, response: Any, case: Any) -> None:
    """Nothing a client sends may produce a 5xx, except declared outage answers."""
    declared = {502, 503}  # judges-failed and load shedding are answers, not crashes
    if response.status_code >= 500 and response.status_code not in declared:
        raise AssertionError(f"{response.status_code} for {case.method} {case.path}")


# A value with a NUL or a lone surrogate somewhere; a URL carries a surrogate as the bytes UTF-8
# would give it (%ED%A0%80), which no strict decoder accepts.
BAD_CHARACTER = st.sampled_from(["\x00", "\ud800", "\udbff", "\udc00", "\udfff"])
HOSTILE_TEXT = st.builds(
    lambda before, bad, after: before + bad + after,
    st.text(max_size=8),
    BAD_CHARACTER,
    st.text(max_size=8),
)


def url_text(value: Any) -> str:
    """A parameter value percent-encoded as UTF-8, surrogates included."""
    if isinstance(value, bool):
        value = "true" if value else "false"
    raw: str = value if isinstance(value, str) else json.dumps(value) if value is not None else ""
    return quote(raw.encode("utf-8", "surrogatepass"), safe="")


def hostile_url(base: str, operation: Any, case: Any, target: tuple[str, str], bad: str) -> str:
    """The case's URL with the targeted path or query parameter replaced by `bad`."""
    location, name = target
    path_values = {**(case.path_parameters or {})}
    query: dict[str, Any] = {**(case.query or {})}
    (path_values if location == "path" else query)[name] = bad
    path: str = operation.path
    for key, value in path_values.items():
        path = path.replace("{" + key + "}", url_text(value))
    pairs = [
        f"{quote(key, safe='')}={url_text(item)}"
        for key, value in query.items()
        for item in (value if isinstance(value, list) else [value])
    ]
    return base + path + ("?" + "&".join(pairs) if pairs else "")


def test_nul_and_surrogates_in_path_and_query_parameters_are_422(
    live_server: tuple[str, str],
) -> None:
    base, token = live_server
    schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
    operations: list[Any] = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    failures: list[str] = []
    with httpx2.Client(headers={"Authorization": f"Bearer {token}"}, timeout=30) as client:
        for operation in operations:
            try:
                fuzz_hostile(operation, base, client)
            except Exception as exc:  # every operation's failure, reported together
                failures.append(f"{operation.method.upper()} {operation.path}: {exc}")
    assert not failures, "\n\n".join(failures)


def fuzz_hostile(operation: Any, base: str, client: httpx2.Client) -> None:
    """Valid cases of one operation with one path or query parameter made hostile."""
    locations = (
        (getattr(p.location, "value", p.location), p.name) for p in operation.iter_parameters()
    )
    targets = [(location, name) for location, name in locations if location in ("path", "query")]
    targets.append(("query", "unexpected"))  # a parameter the operation does not declare

    @given(
        case=operation.as_strategy(),
        target=st.sampled_from(targets),
        bad=HOSTILE_TEXT,
    )
    @settings(
        max_examples=HOSTILE_EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        database=None,
        derandomize=True,
    )
    def check(case: Any, target: tuple[str, str], bad: str) -> None:
        url = hostile_url(base, operation, case, target, bad)
        body = case.body if isinstance(case.body, dict | list) else None
        response = client.request(case.method, url, json=body)
        assert response.status_code == 422, (url, response.status_code, response.text[:300])
        assert response.headers["content-type"] == "application/problem+json", url
        assert response.json()["type"] == "validation-error", url

    check()
