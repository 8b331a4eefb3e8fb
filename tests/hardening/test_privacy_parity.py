"""Privacy mode changes what is stored, not what is measured: the same traffic sent to an app with
`FAIRPAIR_PRIVACY=hash` and to one without gives the same bias report.

Both apps get `FAIRPAIR_DRAW_SEED`, so label pairs, label slots, nonces and single-call orders are
drawn from the request's content, and share one sim-judge over HTTP. The sim is a pure function of
(seed, model, messages, attempt) (docs/JUDGE_CONTRACT.md): identical prompts get identical
answers, whichever app asks. The test checks that chain first: every call of every comparison must
match before the reports are compared.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

import httpx2

from app.config import Settings
from app.judging.types import SimKnobs
from app.ledger.models import Comparison
from tests.conftest import write_judges_file
from tests.hardening.support import all_rows, http_judge
from tests.judging.fakes import running_sim_judge

SIM = SimKnobs(position_bias=0.8, label_bias=0.4, length_bias=0.6, tie_rate=0.1, seed=11)
# Fields that differ between two runs of the same traffic by nature: new ids and wall-clock times.
PER_RUN_FIELDS = frozenset(
    {"id", "created_at", "completed_at", "started_at", "finished_at", "latency_ms"}
)
# The report's only per-run field: when it was computed.
REPORT_PER_RUN_FIELDS = frozenset({"generated_at"})
# Enough for the placebo and self-preference figures to leave the `insufficient` tier.
PLACEBOS, AUDITS = 12, 36
SINCE = "2000-01-01T00:00:00Z"  # explicit, so that the default window's start is not per run


def traffic() -> list[dict[str, Any]]:
    """Ordinary, placebo and self-preference-audit comparisons under every protocol."""
    protocols: list[dict[str, Any]] = [
        {"kind": "swap"},
        {"kind": "shuffle", "pairs": 3},
        {"kind": "adaptive", "max_pairs": 3},
        {"kind": "single"},
    ]
    requests = []
    for i in range(24):
        q = (i % 7 - 3) / 2
        requests.append(
            {
                "prompt": f"Question {i}?",
                "response_a": "short answer" + "!" * (i * 37 % 400) + f"\n[sim q={q}]",
                "response_b": f"other answer {i}\n[sim q={-q / 2}]",
                "protocol": protocols[i % 4],
                "tags": {"team": "search" if i % 2 else "ads"},
            }
        )
    placebo = "the same text, twice\n[sim q=0]"
    requests += [
        {"prompt": f"Placebo {i}", "response_a": placebo, "response_b": placebo}
        for i in range(PLACEBOS)
    ]
    requests += [
        {
            "prompt": f"Own family {i}?",
            "response_a": {"text": f"mine {i}\n[sim q=0]", "model": "gpt-4o"},
            "response_b": {"text": f"theirs {i}\n[sim q=0]", "model": "mistral-large"},
            "self_preference": "audit",
        }
        for i in range(AUDITS)
    ]
    return requests


def without(value: Any, names: frozenset[str]) -> Any:
    """`value` with the keys in `names` removed at every depth."""
    if isinstance(value, dict):
        return {k: without(v, names) for k, v in value.items() if k not in names}
    if isinstance(value, list):
        return [without(v, names) for v in value]
    return value


async def run_traffic(client: httpx2.AsyncClient) -> tuple[list[Any], dict[str, Any]]:
    """The answers to `traffic()` (minus per-run fields) and the bias report after it."""
    answers = []
    for body in traffic():
        response = await client.post("/v1/compare", json=body)
        assert response.status_code == 200, response.text
        answers.append(without(response.json(), PER_RUN_FIELDS))
    report = await client.get("/v1/bias-report", params={"since": SINCE})
    assert report.status_code == 200, report.text
    return answers, report.json()


async def test_privacy_mode_gives_the_same_bias_report_as_plain_mode(
    clean_pg: str, own_pg: str, tmp_path: Path, live_factory: Callable[..., Any]
) -> None:
    with running_sim_judge(SIM) as url:
        judges = (
            'default_panel = ["judge-open", "judge-meta"]\n'
            + http_judge("judge-open", url, family="openai")
            + http_judge("judge-meta", url, family="meta")
        )

        def settings(database_url: str, privacy: Literal["off", "hash"] = "off") -> Settings:
            return Settings(
                database_url=database_url,
                secret_key="test-secret",
                auth="off",
                draw_seed=7,
                judges_file=write_judges_file(tmp_path, judges),
                sweep_interval_s=3600,
                privacy=privacy,
            )

        plain_answers, plain = await run_traffic(await live_factory(settings(clean_pg)))
        private_answers, private = await run_traffic(
            await live_factory(settings(own_pg, privacy="hash"))
        )
    assert private_answers == plain_answers  # the sim answered both apps identically
    stored = await all_rows(own_pg, Comparison)
    assert all(row.prompt is None and row.prompt_hmac for row in stored)  # privacy mode was on
    assert {a["status"] for a in plain_answers} == {"complete"}
    assert without(private, REPORT_PER_RUN_FIELDS) == without(plain, REPORT_PER_RUN_FIELDS)
    # The comparison covers figures, not empty sections: each one the traffic aims at is computed.
    reports = {j["judge"]: j for j in plain["judges"]}
    assert set(reports) == {"judge-open", "judge-meta"}
    assert reports["judge-open"]["self_preference"]["ci95"] is not None  # a bootstrap, seeded
    for judge in reports.values():
        for section in ("position", "consistency", "label", "placebo", "length"):
            assert judge[section]["tier"] != "insufficient", (judge["judge"], section)
