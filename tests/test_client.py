"""The generated typed client (clients/python) against `fairpair serve` running as a process."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.conftest import SIM_JUDGES, make_key, write_judges_file
from tests.support.processes import free_port, running

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python"))

from fairpair_client import AuthenticatedClient, Client
from fairpair_client.api.comparisons import compare, get_comparison
from fairpair_client.api.health import healthz
from fairpair_client.api.operations import metrics
from fairpair_client.api.reports import get_bias_report
from fairpair_client.models import (
    BiasReport,
    CompareRequest,
    ComparisonRead,
    Problem,
    ResponseIn,
)

CLIENT = Path(__file__).resolve().parent.parent / "clients" / "python"


async def test_generated_client_compares_reads_and_reports_against_a_live_server(
    own_pg: str, tmp_path: Path
) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, SIM_JUDGES)),
    }
    token = (await make_key(own_pg, "client", ["compare", "read"]))["Authorization"].split()[1]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    request = CompareRequest(
        prompt="What is 2+2?",
        response_a=ResponseIn(text="4\n[sim q=4]"),
        response_b=ResponseIn(text="5\n[sim q=-4]"),
        judges=["sim-a", "sim-b"],
    )
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        with Client(base_url=base) as anonymous:
            alive = healthz.sync(client=anonymous)
            assert alive is not None
            assert alive.to_dict() == {"status": "ok"}
            # The schema says this operation needs a key: without one it is a 401 problem.
            refused = compare.sync(client=anonymous, body=request)  # type: ignore[arg-type]
            assert isinstance(refused, Problem)
            assert refused.status == 401
            scraped = metrics.sync(client=anonymous)  # open on loopback
            assert isinstance(scraped, str)
            assert "fairpair_swap_pairs_total" in scraped
        with AuthenticatedClient(base_url=base, token=token, timeout=None) as client:
            made = compare.sync(client=client, body=request, idempotency_key="client-test-1")
            assert isinstance(made, ComparisonRead), made
            assert made.status == "complete"
            assert made.winner == "A"
            fetched = get_comparison.sync(made.id, client=client)
            assert isinstance(fetched, ComparisonRead)
            assert fetched.to_dict() == made.to_dict()
            report = get_bias_report.sync(client=client, judge="sim-a")
            assert isinstance(report, BiasReport)
            assert [j.judge for j in report.judges] == ["sim-a"]
            assert report.judges[0].calls.total == 2


def readme_blocks() -> str:
    """The Python blocks of the client's README, in order, as one program."""
    text = (CLIENT / "README.md").read_text(encoding="utf-8")
    return "\n".join(re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL))


async def test_the_client_readme_runs_as_written_against_a_live_server(
    own_pg: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, SIM_JUDGES)),
    }
    token = (await make_key(own_pg, "client", ["compare", "read"]))["Authorization"].split()[1]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    program = readme_blocks().replace("http://127.0.0.1:8000", base)
    program = program.replace("fp_<id>_<secret>", token)
    assert "compare.sync" in program
    assert "next_cursor" in program
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        exec(compile(program, "clients/python/README.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[0] in ("A", "B", "tie")  # the compare block's winner
    assert printed[1].startswith("sim-a ")  # the report block's judge
