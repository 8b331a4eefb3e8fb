"""Fuzz every operation of the live app's OpenAPI schema: no 5xx, answers match their schema."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.support.processes import FAIRPAIR, free_port, run_cli, wait_until_up

# A CI time budget: enough examples to find crashes, few enough to finish in minutes.
EXAMPLES = int(os.environ.get("FAIRPAIR_FUZZ_EXAMPLES", "25"))


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
