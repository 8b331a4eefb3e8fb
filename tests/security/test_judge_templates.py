"""Issue 36: judges' own templates, posted by an admin. They may not reach other templates
(include, extends, import: 422 with a pointer), their render has a time and output budget and
runs off the event loop, and a template that fails on some inputs fails those calls
(`template_error`), never the request."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.judging import prompts
from app.judging.sandbox import render_within_budget
from app.ledger.models import Comparison, JudgeCall
from tests.hardening.support import all_rows

JUDGE = {"name": "posted", "provider": "sim", "model": "m"}
BLOCKS = (
    '{% for r in responses %}<response label="{{ r.label }}" nonce="{{ r.nonce }}">\n'
    '{{ r.text }}\n</response nonce="{{ r.nonce }}">\n{% endfor %}'
)


@pytest.mark.parametrize(
    "source",
    [
        '{% include "pairwise_user.j2" %}',
        '{% extends "base" %}',
        '{% import "macros" as m %}',
        '{% from "macros" import block %}',
    ],
)
async def test_a_template_reaching_other_templates_is_422_with_a_pointer(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    source: str,
) -> None:
    client = await live_factory(settings_factory())
    templates = {"pairwise_user": source}
    created = await client.post("/v1/judges", headers=admin, json={**JUDGE, "templates": templates})
    assert created.status_code == 422, created.text
    assert created.json()["errors"][0]["pointer"] == "/templates/pairwise_user"


@pytest.mark.parametrize(
    ("fields", "pointer"),
    [
        ({"templates": {"scoring_user": "x" * 20_001}}, "/templates/scoring_user"),
        ({"templates": {"pairwise_user": "{{ task.nope }}"}}, "/templates/pairwise_user"),
        # No backtracking pattern of Jinja's runs on a submitted text (issue 36).
        ({"templates": {"pairwise_system": "{{ task | urlize }}"}}, "/templates/pairwise_system"),
        ({"api_key": "k" * 4_097}, "/api_key"),
    ],
)
async def test_templates_and_keys_have_length_limits_and_name_the_field(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    fields: dict[str, Any],
    pointer: str,
) -> None:
    client = await live_factory(settings_factory())
    created = await client.post("/v1/judges", headers=admin, json={**JUDGE, **fields})
    assert created.status_code == 422, created.text
    assert created.json()["errors"][0]["pointer"] == pointer


@pytest.mark.parametrize(
    "source",
    [
        "{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}",
        "{{ 'x' * 100000000 }}",
        "{% for i in range(100000) %}{{ 'abcdefghij' * 100 }}{% endfor %}",
        "{{ 'x' | center(100000000) }}",
        "{{ 2 ** 100000000 }}",
    ],
    ids=["nested ranges", "repeated string", "long output", "wide filter", "huge power"],
)
@pytest.mark.time_limit(60)
async def test_a_template_over_its_budget_on_the_sample_is_refused_quickly(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    source: str,
) -> None:
    # Unbudgeted, these ran for minutes; the watchdog's limit below is a hang guard, not a
    # measurement (the budget is 0.5 s a render).
    client = await live_factory(settings_factory())
    templates = {"pairwise_system": source}
    created = await client.post("/v1/judges", headers=admin, json={**JUDGE, "templates": templates})
    assert created.status_code == 422, created.text
    assert created.json()["errors"][0]["pointer"] == "/templates/pairwise_system"


# Cheap on the sample task ("task"), costly or broken on the compared prompt.
INPUT_DEPENDENT = {
    # 6,000 characters: 36 million loop turns, seconds of CPU.
    "quadratic in the task": (
        "{% for a in task %}{% for b in task %}{% endfor %}{% endfor %}" + BLOCKS,
        "q" * 6_000,
    ),
    # Fails only when the task is two characters long.
    "division by zero on some tasks": (
        "{{ (task|length) // (task|length - 2) }}" + BLOCKS,
        "ok",
    ),
    # 4,000 copies of a 5,000-character task: 20 million characters.
    "output growing with the task": (
        "{% for i in range(4000) %}{{ task }}{% endfor %}" + BLOCKS,
        "w" * 5_000,
    ),
}


@pytest.mark.parametrize(("source", "prompt"), INPUT_DEPENDENT.values(), ids=INPUT_DEPENDENT.keys())
async def test_a_template_failing_on_the_inputs_fails_the_calls_off_the_loop(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    clean_pg: str,
    source: str,
    prompt: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    templates = {"pairwise_user": source}
    created = await client.post("/v1/judges", headers=admin, json={**JUDGE, "templates": templates})
    assert created.status_code == 201, created.text

    # Off the loop, shown by where the render runs rather than by timing the loop (the project
    # makes no timed assertions; on a loaded CI machine a 0.25 s bound on the loop's gaps failed).
    threads: list[bool] = []

    def recording(*args: Any, **kwargs: Any) -> str:
        threads.append(threading.current_thread() is threading.main_thread())
        return render_within_budget(*args, **kwargs)

    monkeypatch.setattr(prompts, "render_within_budget", recording)
    body = {"prompt": prompt, "response_a": "a", "response_b": "b", "judges": ["posted"]}
    response = await client.post("/v1/compare", headers=admin, json=body)

    assert response.status_code == 502, response.text
    comparison_id = response.json()["comparison_id"]
    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == comparison_id)
    assert [c.error_kind for c in stored] == ["template_error"] * 2
    assert all(c.error and "template" in c.error for c in stored)
    [row] = await all_rows(clean_pg, Comparison, Comparison.id == comparison_id)
    assert row.status == "failed"
    assert threads
    assert not any(threads)  # never on the event loop's thread
