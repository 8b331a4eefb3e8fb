"""Redelivery: a resumed comparison never repeats a stored round; leases are exclusive and
renewed while an item runs; the reconciler sends again exactly what nobody will run."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from datetime import timedelta

import pytest
from redis.asyncio import Redis
from sqlalchemy import delete, select, update

from app.auth.keys import ANONYMOUS
from app.batches import leases
from app.batches.models import BatchItem
from app.batches.reconciler import reconcile
from app.batches.runner import ItemRunner
from app.batches.schemas import BatchCreate
from app.batches.service import submit
from app.comparisons.models import Comparison, JudgeCall
from app.comparisons.pool import JudgePool
from app.comparisons.resume import run_item_comparison
from app.comparisons.schemas import CompareRequest
from app.comparisons.service import Services
from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.judges.registry import JudgeRegistry
from app.judging.types import SimKnobs
from tests.batches.support import compare_item
from tests.support.sim import CountingTransport, http_sim_judges_toml


class FakeQueue:
    """Records what is sent; reports the backlog it is told."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.stream_reset = asyncio.Event()
        self.redis: Redis | None = None
        self.lag: int | None = 0

    async def enqueue(self, item_ids: Sequence[str]) -> None:
        self.sent += item_ids

    async def backlog(self) -> int | None:
        return self.lag


@pytest.fixture
async def services(settings_factory: Callable[..., Settings]) -> AsyncIterator[Services]:
    """The process resources of a worker, with the sim judge behind a counting transport."""
    settings = settings_factory(http_sim_judges_toml(), batch_lease_s=0.3)
    transport = CountingTransport(SimKnobs(latency_ms=450))
    engine = create_engine(settings.database_url)
    sessionmaker = create_sessionmaker(engine)
    registry = JudgeRegistry(settings, sessionmaker, lambda _name: transport)
    await registry.start()
    yield Services(settings, sessionmaker, registry, JudgePool(64, 1000))
    await registry.aclose()
    await engine.dispose()


def counting(services: Services) -> CountingTransport:
    transport = services.registry.transport_for("http-sim")
    assert isinstance(transport, CountingTransport)
    return transport


async def submitted(services: Services, queue: FakeQueue, count: int) -> list[str]:
    body = BatchCreate.model_validate({"items": [compare_item(i) for i in range(count)]})
    await submit(
        body, ANONYMOUS, None, services.settings, services.sessionmaker, services.registry, queue
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


async def test_lease_is_exclusive_until_it_expires_and_only_the_holder_settles(
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
    assert not await leases.settle(maker, first, "completed")
    assert await leases.settle(maker, second, "completed")
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
    # Judge calls take 0.45 s; the lease is 0.3 s and renewed every 0.1 s.
    for _ in range(4):
        await asyncio.sleep(0.15)
        assert await leases.claim(services.sessionmaker, item, "worker-b", 0.3) is None
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
