"""`fairpair decide` against a served API (issue 41): an item experiment from a JSONL file as a
CI gate, exit 0 when the candidate is better, 1 when it is worse, 2 when the items ran out
before a decision, 3 when the command could not do its work; and following a named one."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import make_key, write_judges_file
from tests.support.processes import free_port, run_fairpair, running

JUDGES = """
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-a"
"""


def items_file(path: Path, n: int, candidate_q: float) -> Path:
    lines = [
        json.dumps(
            {
                "prompt": f"question {i}",
                "baseline": f"old answer {i}\n[sim q=0]",
                "candidate": f"new answer {i}\n[sim q={candidate_q}]",
            }
        )
        for i in range(n)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


async def test_decide_is_a_ci_gate_on_an_item_experiment(own_pg: str, tmp_path: Path) -> None:
    key = (await make_key(own_pg, "comparer", ["compare", "read"]))["Authorization"][7:]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, JUDGES)),
    }
    client = {"FAIRPAIR_URL": base, "FAIRPAIR_KEY": key}
    models = ["--baseline", "v1", "--candidate", "v2"]
    better = items_file(tmp_path / "better.jsonl", 200, candidate_q=4)
    worse = items_file(tmp_path / "worse.jsonl", 200, candidate_q=-4)
    few = items_file(tmp_path / "few.jsonl", 3, candidate_q=4)
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        won = run_fairpair("decide", "up", "--items", str(better), *models, env=client)
        assert won.returncode == 0, won.stdout + won.stderr
        last = won.stdout.splitlines()[-1]
        assert last.startswith("decided")
        assert "decision candidate_better" in last
        assert "calls saved" in last

        lost = run_fairpair("decide", "down", "--items", str(worse), *models, env=client)
        assert lost.returncode == 1, lost.stdout + lost.stderr
        assert "decision baseline_better" in lost.stdout

        undecided = run_fairpair("decide", "few", "--items", str(few), *models, env=client)
        assert undecided.returncode == 2, undecided.stdout + undecided.stderr
        assert undecided.stdout.splitlines()[-1].startswith("exhausted")

        followed = run_fairpair("decide", "up", env=client)
        assert followed.returncode == 0, followed.stderr

        unknown = run_fairpair("decide", "nobody", env=client)
        assert unknown.returncode == 3
        assert unknown.stderr.startswith("decide: 404")
        half = run_fairpair("decide", "x", "--items", str(few), env=client)
        assert half.returncode == 3
        assert "--baseline and --candidate" in half.stderr
    gone = run_fairpair("decide", "up", env=client)
    assert gone.returncode == 3
    assert "cannot reach the server" in gone.stderr
