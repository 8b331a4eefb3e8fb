"""Logs are JSON lines carrying request, comparison and judge ids, and never secrets or texts."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.logs import configure_logging

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
