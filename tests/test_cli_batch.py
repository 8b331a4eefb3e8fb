"""`fairpair batch` against a served API (issue 43): submit a JSONL file and follow it to an exit
code a pipeline can gate on, submit the same file again as the same batch, list, download, and
one clear line (exit 2) for a bad file or a server that is not there."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, datetime
from pathlib import Path

from app.batch_commands import progress_line
from tests.batches.support import compare_item
from tests.conftest import make_key, write_judges_file
from tests.support.processes import free_port, run_fairpair, running

JUDGES = """
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-a"

[[judges]]
name = "broken"
provider = "sim"
model = "broken"

[judges.sim]
error_rate = 1.0
"""


def jsonl_file(path: Path, items: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(item) for item in items) + "\n\n", encoding="utf-8")
    return path


async def test_a_batch_is_submitted_followed_listed_and_downloaded_from_the_terminal(
    own_pg: str, tmp_path: Path
) -> None:
    key = (await make_key(own_pg, "comparer", ["compare", "read"]))["Authorization"][7:]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, JUDGES)),
    }
    client_env = {"FAIRPAIR_URL": base, "FAIRPAIR_KEY": key}
    good = jsonl_file(tmp_path / "good.jsonl", [compare_item(i) for i in range(4)])
    broken_item = compare_item(9)
    broken_item["compare"]["judges"] = ["broken"]
    mixed = jsonl_file(tmp_path / "mixed.jsonl", [compare_item(5), broken_item])
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        followed = run_fairpair("batch", "submit", str(good), "--follow", env=client_env)
        assert followed.returncode == 0, followed.stderr
        batch_id, *progress = followed.stdout.splitlines()
        assert progress[-1].startswith("completed"), progress
        assert "4/4" in progress[-1]

        again = run_fairpair("batch", "submit", str(good), env=client_env)
        assert (again.returncode, again.stdout.strip()) == (0, batch_id)

        failing = run_fairpair("batch", "submit", str(mixed), "--follow", env=client_env)
        assert failing.returncode == 1, failing.stdout + failing.stderr
        mixed_id, *mixed_progress = failing.stdout.splitlines()
        assert "failed 1" in mixed_progress[-1]

        # One item completed, so the mixed batch is `completed` too (with a failed item).
        listed = run_fairpair("batch", "list", "--status", "completed", env=client_env)
        assert [line.split()[0] for line in listed.stdout.splitlines()] == [mixed_id, batch_id]

        status = run_fairpair("batch", "status", batch_id, env=client_env)
        assert status.stdout.startswith("completed")
        assert "4/4" in status.stdout

        out = tmp_path / "results.csv"
        saved = run_fairpair(
            "batch", "results", batch_id, "--format", "csv", "--out", str(out), env=client_env
        )
        assert saved.returncode == 0, saved.stderr
        rows = list(csv.DictReader(io.StringIO(out.read_text(encoding="utf-8"))))
        assert [(r["item_id"], r["winner"]) for r in rows] == [(f"q{i}", "A") for i in range(4)]

        missing = run_fairpair("batch", "status", "no-such-batch", env=client_env)
        assert missing.returncode == 2
        assert (
            missing.stderr.strip() == "batch: 404 from the server: no batch with id 'no-such-batch'"
        )


def test_a_bad_file_or_an_absent_server_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"compare": {}}\nnot json\n', encoding="utf-8")
    env = {"FAIRPAIR_URL": f"http://127.0.0.1:{free_port()}"}
    not_json = run_fairpair("batch", "submit", str(bad), env=env)
    assert (not_json.returncode, not_json.stdout) == (2, "")
    assert not_json.stderr.startswith(f"batch: {bad}:2: not JSON")
    empty = run_fairpair("batch", "submit", str(jsonl_file(tmp_path / "e.jsonl", [])), env=env)
    assert (empty.returncode, empty.stderr.strip()) == (
        2,
        f"batch: {tmp_path / 'e.jsonl'}: no items",
    )
    down = run_fairpair("batch", "list", env=env)
    assert down.returncode == 2
    assert down.stderr.startswith("batch: cannot reach the server:")
    assert len(down.stderr.strip().splitlines()) == 1


def test_the_progress_line_says_what_the_items_wait_on() -> None:
    now = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
    batch = {
        "status": "running",
        "total": 10,
        "counts": {"completed": 4, "failed": 0, "cancelled": 0, "running": 2, "waiting": 3},
        "progress": 0.4,
        "cost_usd": 0.0,
        "unpriced_calls": 8,
        "created_at": "2026-11-29T11:59:00+00:00",
        "started_at": "2026-11-29T11:59:00+00:00",
        "rate_limited_until": "2026-11-29T12:00:42+00:00",
    }
    line = progress_line(batch, now)
    assert "[#########...............] 4/10" in line
    assert "at a provider 3" in line
    assert "rate-limited 42s" in line
    assert "cost unknown" in line
    passed = progress_line({**batch, "rate_limited_until": "2026-11-29T11:59:59+00:00"}, now)
    assert "rate-limited" not in passed
