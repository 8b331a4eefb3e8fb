"""Issue 39: a provider-mode batch of swap comparisons and score sessions, end to end, with an
OpenAI reasoning judge (its comparisons through the sim's batch API, its score calls live) and
with an Azure reasoning judge (no batch API in fairpair: its calls run live, over Azure's
route), against one `fairpair sim-judge --reasoning --azure`, which refuses what a reasoning
model refuses on its live routes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.config import Settings
from app.simjudge.server import SIM_REASONING_TOKENS
from tests.batches.support import compare_item, score_item, wait_for_batch
from tests.batches.test_provider_mode import FAST_ROUNDS, sim_process, sim_stats, submit

JUDGES = """
default_panel = ["o3-batched"]

[[judges]]
name = "o3-batched"
provider = "openai"
model = "o3"
base_url = "http://127.0.0.1:{port}/v1"
api_key = "sk-local"
batch_api = "on"
json_mode = true
reasoning_effort = "low"

[[judges]]
name = "azure-o3"
provider = "azure_openai"
model = "o3"
base_url = "http://127.0.0.1:{port}"
deployment = "o3-judge"
api_version = "2024-10-21"
api_key = "azure-local"
json_mode = true
reasoning_effort = "low"
"""


@pytest.fixture
def reasoning_azure_sim() -> Iterator[int]:
    yield from sim_process("--reasoning", "--azure", "--batch-delay", "0.3")


async def _run(client: Any, judge: str) -> dict[str, Any]:
    items = [compare_item(i, judges=[judge]) for i in range(3)]
    items += [score_item(i, [judge]) for i in range(2)]
    done = await wait_for_batch(client, await submit(client, items), {}, timeout_s=120)
    assert done["status"] == "completed", done
    page = (await client.get(f"/v1/batches/{done['id']}/results")).json()["items"]
    for item in page:
        if item["kind"] == "compare":
            comparison = item["comparison"]
            assert (comparison["status"], comparison["winner"]) == ("complete", "A")
            [judged] = comparison["judges"]
            assert {c["confidence_source"] for c in judged["calls"]} == {"stated"}
        else:
            session = item["score_session"]
            assert session["status"] == "complete"
            raws = [r["raw"][judge] for r in session["responses"]]
            assert raws[0] > raws[-1]  # q 2, 0, -2
    return done


async def test_a_reasoning_judges_provider_batch_goes_through_the_batch_api(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reasoning_azure_sim: int,
) -> None:
    settings = settings_factory(JUDGES.format(port=reasoning_azure_sim), **FAST_ROUNDS)
    client = await live_factory(settings)
    done = await _run(client, "o3-batched")
    (job,) = done["provider_jobs"]
    # The comparisons' calls (3 swaps) went through the batch API; the score sessions' calls
    # ran live, on the route that refuses any reasoning-model misstep, and none was refused.
    assert (job["judge"], job["provider"], job["requests"]) == ("o3-batched", "openai", 6)
    served = sim_stats(reasoning_azure_sim)["chat_completions"]
    assert served["answered"] == {"200": served["received"]}
    # The reasoning tokens the batch API reported are kept with each call, as live ones are.
    page = (await client.get(f"/v1/batches/{done['id']}/results")).json()["items"]
    calls = [c for i in page if i["comparison"] for c in i["comparison"]["judges"][0]["calls"]]
    assert len(calls) == 6
    assert {c["reasoning_tokens"] for c in calls} == {SIM_REASONING_TOKENS}


async def test_an_azure_reasoning_judges_provider_batch_runs_its_calls_live(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reasoning_azure_sim: int,
) -> None:
    settings = settings_factory(JUDGES.format(port=reasoning_azure_sim), **FAST_ROUNDS)
    client = await live_factory(settings)
    done = await _run(client, "azure-o3")
    assert done["provider_jobs"] == []
    served = sim_stats(reasoning_azure_sim)["chat_completions"]
    assert served["received"] > 0
    assert served["answered"] == {"200": served["received"]}  # nothing refused
    page = (await client.get(f"/v1/batches/{done['id']}/results")).json()["items"]
    calls = [c for i in page if i["comparison"] for c in i["comparison"]["judges"][0]["calls"]]
    assert {c["reasoning_tokens"] for c in calls} == {SIM_REASONING_TOKENS}
