"""Issue 39's judge-call cache in a provider-mode batch: the same seeded items submitted again
are answered from the stored calls, so the second batch hands nothing to the provider's batch
API, against `fairpair sim-judge` (its batch emulation) as its own process."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from app.config import Settings
from tests.batches.support import compare_item, wait_for_batch
from tests.batches.test_provider_mode import (
    FAST_ROUNDS,
    judges_toml,
    sim_process,
    sim_stats,
    submit,
)


@pytest.fixture
def batch_sim() -> Iterator[int]:
    yield from sim_process("--batch-delay", "0.3")


async def run_batch(client: Any, items: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
    """The finished batch and its comparisons' calls."""
    done = await wait_for_batch(client, await submit(client, items), {}, timeout_s=120)
    assert done["status"] == "completed", done
    page = (await client.get(f"/v1/batches/{done['id']}/results")).json()["items"]
    calls = [c for item in page for c in item["comparison"]["judges"][0]["calls"]]
    return done, calls


async def test_a_provider_batch_of_items_judged_before_hands_nothing_to_the_provider(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    batch_sim: int,
) -> None:
    judges = judges_toml(batch_sim, protocol_extra="cache = true")
    client = await live_factory(settings_factory(judges, **FAST_ROUNDS))
    items = [compare_item(i, judges=["batched"]) for i in range(3)]

    first, paid = await run_batch(client, items)
    (job,) = first["provider_jobs"]
    assert job["requests"] == 6
    assert not any(c["cached"] for c in paid)
    jobs_before = sim_stats(batch_sim)["openai"]["jobs_created"]

    again, repeated = await run_batch(client, items)
    assert again["provider_jobs"] == []
    assert sim_stats(batch_sim)["openai"]["jobs_created"] == jobs_before
    assert len(repeated) == 6
    assert all(c["cached"] and c["cost_usd"] == 0 for c in repeated)
    assert sorted(c["pick"] for c in repeated) == sorted(c["pick"] for c in paid)
