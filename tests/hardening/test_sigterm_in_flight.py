"""SIGTERM to a real `fairpair serve` on PostgreSQL while 50 comparisons are in flight against
`fairpair sim-judge` over HTTP: every comparison ends `complete` or `interrupted`, and every
answer the sim-judge gave is a stored call.

Timing (FAIRPAIR_SHUTDOWN_GRACE_S = 1, every judge answer 900 ms, all ties): a swap comparison is
one pair, so it is done within a second of the signal and inside the grace period; a shuffle
comparison needs three pairs in a row (ties never reach a majority early), 2.7 s, so the ones
started last cannot finish and are interrupted with the pairs they had. uvicorn's own graceful
timeout and the app's drain each take the grace period, one after the other.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx2
import pytest

from app.ledger.models import Comparison, JudgeCall
from tests.batches.stack import START_TIMEOUT_S, serving, spawn, stop
from tests.hardening.support import all_rows, http_judge, settled_sim_stats, sim_stats
from tests.support.processes import free_port, wait_until_up

IN_FLIGHT = 50
LATENCY_MS = 900
EQUAL = "\n[sim q=0]"
pytestmark = pytest.mark.slow


def body(i: int) -> dict[str, Any]:
    """Even: a one-pair swap. Odd: a shuffle that runs three pairs one after another."""
    request: dict[str, Any] = {"prompt": f"p{i}", "response_a": "a" + EQUAL}
    request["response_b"] = "b" + EQUAL
    if i % 2:
        request["protocol"] = {"kind": "shuffle", "pairs": 5}
    return request


def post(base: str, i: int) -> tuple[int, str] | str:
    """The status and content type the client got, or the transport error's name."""
    try:
        answer = httpx2.post(f"{base}/v1/compare", json=body(i), timeout=60)
    except httpx2.TransportError as exc:
        return type(exc).__name__
    return answer.status_code, answer.headers["content-type"]


def wait_for_received(sim_url: str, count: int, timeout_s: float = 60) -> None:
    """Until the sim-judge has received `count` requests."""
    give_up_at = time.monotonic() + timeout_s
    while sim_stats(sim_url)["received"] < count:
        assert time.monotonic() < give_up_at, sim_stats(sim_url)
        time.sleep(0.02)


def test_sigterm_with_50_comparisons_in_flight_completes_or_interrupts_each_and_keeps_calls(
    own_pg: str, tmp_path: Path
) -> None:
    sim_port, api_port = free_port(), free_port()
    sim_url, base = f"http://127.0.0.1:{sim_port}/v1", f"http://127.0.0.1:{api_port}"
    judges = tmp_path / "judges.toml"
    panel = 'default_panel = ["http-sim"]\n'
    judges.write_text(panel + http_judge("http-sim", sim_url, max_concurrency=2 * IN_FLIGHT))
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_AUTH": "off",
        "FAIRPAIR_JUDGES_FILE": str(judges),
        "FAIRPAIR_SHUTDOWN_GRACE_S": "1",
        "FAIRPAIR_SWEEP_INTERVAL_S": "3600",
        "FAIRPAIR_LOG_LEVEL": "warning",
    }
    sim_args = ["sim-judge", "--port", str(sim_port), "--latency-ms", str(LATENCY_MS)]
    sim_args += ["--tie-rate", "1"]
    with serving(sim_args, {}, f"http://127.0.0.1:{sim_port}/healthz", tmp_path / "sim.log"):
        api = spawn(["serve", "--port", str(api_port)], env, tmp_path / "api.log")
        try:
            wait_until_up(f"{base}/healthz", timeout_s=START_TIMEOUT_S)
            with ThreadPoolExecutor(IN_FLIGHT) as clients:
                answers = [clients.submit(post, base, i) for i in range(IN_FLIGHT)]
                wait_for_received(sim_url, 2 * IN_FLIGHT)  # every comparison's first pair
                api.send_signal(signal.SIGTERM)
                api.wait(timeout=30)
                statuses = [answer.result() for answer in answers]
        finally:
            stop(api)
        served = settled_sim_stats(sim_url)

    rows = asyncio.run(all_rows(own_pg, Comparison))
    calls = asyncio.run(all_rows(own_pg, JudgeCall))
    outcomes = Counter((row.protocol, row.status, row.error_kind) for row in rows)
    assert len(rows) == IN_FLIGHT, outcomes
    assert outcomes[("swap", "complete", None)] == IN_FLIGHT // 2, outcomes
    assert all(row.status == "complete" or row.error_kind == "interrupted" for row in rows)
    interrupted = [row for row in rows if row.error_kind == "interrupted"]
    assert interrupted, outcomes  # the shuffles started last could not finish in time
    parsed = Counter(call.comparison_id for call in calls if call.pick is not None)
    for row in interrupted:  # partial exactly when it kept a call obtained before the end
        assert row.status == ("partial" if parsed[row.id] else "failed")
    # Every stored call is an answer the sim-judge sent. An answer it finished sending while the
    # API was cancelling that call is not obtained (nobody read it): at most the two calls in
    # flight of each interrupted comparison; every other answer is stored.
    stored = sum(parsed.values())
    assert stored <= served["answered"]["200"], served
    assert served["answered"]["200"] - stored <= 2 * len(interrupted), (stored, served)
    assert set(served["answered"]) == {"200"}
    # Swaps finish within the grace (all stored complete, above) and are answered; a request
    # still running when uvicorn's graceful timeout ended is told to retry (503), never a 500
    # (on a loaded machine that can be a swap whose answer was being written at that moment).
    swaps = [status for i, status in enumerate(statuses) if i % 2 == 0]
    assert (200, "application/json") in swaps
    assert set(statuses) <= {(200, "application/json"), (503, "application/problem+json")}
