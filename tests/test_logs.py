"""Logs are JSON lines (or readable lines at a terminal) carrying request, comparison and judge
ids, and never secrets or texts; a misspelt setting is named; `.env` is read; `--version`."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import httpx2
import pytest
import structlog
from typer.testing import CliRunner

from app import cli
from app.config import Settings
from app.logs import configure_logging, warn_unknown_variables

MARKER = "PROMPT-TEXT-MARKER-41"
JUDGES = """
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-a"

[[judges]]
name = "sim-broken"
provider = "sim"
model = "sim-broken"
[judges.sim]
malformed_rate = 1.0
"""


def json_lines(text: str) -> list[dict[str, Any]]:
    """Every line parsed; a line that is not JSON fails the test."""
    return [json.loads(line) for line in text.splitlines() if line.strip()]


async def test_a_comparison_logs_its_request_comparison_and_judges_without_texts_or_keys(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    capsys: pytest.CaptureFixture[str],
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(JUDGES, privacy="hash"))
    body = {
        "prompt": MARKER,
        "response_a": f"{MARKER} one",
        "response_b": f"{MARKER} two",
        "judges": ["sim-a", "sim-broken"],
    }
    headers = {**comparer, "X-Request-ID": "req-logs-1"}
    response = await client.post("/v1/compare", headers=headers, json=body)
    assert response.status_code == 200, response.text
    comparison_id = response.json()["id"]

    err = capsys.readouterr().err
    lines = json_lines(err)
    mine = [line for line in lines if line.get("request_id") == "req-logs-1"]
    events = {line["event"]: line for line in mine}
    finished = events["comparison_finished"]
    assert finished["comparison_id"] == comparison_id
    assert sorted(finished["judges"]) == ["sim-a", "sim-broken"]
    assert finished["status"] == "partial"
    failed = [line for line in mine if line["event"] == "judge_call_failed"]
    assert {line["judge"] for line in failed} == {"sim-broken"}
    assert all(line["comparison_id"] == comparison_id for line in failed)
    assert events["request"]["path"] == "/v1/compare"
    assert all({"timestamp", "level"} <= line.keys() for line in lines)
    assert MARKER not in err
    assert comparer["Authorization"].removeprefix("Bearer ") not in err


def test_library_logs_share_the_json_format_and_lose_secrets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("info")
    logging.getLogger("sqlalchemy.engine").warning("no route to postgresql://root:hunter2@db/x")
    logging.getLogger("taskiq.receiver").warning("task failed for key fp_0a1b2c_%s", "f" * 64)
    logging.getLogger("uvicorn.error").info("Application startup complete.")
    lines = json_lines(capsys.readouterr().err)
    assert [line["logger"] for line in lines] == [
        "sqlalchemy.engine",
        "taskiq.receiver",
        "uvicorn.error",
    ]
    assert "hunter2" not in lines[0]["event"]
    assert "f" * 64 not in lines[1]["event"]
    assert lines[2]["level"] == "info"


def test_console_lines_are_readable_and_still_lose_secrets(
    capsys: pytest.CaptureFixture[str],
) -> None:
    configure_logging("info", "console")
    structlog.get_logger().warning("judge_down", judge="gpt", api_key="sk-live-secret-123")
    logging.getLogger("uvicorn.error").info("Application startup complete.")
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 2
    assert "judge_down" in lines[0]
    assert "judge=gpt" in lines[0]
    assert "sk-live-secret-123" not in err
    assert not lines[0].lstrip().startswith("{")  # not JSON
    configure_logging("info", "auto")  # stderr is captured, not a terminal: JSON
    structlog.get_logger().info("plain")
    assert json_lines(capsys.readouterr().err)[0]["event"] == "plain"


def test_a_misspelt_setting_is_named_with_the_closest_one(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text("FAIRPAIR_LOG_LEVL=debug\n", encoding="utf-8")
    for name, value in {
        "FAIRPAIR_DATBASE_URL": "postgresql://x",
        "FAIRPAIR_URL": "http://server",  # the CLI's
        "FAIRPAIR_TEST_POSTGRES": "1",  # the test suite's
        "FAIRPAIR_OPENAI_KEY": "sk-x",  # a judge key variable the setting allows
        "FAIRPAIR_ZZZ": "1",
    }.items():
        monkeypatch.setenv(name, value)
    settings = Settings(judge_key_envs="FAIRPAIR_OPENAI_KEY")
    configure_logging("info", "json")
    warn_unknown_variables(settings)
    warnings = {w["variable"]: w["did_you_mean"] for w in json_lines(capsys.readouterr().err)}
    assert warnings == {
        "FAIRPAIR_DATBASE_URL": "FAIRPAIR_DATABASE_URL",
        "FAIRPAIR_LOG_LEVL": "FAIRPAIR_LOG_LEVEL",
        "FAIRPAIR_ZZZ": None,
    }


def test_settings_read_a_dotenv_file_that_the_environment_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".env").write_text(
        "FAIRPAIR_LOG_LEVEL=debug\nFAIRPAIR_MAX_PANEL=3\n", encoding="utf-8"
    )
    monkeypatch.setenv("FAIRPAIR_MAX_PANEL", "4")
    settings = Settings()
    assert (settings.log_level, settings.max_panel) == ("debug", 4)


def test_the_command_prints_its_version() -> None:
    result = CliRunner().invoke(cli.app, ["--version"])
    assert result.exit_code == 0
    assert result.output.strip() == f"fairpair {version('fairpair')}"
