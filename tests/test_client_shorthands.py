"""Every shorthand the README documents for `POST /v1/compare`, sent through the generated
client (clients/python) to `fairpair serve` running as a process: the schema must describe every
input the API accepts, or the typed client cannot send it."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.conftest import SIM_JUDGES, make_key, write_judges_file
from tests.support.processes import free_port, running

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "clients" / "python"))

from fairpair_client import AuthenticatedClient
from fairpair_client.api.comparisons import compare
from fairpair_client.models import CompareRequest, ComparisonRead, CriterionIn, ResponseIn

GOOD, BAD = "4\n[sim q=4]", "5\n[sim q=-4]"


def shorthand_requests() -> dict[str, CompareRequest]:
    """One request per documented form: responses as plain strings or objects, criteria as
    text or a weighted list."""
    return {
        "both responses as strings": CompareRequest(
            prompt="What is 2+2?", response_a=GOOD, response_b=BAD
        ),
        "a string and an object": CompareRequest(
            prompt="What is 2+2?", response_a=GOOD, response_b=ResponseIn(text=BAD, model="m")
        ),
        "criteria as text": CompareRequest(
            prompt="What is 2+2?", response_a=GOOD, response_b=BAD, criteria="correctness"
        ),
        "criteria as a weighted list": CompareRequest(
            prompt="What is 2+2?",
            response_a=ResponseIn(text=GOOD),
            response_b=BAD,
            criteria=[CriterionIn(name="correctness", weight=2.0)],
        ),
    }


async def test_generated_client_sends_every_documented_shorthand(
    own_pg: str, tmp_path: Path
) -> None:
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(write_judges_file(tmp_path, SIM_JUDGES)),
    }
    token = (await make_key(own_pg, "client", ["compare"]))["Authorization"].split()[1]
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with running("serve", "--port", str(port), env=env, health_url=f"{base}/healthz"):
        with AuthenticatedClient(base_url=base, token=token, timeout=None) as client:
            for form, request in shorthand_requests().items():
                made = compare.sync(client=client, body=request)
                assert isinstance(made, ComparisonRead), (form, made)
                assert (made.status, made.winner) == ("complete", "A"), form
