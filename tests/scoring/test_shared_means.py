"""Issue 21: under `exclude` each response's means cover different reviewers; the answer says
which, and gives a mean over one reviewer set that compares across responses."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2

from app.config import Settings
from tests.scoring.builders import sim_judges_toml
from tests.scoring.test_score_api import judge

# rev-x and rev-y each score only the response of the other's family; rev-z scores both.
PANEL = (
    sim_judges_toml({"rev-z": 0.0}) + judge("rev-x", family="xco") + judge("rev-y", family="yco")
)
BODY: dict[str, Any] = {
    "prompt": "Explain recursion in one paragraph.",
    "responses": [
        {"text": "A function that calls itself.\n[sim q=0]", "model": "x-1", "family": "xco"},
        {"text": "A function that calls itself!\n[sim q=0]", "model": "y-1", "family": "yco"},
    ],
    "judges": ["rev-x", "rev-y", "rev-z"],
}


async def test_shared_raw_mean_is_over_the_reviewers_who_scored_every_response(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    settings = settings_factory(PANEL, self_preference_audit_rate=0)
    client: httpx2.AsyncClient = await live_factory(settings)
    answer = await client.post("/v1/score", headers=admin, json=BODY)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    first, second = body["responses"]
    assert (set(first["raw"]), set(second["raw"])) == ({"rev-y", "rev-z"}, {"rev-x", "rev-z"})
    assert body["shared_reviewers"] == ["rev-z"]
    assert first["shared_raw_mean"] == first["raw"]["rev-z"]
    assert second["shared_raw_mean"] == second["raw"]["rev-z"]
    # raw_mean stays what it was: over each response's own reviewers.
    assert first["raw_mean"] == (first["raw"]["rev-y"] + first["raw"]["rev-z"]) / 2
    stored = (await client.get(f"/v1/score-sessions/{body['id']}", headers=admin)).json()
    assert stored == body


async def test_every_reviewer_on_every_response_makes_shared_equal_raw(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client: httpx2.AsyncClient = await live_factory(settings_factory(PANEL))
    request = {**BODY, "judges": ["rev-z"], "responses": ["one\n[sim q=1]", "two\n[sim q=0]"]}
    body = (await client.post("/v1/score", headers=admin, json=request)).json()
    assert body["shared_reviewers"] == ["rev-z"]
    assert all(r["shared_raw_mean"] == r["raw_mean"] for r in body["responses"])
