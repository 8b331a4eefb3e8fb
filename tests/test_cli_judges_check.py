"""`fairpair judges check` (issue 43): one small pairwise call to each judge over real HTTP, and a
table saying which answer, which cannot be reached, which have no key and which have no prices;
exit 0 only when every judge answered."""

from __future__ import annotations

import os
from pathlib import Path

from app.judging.types import SimKnobs
from tests.conftest import write_judges_file
from tests.judging.fakes import running_sim_judge
from tests.support.processes import free_port, run_fairpair


def judges_toml(sim_url: str, closed_port: int) -> str:
    return f"""
default_panel = ["answering"]

[[judges]]
name = "answering"
provider = "openai"
model = "sim-http"
base_url = "{sim_url}"
api_key = "sk-local"
price_in_per_mtok = 2.5
price_out_per_mtok = 10

[[judges]]
name = "down"
provider = "openai"
model = "sim-http"
base_url = "http://127.0.0.1:{closed_port}/v1"
api_key = "sk-local"

[[judges]]
name = "keyless"
provider = "openai"
model = "gpt-4o"
api_key_env = "FAIRPAIR_TEST_NO_SUCH_KEY"
"""


def test_judges_check_calls_each_judge_once_and_says_what_came_back(tmp_path: Path) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'check.db'}",
        "FAIRPAIR_JUDGE_HOSTS_ALLOW": "127.0.0.1",
    }
    assert "FAIRPAIR_TEST_NO_SUCH_KEY" not in os.environ
    with running_sim_judge(SimKnobs()) as sim_url:
        judges = write_judges_file(tmp_path, judges_toml(sim_url, free_port()))
        result = run_fairpair("judges", "check", env={**env, "FAIRPAIR_JUDGES_FILE": str(judges)})
        only = run_fairpair(
            "judges", "check", "--judge", "answering",
            env={**env, "FAIRPAIR_JUDGES_FILE": str(judges)},
        )  # fmt: skip
    assert result.returncode == 1, result.stderr
    rows = {line.split()[0]: line for line in result.stdout.splitlines()[1:]}
    assert set(rows) == {"answering", "down", "keyless"}
    assert rows["answering"].split()[1] == "ok"
    assert "$2.5/$10" in rows["answering"]
    assert "sim-http" in rows["answering"]
    assert "not reachable" in rows["down"]
    assert "unknown" in rows["down"]  # no prices: never shown as $0
    assert "unknown" not in rows["answering"]
    assert "unavailable" in rows["keyless"]
    assert "FAIRPAIR_TEST_NO_SUCH_KEY" in rows["keyless"]
    assert only.returncode == 0, only.stdout + only.stderr
    assert [line.split()[0] for line in only.stdout.splitlines()[1:]] == ["answering"]


def test_judges_check_on_a_database_it_cannot_reach_is_one_line() -> None:
    env = {"FAIRPAIR_DATABASE_URL": f"postgresql+asyncpg://nobody@127.0.0.1:{free_port()}/x"}
    result = run_fairpair("judges", "check", env=env)
    assert result.returncode == 2
    assert result.stderr.startswith("the database cannot be reached:")
    assert len(result.stderr.strip().splitlines()) == 1


def test_judges_check_with_a_broken_judges_file_is_one_line(tmp_path: Path) -> None:
    judges = write_judges_file(
        tmp_path, '[[judges]]\nname = "x"\nprovider = "sim"\nmodel = "x"\ntypo = 1\n'
    )
    env = {
        "FAIRPAIR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'check.db'}",
        "FAIRPAIR_JUDGES_FILE": str(judges),
    }
    result = run_fairpair("judges", "check", env=env)
    assert result.returncode == 2
    assert result.stderr.startswith(f"judges file {judges}:")
    assert "Traceback" not in result.stderr
