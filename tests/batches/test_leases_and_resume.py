"""Redelivery: a resumed comparison never repeats a stored round and a resumed score session never
asks a stored reviewer again; leases are exclusive and renewed while an item runs; the reconciler
sends again exactly what nobody will run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import timedelta

import pytest
from redis.asyncio import Redis
from sqlalchemy import delete, func, select, update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.auth.keys import ANONYMOUS
from app.batches import leases
from app.batches.models import BatchItem, ItemStatus
from app.batches.queries import list_results
from app.batches.ratelimit import RateLimitNotes
from app.batches.reconciler import reconcile
from app.batches.runner import ItemRunner
from app.batches.schemas import BatchCreate
from app.batches.service import submit
from app.comparisons.schemas import CompareRequest, ComparisonRead
from app.comparisons.service import CompareKind
from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.jobs.kind import Delivery, Services
from app.jobs.lifecycle import run_item
from app.jobs.models import JobStatus
from app.jobs.slots import JudgePool
from app.jobs.writes import GroupCommit
from app.judges.registry import JudgeRegistry
from app.judging.types import SimKnobs
from app.ledger import folder
from app.ledger.models import Comparison, JudgeCall
from app.ledger.rollup_tables import CallRollup
from app.privacy import keeper_for
from app.scoring.models import Score, ScoreCall, ScoreSession
from app.scoring.schemas import ScoreRequest, ScoreSessionRead
from tests.batches.support import compare_item, score_item
from tests.reports.test_rollups import report_pair, rollup_rows
from tests.support.sim import CountingTransport, http_sim_judges_toml


class FakeQueue:
    """Records what is sent; reports the backlog it is told."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.stream_reset = asyncio.Event()
        self.redis: Redis | None = None
        self.rate_limits = RateLimitNotes(None)
        self.lag: int | None = 0

    async def enqueue(self, item_ids: Sequence[str]) -> None:
        self.sent += item_ids

    async def backlog(self) -> int | None:
        return self.lag

    async def live_workers(self) -> int | None:
        return 1


@pytest.fixture
async def services(settings_factory: Callable[..., Settings]) -> AsyncIterator[Services]:
    """The process resources of a worker, with the sim judge behind a counting transport."""
    # A lease of 1 s (renewed every 1/3 s) outlived by 1.2 s judge calls: long enough that a
    # loaded CI machine does not starve the heartbeat, short enough to keep the tests quick.
    settings = settings_factory(http_sim_judges_toml(), batch_lease_s=1.0)
    transport = CountingTransport(SimKnobs(latency_ms=1200))
    engine = create_engine(settings.database_url)
    sessionmaker = create_sessionmaker(engine)
    registry = JudgeRegistry(settings, sessionmaker, lambda _name: transport)
    await registry.start()
    services = worker_services(settings, sessionmaker, registry)
    yield services
    await services.writes.aclose()
    await registry.aclose()
    await engine.dispose()


def worker_services(
    settings: Settings, sessionmaker: async_sessionmaker[AsyncSession], registry: JudgeRegistry
) -> Services:
    """What a worker process runs jobs with."""
    pool, writes = JudgePool(64, 1000), GroupCommit(sessionmaker)
    return Services(settings, sessionmaker, registry, pool, writes, keeper_for(settings, None))


async def run_item_comparison(
    request: CompareRequest, job_id: str, api_key_id: str, services: Services
) -> ComparisonRead:
    """A batch item's comparison, as the worker runs it."""
    answer, _status = await run_item(CompareKind(), request, Delivery(job_id, api_key_id), services)
    assert answer is not None  # no deferral: never waiting
    return answer


async def run_item_score(
    request: ScoreRequest, job_id: str, api_key_id: str, runner: ItemRunner
) -> ScoreSessionRead:
    """A batch item's score session, as the worker runs it."""
    answer, _status = await run_item(
        runner.score, request, Delivery(job_id, api_key_id), runner.services
    )
    assert answer is not None  # no deferral: never waiting
    return answer


def counting(services: Services) -> CountingTransport:
    transport = services.registry.transport_for("http-sim")
    assert isinstance(transport, CountingTransport)
    return transport


async def submitted(services: Services, queue: FakeQueue, count: int) -> list[str]:
    body = BatchCreate.model_validate({"items": [compare_item(i) for i in range(count)]})
    await submit(
        body,
        ANONYMOUS,
        None,
        services.settings,
        services.sessionmaker,
        services.registry,
        queue,
        services.keeper,
    )
    return queue.sent[-count:]


async def test_redelivered_item_resumes_without_asking_a_stored_round_again(
    services: Services,
) -> None:
    request = CompareRequest.model_validate(compare_item(0)["compare"])
    first = await run_item_comparison(request, "c-1", "", services)
    assert (first.id, first.status, counting(services).requests) == ("c-1", "complete", 2)
    async with services.sessionmaker() as session:
        kept = await session.scalar(select(JudgeCall.id).where(JudgeCall.round == 0))
        # A worker killed after round 0 was stored: round 1 is missing, the sweeper closed it.
        await session.execute(delete(JudgeCall).where(JudgeCall.round == 1))
        await session.execute(
            update(Comparison).values(status="failed", error_kind="interrupted", winner=None)
        )
        await session.commit()

    resumed = await run_item_comparison(request, "c-1", "", services)
    assert (resumed.status, resumed.winner, resumed.error_kind) == ("complete", "A", None)
    assert counting(services).requests == 3  # only round 1 was asked
    async with services.sessionmaker() as session:
        calls = list(await session.scalars(select(JudgeCall).order_by(JudgeCall.round)))
    assert [(c.round, c.display_order) for c in calls] == [(0, "AB"), (1, "BA")]
    assert calls[0].id == kept

    again = await run_item_comparison(request, "c-1", "", services)
    assert again == resumed
    assert counting(services).requests == 3  # a finished comparison is only read back


async def test_a_resumed_comparison_leaves_the_rollups_and_is_folded_again_whole(
    services: Services,
) -> None:
    """Folded once it was closed as interrupted with one call, a comparison that a redelivery
    reopens is out of the rollups while it runs again, and is folded with both calls once it
    stops: the rollups stay what a rebuild makes, and the report what regrouping makes."""
    request = CompareRequest.model_validate(compare_item(0)["compare"])
    await run_item_comparison(request, "c-1", "", services)
    async with services.sessionmaker() as session:
        await session.execute(delete(JudgeCall).where(JudgeCall.round == 1))
        await session.execute(
            update(Comparison).values(status="failed", error_kind="interrupted", winner=None)
        )
        await session.commit()
        assert await folder.fold_backlog(session) == 1
    assert await rolled_up_calls(services) == 1

    resumed = await run_item_comparison(request, "c-1", "", services)
    assert resumed.status == "complete"
    assert await rolled_up_calls(services) == 0  # reopened: out of the rollups until folded
    async with services.sessionmaker() as session:
        assert await folder.fold_backlog(session) == 1
    assert await rolled_up_calls(services) == 2
    url = services.settings.database_url
    assert await rollup_rows(url) == await rollup_rows(url, rebuilt=True)
    from_rollups, from_calls = await report_pair(url, since=utcnow() - timedelta(days=1))
    assert from_rollups == from_calls
    assert from_calls["judges"][0]["calls"]["total"] == 2


async def rolled_up_calls(services: Services) -> int:
    async with services.sessionmaker() as session:
        total = await session.scalar(select(func.coalesce(func.sum(CallRollup.calls), 0)))
        return int(total or 0)


async def test_lease_is_exclusive_until_it_expires_and_only_the_holder_finishes(
    services: Services,
) -> None:
    (item,) = await submitted(services, FakeQueue(), 1)
    maker = services.sessionmaker
    first = await leases.claim(maker, item, "worker-a", 30)
    assert first is not None
    assert first.attempts == 1
    assert await leases.claim(maker, item, "worker-b", 30) is None
    assert await leases.renew(maker, first, 30)
    async with maker() as session:
        await session.execute(
            update(BatchItem).values(lease_expires_at=utcnow() - timedelta(seconds=1))
        )
        await session.commit()
    second = await leases.claim(maker, item, "worker-b", 30)
    assert second is not None
    assert second.attempts == 2
    assert not await leases.renew(maker, first, 30)
    assert not await leases.finish(maker, first, ItemStatus.COMPLETED)
    assert await leases.finish(maker, second, ItemStatus.COMPLETED)
    async with maker() as session:
        row = await session.get(BatchItem, item)
    assert row is not None
    assert (row.status, row.payload, row.lease_owner) == (
        "completed",
        None,
        None,
    )


async def test_slow_item_keeps_its_lease_while_it_runs(services: Services) -> None:
    (item,) = await submitted(services, FakeQueue(), 1)
    runner = ItemRunner(services, "worker-a")
    run = asyncio.create_task(runner(item))
    # Judge calls take 1.2 s; the lease is 1 s and renewed every 1/3 s.
    for _ in range(4):
        await asyncio.sleep(0.35)
        assert await leases.claim(services.sessionmaker, item, "worker-b", 1.0) is None
    await run
    async with services.sessionmaker() as session:
        row = await session.get(BatchItem, item)
    assert row is not None
    assert (row.status, row.attempts) == ("completed", 1)
    assert counting(services).requests == 2


async def test_reconciler_sends_again_only_what_nobody_will_run(services: Services) -> None:
    queue = FakeQueue()
    crashed, lost, fresh = await submitted(services, queue, 3)
    maker, settings = services.sessionmaker, services.settings
    claim = await leases.claim(maker, crashed, "killed-worker", 0.01)
    assert claim is not None
    async with maker() as session:
        await session.execute(
            update(BatchItem)
            .where(BatchItem.id == lost)
            .values(enqueued_at=utcnow() - timedelta(seconds=settings.batch_requeue_after_s + 1))
        )
        await session.commit()
    await asyncio.sleep(0.02)

    queue.sent.clear()
    queue.lag = 5  # messages still wait in the stream: the lost one may be among them
    assert await reconcile(maker, queue, settings) == 1
    assert queue.sent == [crashed]

    queue.sent.clear()
    queue.lag = 0
    assert await reconcile(maker, queue, settings) == 1
    assert queue.sent == [lost]

    queue.sent.clear()
    assert await reconcile(maker, queue, settings, stream_lost=True) == 3
    assert sorted(queue.sent) == sorted([crashed, lost, fresh])


TWO_REVIEWERS = """
default_panel = ["fast"]

[[judges]]
name = "fast"
provider = "openai"
model = "sim-fast"
base_url = "http://sim.test/v1"
api_key = "sk-test"

[[judges]]
name = "slow"
provider = "openai"
model = "sim-slow"
base_url = "http://sim.test/v1"
api_key = "sk-test"
"""


@pytest.fixture
async def reviewers(settings_factory: Callable[..., Settings]) -> AsyncIterator[ItemRunner]:
    """A worker's runner with two sim reviewers over HTTP: `fast` answers at once, `slow` in
    0.8 s; each behind its own counting transport."""
    settings = settings_factory(TWO_REVIEWERS, batch_lease_s=0.3)
    transports = {
        "fast": CountingTransport(SimKnobs()),
        "slow": CountingTransport(SimKnobs(latency_ms=800)),
    }
    engine = create_engine(settings.database_url)
    sessionmaker = create_sessionmaker(engine)
    registry = JudgeRegistry(settings, sessionmaker, transports.__getitem__)
    await registry.start()
    runner = ItemRunner(worker_services(settings, sessionmaker, registry), "worker-a")
    yield runner
    await runner.services.writes.aclose()
    await registry.aclose()
    await engine.dispose()


def requests_by_reviewer(runner: ItemRunner) -> dict[str, int]:
    counts = {}
    for name in ("fast", "slow"):
        transport = runner.services.registry.transport_for(name)
        assert isinstance(transport, CountingTransport)
        counts[name] = transport.requests
    return counts


async def test_redelivered_score_item_asks_only_the_reviewers_without_a_stored_call(
    reviewers: ItemRunner,
) -> None:
    scoring = reviewers
    request = ScoreRequest.model_validate(score_item(0, ["fast", "slow"])["score"])
    first = await run_item_score(request, "s-1", "", scoring)
    assert (first.id, first.status) == ("s-1", "complete")
    assert requests_by_reviewer(reviewers) == {"fast": 1, "slow": 1}
    async with scoring.services.sessionmaker() as session:
        kept = await session.scalar(select(ScoreCall.id).where(ScoreCall.judge_name == "fast"))
        # A worker killed before the slow reviewer's call was stored; a read closed the session.
        await session.execute(delete(Score).where(Score.reviewer == "slow"))
        await session.execute(delete(ScoreCall).where(ScoreCall.judge_name == "slow"))
        await session.execute(
            update(ScoreSession).values(status="partial", error_kind="interrupted")
        )
        await session.commit()

    resumed = await run_item_score(request, "s-1", "", scoring)
    assert (resumed.status, resumed.error_kind) == ("complete", None)
    assert requests_by_reviewer(reviewers) == {"fast": 1, "slow": 2}  # only `slow` was asked
    assert [sorted(r.raw) for r in resumed.responses] == [["fast", "slow"]] * 3
    async with scoring.services.sessionmaker() as session:
        calls = list(await session.scalars(select(ScoreCall).order_by(ScoreCall.judge_name)))
    assert [c.judge_name for c in calls] == ["fast", "slow"]
    assert calls[0].id == kept

    again = await run_item_score(request, "s-1", "", scoring)
    assert again == resumed
    assert requests_by_reviewer(reviewers) == {"fast": 1, "slow": 2}  # finished: only read back


async def test_score_item_of_a_killed_worker_is_finished_by_another_without_duplicates(
    reviewers: ItemRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    services, queue = reviewers.services, FakeQueue()
    body = BatchCreate.model_validate({"items": [score_item(0, ["fast", "slow"])]})
    await submit(
        body,
        ANONYMOUS,
        None,
        services.settings,
        services.sessionmaker,
        services.registry,
        queue,
        services.keeper,
    )
    (item,) = queue.sent

    async def killed(_claim: leases.Claim) -> None:
        """SIGKILL hands nothing back: the item stays running under a lease that expires."""

    monkeypatch.setattr(reviewers, "_hand_back", killed)
    doomed = asyncio.create_task(reviewers(item))
    await wait_for_score_call(services.sessionmaker, "fast")  # `slow` is still being asked
    doomed.cancel()
    await asyncio.gather(doomed, return_exceptions=True)
    assert requests_by_reviewer(reviewers) == {"fast": 1, "slow": 1}

    await asyncio.sleep(services.settings.batch_lease_s + 0.05)
    queue.sent.clear()
    assert await reconcile(services.sessionmaker, queue, services.settings) == 1
    assert queue.sent == [item]
    await ItemRunner(services, "worker-b")(item)

    async with services.sessionmaker() as session:
        row = await session.get(BatchItem, item)
        calls = list(await session.scalars(select(ScoreCall).order_by(ScoreCall.judge_name)))
        page = await list_results(
            session, row.batch_id if row else "", limit=10, cursor=None, status=None
        )
    assert row is not None
    assert (row.status, row.attempts, row.lease_owner) == ("completed", 2, None)
    # The slow reviewer's first request died with the worker; `fast` was never asked again.
    assert requests_by_reviewer(reviewers) == {"fast": 1, "slow": 2}
    assert [(c.session_id, c.judge_name) for c in calls] == [
        (row.target_id, "fast"),
        (row.target_id, "slow"),
    ]
    (result,) = page.items
    assert result.score_session is not None
    assert (result.score_session.id, result.score_session.status) == (row.target_id, "complete")


async def test_a_reviewer_call_another_delivery_stored_first_is_kept(
    reviewers: ItemRunner,
) -> None:
    scoring = reviewers
    request = ScoreRequest.model_validate(score_item(0, ["fast", "slow"])["score"])
    running = asyncio.create_task(run_item_score(request, "s-1", "", scoring))
    await wait_for_score_call(scoring.services.sessionmaker, "fast")
    async with scoring.services.sessionmaker() as session:  # a second delivery stores `slow` first
        fast = await session.scalar(select(ScoreCall).where(ScoreCall.judge_name == "fast"))
        assert fast is not None
        first = ScoreCall(
            **{
                column: getattr(fast, column)
                for column in ScoreCall.__table__.columns.keys()
                if column != "id"
            }
        )
        first.judge_name, first.scores, first.error_kind = "slow", None, "server_error"
        session.add(first)
        await session.commit()
        kept = first.id

    answer = await running
    assert answer.status == JobStatus.PARTIAL  # the kept call, which failed, not this delivery's
    async with scoring.services.sessionmaker() as session:
        calls = list(await session.scalars(select(ScoreCall).order_by(ScoreCall.judge_name)))
    assert [(c.judge_name, c.scores is None) for c in calls] == [("fast", False), ("slow", True)]
    assert calls[1].id == kept


async def wait_for_score_call(
    sessionmaker: async_sessionmaker[AsyncSession], reviewer: str
) -> None:
    """Until `reviewer`'s call is stored."""
    for _ in range(200):
        async with sessionmaker() as session:
            if await session.scalar(select(ScoreCall.id).where(ScoreCall.judge_name == reviewer)):
                return
        await asyncio.sleep(0.02)
    raise TimeoutError(f"{reviewer} never stored a call")
