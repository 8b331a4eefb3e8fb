"""`fairpair report` prints the same report as `GET /v1/bias-report`, locally or from a server."""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx2
from sqlalchemy import make_url

from tests.conftest import SIM_JUDGES, make_key, write_judges_file
from tests.support.databases import sqlalchemy_url
from tests.support.processes import free_port, run_cli, run_fairpair, running


def without_time(report: dict[str, Any], *, since: bool = False) -> dict[str, Any]:
    """The report minus `generated_at` (and the default `since`, which moves with the clock)."""
    rest = {k: v for k, v in report.items() if k != "generated_at"}
    if since:
        rest["filters"] = {k: v for k, v in rest["filters"].items() if k != "since"}
    return rest


async def test_report_command_equals_the_route_from_the_database_and_from_a_server(
    own_pg: str, tmp_path: Path
) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, SIM_JUDGES)),
    }
    comparer = await make_key(own_pg, "comparer", ["compare", "read"])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    rng = random.Random(3)
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        with httpx2.Client(base_url=base, headers=comparer, timeout=60) as http:
            for i in range(12):
                q = rng.choice([-1, 0, 1])
                answer = http.post(
                    "/v1/compare",
                    json={
                        "prompt": f"Question {i}",
                        "response_a": f"One.\n[sim q={q}]",
                        "response_b": f"Two.\n[sim q={-q}]",
                        "judges": ["sim-a", "sim-b"],
                        "tags": {"suite": "even" if i % 2 else "odd"},
                    },
                )
                assert answer.status_code == 200, answer.text
            since = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
            filtered = {"judge": "sim-a", "since": since, "tag": "suite:even"}
            route = http.get("/v1/bias-report", params=filtered).json()
            route_all = http.get("/v1/bias-report").json()
        key = comparer["Authorization"].removeprefix("Bearer ")
        remote = run_cli("report", "--format", "json", "--url", base, "--key", key, env=env)
        table = run_cli("report", "--url", base, "--wide", env={**env, "FAIRPAIR_KEY": key})
        narrow = run_cli("report", "--url", base, env={**env, "FAIRPAIR_KEY": key})
        relative = ["--judge", "sim-a", "--since", "2h", "--tag", "suite:even"]
        remote_relative = run_cli(
            "report", "--format", "json", *relative, "--url", base, "--key", key, env=env
        )
        remote_canary = run_cli(
            "report",
            "--format",
            "json",
            "--origin",
            "canary",
            "--url",
            base,
            "--key",
            key,
            env=env,
        )
        remote_unknown = run_fairpair(
            "report", "--judge", "nope", "--url", base, "--key", key, env=env
        )
    local_relative = run_cli("report", "--format", "json", *relative, env=env)
    local_unknown = run_fairpair("report", "--judge", "nope", env=env)
    local_canary = run_cli("report", "--format", "json", "--origin", "canary", env=env)
    local = run_cli(
        "report",
        "--format",
        "json",
        "--judge",
        "sim-a",
        "--since",
        since,
        "--tag",
        "suite:even",
        env=env,
    )

    assert [j["judge"] for j in route["judges"]] == ["sim-a"]
    assert route["judges"][0]["calls"]["total"] == 12
    assert without_time(json.loads(local)) == without_time(route)
    assert without_time(json.loads(remote), since=True) == without_time(route_all, since=True)
    header, *rows = table.splitlines()[1:]
    # A rate is named a rate, and each figure shows its tier, as the JSON report does (issue 37).
    assert header.split()[:3] == ["judge", "calls", "failure-rate"]
    assert [row.split()[:2] for row in rows] == [["sim-a", "24"], ["sim-b", "24"]]
    by_judge = {j["judge"]: j for j in json.loads(remote)["judges"]}
    for row in rows:
        position = by_judge[row.split()[0]]["position"]
        assert f"n={position['n']} {position['tier']}" in row, row
    assert "\x1b[" not in table  # no colour when stdout is not a terminal
    # The default table fits 100 columns, shows each rate's tier, and explains itself.
    assert max(len(line) for line in narrow.splitlines()) <= 100, narrow
    narrow_rows = [line for line in narrow.splitlines() if line.startswith("sim-")]
    tier = {"insufficient": "insuf", "preliminary": "prelim", "moderate": "mod", "high": "high"}
    for row in narrow_rows:
        assert tier[by_judge[row.split()[0]]["position"]["tier"]] in row.split()
    assert "PC: position consistency" in narrow
    assert "--wide adds 95% CIs and counts" in narrow
    # An age is read by the server as by the local command (issue 21), and means the same window.
    for relative_report in (remote_relative, local_relative):
        assert without_time(json.loads(relative_report), since=True) == without_time(
            route, since=True
        )
    # Only traffic by default: no drift canary ran, so its origin has no judge.
    for canary_report in (remote_canary, local_canary):
        assert json.loads(canary_report)["filters"]["origin"] == "canary"
        assert json.loads(canary_report)["judges"] == []
    # A judge that never existed is a one-line refusal, not an empty report of no bias.
    for unknown in (remote_unknown, local_unknown):
        assert unknown.returncode != 0
        assert unknown.stdout == ""
        assert unknown.stderr.strip().splitlines() == [unknown.stderr.strip()]
        assert "no judge named 'nope'" in unknown.stderr


def test_report_from_an_unreachable_server_says_so_in_one_line_without_a_traceback() -> None:
    for url in (f"http://127.0.0.1:{free_port()}", "127.0.0.1:8000"):
        result = run_fairpair("report", "--url", url, env={})
        assert result.returncode != 0
        assert result.stdout == ""
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        assert lines[0].startswith("report failed: ")
        assert url in lines[0]


def test_commands_on_an_unreachable_database_say_so_in_one_line() -> None:
    """Refused, an unknown role, an unknown database: one line and exit code 2, no traceback."""
    secret = {"FAIRPAIR_SECRET_KEY": "0123456789abcdef" * 4}
    urls = [
        f"postgresql+asyncpg://root@127.0.0.1:{free_port()}/x",
        make_url(sqlalchemy_url("postgres"))
        .set(username="no_such_role_here")
        .render_as_string(hide_password=False),
        sqlalchemy_url("no_such_database_here"),
    ]
    for url in urls:
        for command in (["report"], ["keys", "list"], ["purge", "--older-than", "1d"]):
            result = run_fairpair(*command, env={**secret, "FAIRPAIR_DATABASE_URL": url})
            assert result.returncode == 2, (url, command, result.stderr)
            lines = result.stderr.strip().splitlines()
            assert len(lines) == 1, result.stderr
            assert lines[0].startswith("the database cannot be reached: ")


def test_report_and_purge_without_an_embedded_database_say_so_and_create_nothing(
    tmp_path: Path,
) -> None:
    for command in (["report"], ["purge", "--older-than", "1d"]):
        result = run_fairpair(*command, env={}, cwd=tmp_path)
        assert result.returncode == 2
        assert result.stderr.startswith("the database cannot be reached: no database file at")
        assert list(tmp_path.iterdir()) == []


def test_report_on_an_embedded_database_the_server_made_is_an_empty_report(
    tmp_path: Path,
) -> None:
    assert run_fairpair("migrate", env={}, cwd=tmp_path).returncode == 0  # as `serve` makes it
    result = run_fairpair("report", "--format", "json", env={}, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["judges"] == []
