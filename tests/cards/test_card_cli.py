"""`fairpair card NAME` against a real `fairpair serve` process, and from the database: the card
of a battery run through `POST /v1/judges/{name}/card` over HTTP."""

from __future__ import annotations

import time
from pathlib import Path

import httpx2

from tests.conftest import SIM_JUDGES, make_key, write_judges_file
from tests.support.processes import free_port, run_cli, run_fairpair, running

PER_FAMILY = 10


def finished_card(http: httpx2.Client, name: str, timeout_s: float = 120) -> dict[str, object]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        answer = http.get(f"/v1/judges/{name}/card")
        assert answer.status_code == 200, answer.text
        card = answer.json()["card"]
        if card is not None and card["complete"]:
            return dict(card)
        time.sleep(0.2)
    raise AssertionError("the card did not finish")


async def test_the_card_command_prints_the_card_from_a_server_and_from_the_database(
    own_pg: str, tmp_path: Path
) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, SIM_JUDGES)),
        "FAIRPAIR_CARD_PROBES_PER_FAMILY": str(PER_FAMILY),
    }
    admin = await make_key(own_pg, "card-admin", ["admin", "read"])
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        with httpx2.Client(base_url=base, headers=admin, timeout=60) as http:
            started = http.post("/v1/judges/sim-a/card")
            assert started.status_code == 202, started.text
            assert started.json()["calls"] == 8 * PER_FAMILY
            card = finished_card(http, "sim-a")
            assert card["items"] == 4 * PER_FAMILY
        key = admin["Authorization"].removeprefix("Bearer ")
        remote = run_cli("card", "sim-a", "--url", base, "--key", key, env=env)
    local = run_cli("card", "sim-a", env=env)
    for table in (remote, local):
        assert "judge sim-a, version 1" in table
        for family in ("padding", "injection", "junk", "placebo"):
            assert family in table
        assert "no earlier version's card" in table
    never = run_cli("card", "sim-b", env=env)
    assert "no card" in never
    unknown = run_fairpair("card", "no-such-judge", env=env)
    assert unknown.returncode == 2
    assert "no judge named" in unknown.stderr
    assert "Traceback" not in unknown.stderr


def test_sim_judge_takes_the_injection_following_knob() -> None:
    result = run_fairpair("sim-judge", "--help", env={"COLUMNS": "200"})
    assert result.returncode == 0
    assert "--injection-following" in result.stdout
