"""Provider submissions whose outcome is unknown (issue 36): a create that answers 500 after the
provider made the job, a create that never answers, a job with no usable expiry. Each used to
leave its job `submitting` and resubmit its requests at every lease's end, forever."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from app.batches import provider_jobs as provider
from app.config import Settings
from app.judging.batchapi import BatchApi, ReportedBatchJob
from app.judging.providers.anthropic import AnthropicJudge
from app.judging.providers.openai import OpenAIJudge
from app.judging.retries import ProviderCallError
from tests.batches.support import compare_item, wait_for_batch
from tests.batches.test_provider_mode import (
    ANTHROPIC_JUDGE,
    FAST_ROUNDS,
    judges_toml,
    sim_process,
    sim_stats,
    stored_calls,
    submit,
)

Meddle = Callable[[BatchApi], BatchApi]


class Meddling:
    """A judge's batch API with some of its answers replaced (what a broken provider does)."""

    def __init__(self, api: BatchApi, **overrides: Any) -> None:
        self._api, self._overrides = api, overrides

    def __getattr__(self, name: str) -> Any:
        override = self._overrides.get(name)
        if override is None:
            return getattr(self._api, name)
        return lambda *args: override(self._api, *args)


def meddle(monkeypatch: pytest.MonkeyPatch, **overrides: Any) -> None:
    """Every OpenAI and Anthropic judge's batch API meddled with as `overrides` say."""
    for cls in (OpenAIJudge, AnthropicJudge):
        real = cls.batch_api
        monkeypatch.setattr(
            cls, "batch_api", lambda self, real=real: Meddling(real(self), **overrides)
        )


@pytest.fixture(autouse=True)
def quick_lookups(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unknown outcomes are looked up at once, not after 30 s."""
    monkeypatch.setattr(provider, "UNCLEAR_LOOKUP_S", 0.1)


@pytest.fixture
def sim_port() -> Iterator[int]:
    yield from sim_process("--batch-delay", "0.3")


async def created_then_500(api: BatchApi, requests: Any, metadata: Any) -> ReportedBatchJob:
    await api.submit(requests, metadata)
    raise ProviderCallError("server_error", "HTTP 500: Error code: 500 - internal error")


@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_a_create_that_answers_500_after_making_the_job_is_found_not_sent_again(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    sim_port: int,
    clean_pg: str,
    kind: str,
) -> None:
    meddle(monkeypatch, submit=created_then_500)
    toml = judges_toml(sim_port) if kind == "openai" else ANTHROPIC_JUDGE.format(port=sim_port)
    client = await live_factory(settings_factory(toml, **FAST_ROUNDS))
    items = [compare_item(i) for i in range(3)]
    done = await wait_for_batch(client, await submit(client, items), {}, timeout_s=60)

    assert sim_stats(sim_port)[kind]["jobs_created"] == 1  # paid once, not once per lease
    (job,) = done["provider_jobs"]
    assert (job["state"], job["requests"]) == ("ended", 6)
    calls = await stored_calls(clean_pg, done["id"])
    assert [c[8] for c in calls] == [None] * 6
    assert done["status"] == "completed"


async def never_answered(api: BatchApi, requests: Any, metadata: Any) -> ReportedBatchJob:
    raise ProviderCallError("timeout", "Request timed out.")


async def answered_garbage(api: BatchApi, requests: Any, metadata: Any) -> ReportedBatchJob:
    raise OverflowError("timestamp out of range for platform time_t")


@pytest.mark.parametrize("failure", [never_answered, answered_garbage])
async def test_submissions_without_an_outcome_stop_after_three_and_fail_their_calls(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    sim_port: int,
    clean_pg: str,
    failure: Any,
) -> None:
    meddle(monkeypatch, submit=failure)
    client = await live_factory(settings_factory(judges_toml(sim_port), **FAST_ROUNDS))
    items = [compare_item(i) for i in range(2)]
    done = await wait_for_batch(client, await submit(client, items), {}, timeout_s=60)

    jobs = done["provider_jobs"]
    assert [job["state"] for job in jobs] == ["abandoned"] * provider.MAX_UNCLEAR_SUBMISSIONS
    assert sim_stats(sim_port)["openai"]["jobs_created"] == 0
    calls = await stored_calls(clean_pg, done["id"])
    assert [c[8] for c in calls] == ["submit_unclear"] * 4
    assert (done["status"], done["counts"]["failed"]) == ("failed", 2)


FAR = datetime(9999, 12, 31, 23, 0, tzinfo=UTC)


@pytest.mark.parametrize("expires_at", [None, FAR], ids=["no-expiry", "overflowing-expiry"])
async def test_a_job_without_a_usable_expiry_is_polled_only_until_the_limit(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
    sim_port: int,
    clean_pg: str,
    expires_at: datetime | None,
) -> None:
    # A provider that never ends the job and gives no expiry (or one past year 9999 - 1 h).
    async def never_ends(api: BatchApi, job_id: str) -> ReportedBatchJob:
        status = await api.retrieve(job_id)
        return dataclasses.replace(status, ended=False, state="in_progress", expires_at=expires_at)

    async def submitted(api: BatchApi, requests: Any, metadata: Any) -> ReportedBatchJob:
        status = await api.submit(requests, metadata)
        return dataclasses.replace(status, expires_at=expires_at)

    meddle(monkeypatch, submit=submitted, retrieve=never_ends)
    monkeypatch.setattr(provider, "NO_EXPIRY_LIMIT_S", 1.0)
    client = await live_factory(settings_factory(judges_toml(sim_port), **FAST_ROUNDS))
    done = await wait_for_batch(client, await submit(client, [compare_item(0)]), {}, timeout_s=60)

    (job,) = done["provider_jobs"]
    assert (job["state"], job["expires_at"]) == ("ended", None)
    calls = await stored_calls(clean_pg, done["id"])
    assert [c[8] for c in calls] == ["server_error"] * 2
    assert done["status"] == "failed"


def test_the_deadline_never_overflows_and_a_job_without_expiry_has_one() -> None:
    now = datetime(2026, 11, 28, 12, tzinfo=UTC)
    submitted = datetime(2026, 11, 27, 10, tzinfo=UTC)  # 26 hours ago
    assert provider.past_deadline(None, submitted, now)
    assert not provider.past_deadline(None, now, now)
    assert not provider.past_deadline(FAR, submitted, now)
    assert provider.usable_expiry(FAR) is None
