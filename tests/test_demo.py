"""`fairpair demo` against a running service: the injected biases are flagged, the fair judge is
not, a rerun adds nothing, and `--purge` leaves no demo data."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.demo import (
    DEMO_JUDGE_NAMES,
    MODELS,
    TAG,
    DemoClient,
    comparison_bodies,
    delete_demo_comparisons,
    ensure_judges,
    retire_judges,
    run_demo,
    simulated_winner,
    unexpected_flags,
)
from tests.conftest import make_key
from tests.support.processes import free_port, run_cli, run_fairpair, running

SECRET = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"


def _demo_judges(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {j["judge"]: j for j in report["judges"] if j["judge"] in DEMO_JUDGE_NAMES}


def _tagged_comparisons(http: httpx2.Client) -> int:
    total, cursor = 0, None
    while True:
        params: dict[str, Any] = {"tag": TAG, "limit": 200}
        if cursor:
            params["cursor"] = cursor
        page = http.get("/v1/comparisons", params=params).json()
        total += len(page["items"])
        cursor = page["next_cursor"]
        if not cursor:
            return total


def test_demo_bodies_know_the_better_answer_and_keep_both_answers_equally_long() -> None:
    bodies = comparison_bodies(400, seed=1)
    assert bodies == comparison_bodies(400, seed=1)
    for body in bodies:
        a, b = body["response_a"]["text"], body["response_b"]["text"]
        assert len(a) == len(b)
        assert {a.splitlines()[-1][:7], b.splitlines()[-1][:7]} == {"[sim q="}
        assert body["tags"] == {"fairpair": "demo"}


@pytest.mark.slow
async def test_demo_flags_the_injected_biases_only_and_purge_removes_its_data(
    own_pg: str, tmp_path: Path
) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": SECRET,
        # Label, nonce and order draws seeded by the request: the same report on every run.
        "FAIRPAIR_DRAW_SEED": "7",
    }
    admin = await make_key(own_pg, "admin", ["admin"])
    key = admin["Authorization"].removeprefix("Bearer ")
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        keyless = run_fairpair("demo", "--url", base, env={**env, "FAIRPAIR_KEY": ""})
        first = run_cli("demo", "--url", base, "--key", key, env=env)
        again = run_cli("demo", "--url", base, env={**env, "FAIRPAIR_KEY": key})
        with httpx2.Client(base_url=base, headers=admin, timeout=60) as http:
            report = http.get("/v1/bias-report", params={"tag": TAG}).json()
            stored = _tagged_comparisons(http)
            purged = run_cli("demo", "--purge", "--url", base, "--key", key, env=env)
            after_report = http.get("/v1/bias-report").json()
            after_comparisons = _tagged_comparisons(http)
            judges_after = [j["name"] for j in http.get("/v1/judges").json()["items"]]

    assert keyless.returncode != 0
    assert len(keyless.stderr.strip().splitlines()) == 1, keyless.stderr
    assert "admin key" in keyless.stderr

    judges = _demo_judges(report)
    assert set(judges) == set(DEMO_JUDGE_NAMES)
    position, label, fair = judges["demo-position"], judges["demo-label"], judges["demo-fair"]
    assert "position_bias" in position["flags"]
    assert "label_bias" in label["flags"]
    assert fair["flags"] == []
    # Far past the thresholds, not near them: the demo must not depend on luck.
    assert position["position"]["p_adjusted"] < 1e-6
    assert label["label"]["p_adjusted"] < 1e-6
    assert position["position"]["tier"] in ("moderate", "high")
    assert label["label"]["tier"] in ("moderate", "high")
    assert fair["consistency"]["position_consistency"] > 0.9

    # The terminal shows the same table and says what to look for.
    assert "demo judges: demo-position created, demo-label created, demo-fair created" in first
    header = next(line for line in first.splitlines() if line.startswith("judge "))
    assert "2nd-label" in header
    # The flags are listed under the table, one judge a line.
    rows = {line.split()[0]: line for line in first.splitlines() if line.startswith("  demo-")}
    assert "position_bias" in rows["demo-position"]
    assert "label_bias" in rows["demo-label"]
    assert "The report shows every injected bias, and nothing on demo-fair." in first
    assert f"Dashboard: {base}/dashboard?tag={TAG}" in first
    # Then the three judges' cards, as `fairpair card` prints them: the position-biased judge
    # fails the placebo probe (identical texts), the fair one passes every probe.
    cards = first.split("The demo judges' cards:")[1]
    parts = ("\n" + cards).split("\njudge ")[1:]
    blocks = {part.split(",", 1)[0]: part for part in parts}
    assert set(blocks) == set(DEMO_JUDGE_NAMES), list(blocks)
    assert "all items done" in blocks["demo-position"]
    placebo = next(
        line for line in blocks["demo-position"].splitlines() if line.startswith("placebo")
    )
    assert "FAIL" in placebo
    assert "FAIL" not in blocks["demo-fair"]
    assert "WATCH" not in blocks["demo-fair"]

    # A rerun updates the judges in place and replays the same comparisons: nothing doubles.
    assert "demo-position updated" in again
    assert stored == 400
    assert position["calls"]["total"] == 800

    assert "retired judges: demo-position, demo-label, demo-fair" in purged
    assert f"deleted 400 demo comparisons and 2400 calls on {base}" in purged
    assert after_comparisons == 0
    assert not _demo_judges(after_report)
    assert not set(DEMO_JUDGE_NAMES) & set(judges_after)


def test_demo_against_an_unreachable_server_says_so_in_one_line() -> None:
    result = run_fairpair("demo", "--url", f"http://127.0.0.1:{free_port()}", env={})
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("demo failed: cannot reach http://127.0.0.1:")


async def _demo_in_process(settings: Settings, live_factory: Callable[..., Any]) -> None:
    """Run, rerun, purge: the demo's steps against the app in process, auth off."""
    http: httpx2.AsyncClient = await live_factory(settings)
    client = DemoClient(http, "http://127.0.0.1")

    report = await run_demo(client, count=400, seed=3)
    assert unexpected_flags(report) == {}
    assert await ensure_judges(client, seed=3) == dict.fromkeys(DEMO_JUDGE_NAMES, "updated")
    # Unchanged settings make no new judge version.
    for name in DEMO_JUDGE_NAMES:
        assert (await http.get(f"/v1/judges/{name}")).json()["version"] == 1

    assert await retire_judges(client) == list(DEMO_JUDGE_NAMES)
    # Through the server, which resolves the tag as it stores it (its HMAC in privacy mode).
    assert await delete_demo_comparisons(client) == (400, 2400)
    assert await delete_demo_comparisons(client) == (0, 0)
    left = (await http.get("/v1/comparisons", params={"tag": TAG})).json()["items"]
    assert left == []
    assert (await http.get("/v1/bias-report")).json()["judges"] == []
    listed = [j["name"] for j in (await http.get("/v1/judges")).json()["items"]]
    assert not set(DEMO_JUDGE_NAMES) & set(listed)


async def test_demo_in_process_with_auth_off_reruns_in_place_and_purges_in_privacy_mode(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> None:
    await _demo_in_process(settings_factory(auth="off", privacy="hash"), live_factory)


async def test_demo_on_the_embedded_default_database_as_the_readme_runs_it(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], tmp_path: Path
) -> None:
    # `bash scripts/serve` on a fresh clone: SQLite, auth off, no judges file.
    settings = settings_factory(
        auth="off", database_url=f"sqlite+aiosqlite:///{tmp_path}/fairpair.db", judges_file=None
    )
    await _demo_in_process(settings, live_factory)


def test_simulated_labelers_follow_the_hidden_qualities_and_skip_other_items() -> None:
    rng = random.Random(0)
    item = {"response_a": "x\n[sim q=-1.000]", "response_b": "y\n[sim q=+1.000]"}
    picks = [simulated_winner(item, rng) for _ in range(4000)]
    assert picks.count("B") / 4000 == pytest.approx(1 / (1 + math.exp(-2.0)), abs=0.02)
    assert simulated_winner({"response_a": "plain", "response_b": "text"}, rng) is None
    assert simulated_winner({"response_a": None, "response_b": None}, rng) is None  # privacy


async def test_demo_labels_posts_simulated_queue_labels_that_anchor_the_win_rates(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> None:
    http: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    client = DemoClient(http, "http://127.0.0.1")
    posted: list[int] = []
    await run_demo(client, count=200, seed=4, labels=60, on_labels=posted.append)
    assert posted == [60]
    params = {"model": MODELS[1], "baseline": MODELS[0], "tag": TAG}
    body = (await http.get("/v1/win-rates", params=params)).json()
    assert (body["n_comparisons"], body["n_labelled"]) == (200, 60)
    assert body["n_labelled_not_from_queue"] == 0  # every label came from the queue
    assert body["anchored"] is not None
    assert body["human"] is not None
    # Model B is better on 65% of items, and a labeler picks the better one 82-92% of the time.
    assert 0.4 < body["human"]["win_rate"] < 0.85
    assert await delete_demo_comparisons(client) == (200, 1200)
