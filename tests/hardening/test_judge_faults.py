"""Each judge fault of PRODUCT.md's table, end to end: `POST /v1/compare` on PostgreSQL, the judge
reached over real HTTP through the openai provider, a `fairpair sim-judge` app with one fault knob
turned up. A healthy sim judge sits in the same panel, so the answer is `partial` with its verdict,
and the faulty judge's calls are stored failed with their error kind, never turned into a tie.
Every request the faulty sim received is accounted for by a stored call and its retries."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest

from app.config import Settings
from app.judging.types import SimKnobs
from app.ledger.models import JudgeCall
from tests.hardening.support import all_rows, http_judge, settled_sim_stats
from tests.judging.fakes import running_sim_judge

BODY = {"prompt": "What is 2+2?", "response_a": "4\n[sim q=4]", "response_b": "5\n[sim q=-4]"}
ATTEMPTS = 4  # a judge's max_attempts (docs/JUDGE_CONTRACT.md)


@dataclass(frozen=True)
class Fault:
    """One knob of the sim-judge and what the contract says the faulty calls become."""

    knobs: SimKnobs
    error_kind: str
    retries: int
    deadline_s: float = 20.0
    judge_fields: dict[str, Any] = field(default_factory=dict)


FAULTS = {
    # retry-after-ms: 50 on every attempt: retried within the deadline, then given up.
    "429-with-retry-after": Fault(SimKnobs(rate_limit_rate=1.0), "rate_limited", ATTEMPTS - 1),
    "5xx": Fault(SimKnobs(error_rate=1.0), "server_error", ATTEMPTS - 1),
    # Each request outlives the judge's own read timeout, well within the request's deadline.
    "timeout": Fault(
        SimKnobs(latency_ms=2000), "timeout", ATTEMPTS - 1, judge_fields={"timeout_s": 0.3}
    ),
    # One repair request, then a failed call.
    "malformed": Fault(SimKnobs(malformed_rate=1.0), "unparseable", 1),
    # Still running at the request's deadline: cancelled and stored failed.
    "slow-past-deadline": Fault(SimKnobs(latency_ms=5000), "deadline", 0, deadline_s=1.0),
}


@pytest.mark.parametrize("fault", FAULTS.values(), ids=FAULTS.keys())
async def test_judge_fault_gives_a_partial_comparison_and_every_request_is_stored(
    fault: Fault,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    with running_sim_judge(SimKnobs()) as steady_url, running_sim_judge(fault.knobs) as faulty_url:
        judges = (
            'default_panel = ["steady", "faulty"]\n'
            + http_judge("steady", steady_url)
            + http_judge("faulty", faulty_url, **fault.judge_fields)
        )
        client = await live_factory(settings_factory(judges, auth="off"))
        response = await client.post("/v1/compare", json={**BODY, "timeout_s": fault.deadline_s})
        assert response.status_code == 200, response.text
        answer = response.json()
        faulty_stats = settled_sim_stats(faulty_url)
        steady_stats = settled_sim_stats(steady_url)

    assert (answer["status"], answer["winner"]) == ("partial", "A")
    by_judge = {judge["judge"]: judge for judge in answer["judges"]}
    assert by_judge["faulty"]["result"] is None  # no result, and no fabricated tie
    assert by_judge["steady"]["result"]["winner"] == "A"
    answered_calls = by_judge["faulty"]["calls"]
    assert [(c["error_kind"], c["retries"]) for c in answered_calls] == [
        (fault.error_kind, fault.retries)
    ] * 2

    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == answer["id"])
    faulty = [call for call in stored if call.judge_name == "faulty"]
    assert sorted((c.round, c.error_kind, c.retries, c.pick) for c in faulty) == [
        (0, fault.error_kind, fault.retries, None),
        (1, fault.error_kind, fault.retries, None),
    ]
    assert faulty_stats["received"] == sum(1 + call.retries for call in faulty)
    assert sum(faulty_stats["answered"].values()) + faulty_stats["abandoned"] == 2 * (
        1 + fault.retries
    )
    assert steady_stats["received"] == 2
    assert steady_stats["answered"] == {"200": 2}
    assert len(stored) == 4
    stored_answer = (await client.get(f"/v1/comparisons/{answer['id']}")).json()
    assert stored_answer["status"] == "partial"


async def test_retry_after_is_honoured_instead_of_the_longer_backoff(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    with running_sim_judge(SimKnobs(rate_limit_rate=1.0)) as url:
        client = await live_factory(settings_factory(http_judge("limited", url), auth="off"))
        response = await client.post("/v1/compare", json={**BODY, "judges": ["limited"]})
        stats = settled_sim_stats(url)
    assert response.status_code == 502
    problem = response.json()
    assert problem["type"] == "judges-failed"
    assert response.headers["content-type"] == "application/problem+json"
    comparison_id = problem["comparison_id"]
    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == comparison_id)
    assert [c.error_kind for c in stored] == ["rate_limited", "rate_limited"]
    assert stats["answered"] == {"429": 2 * ATTEMPTS}
    # The sim asks for 50 ms (retry-after-ms); the backoff would wait at least 0.25 + 0.5 + 1 s.
    assert all(call.latency_ms < 1500 for call in stored)
