"""A canary's runs: claimed once, run as a batch of `canary` comparisons, settled into figures.

A run is a batch (app/batches): the workers run its items when Redis is configured, the API
process otherwise, with the batch's leases, retries and reconciler. Its items are stored with
origin `canary`, so the report, the leaderboard and the labeling queue leave them out unless
asked. Once no item is queued or running, the first process to look settles the run: per judge,
the figures of `app.canaries.stats` and the paired tests against the judge's previous run of the
canary, on the items both runs have. The per-item results are kept with the figures, so a later
run is compared with them even after the comparisons are purged.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, NamedTuple

import structlog
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.batches.models import Batch, BatchItem
from app.batches.queue import ItemQueue
from app.batches.schemas import BatchItemIn
from app.batches.service import item_rows
from app.canaries import stats
from app.canaries.models import Canary, CanaryItem, CanaryRun
from app.comparisons.models import Comparison, JudgeCall
from app.comparisons.schemas import CompareRequest
from app.db import utcnow
from app.jobs.lifecycle import Services

log = structlog.get_logger()
_UNFINISHED = ("queued", "running")
# (position, gold, round-0 winner, round-1 winner, round-0 pick, round-1 pick, verdict)
StoredItem = list[Any]


def canary_request(canary: Canary, item: CanaryItem, judges: Sequence[str], number: int) -> Any:
    """The compare request of one canary item: both orders (swap), every judge kept even when
    it shares a response's family (the canary measures the judge, not the panel)."""
    return CompareRequest.model_validate(
        {
            "prompt": item.prompt,
            "response_a": {"text": item.response_a, "model": item.model_a, "family": item.family_a},
            "response_b": {"text": item.response_b, "model": item.model_b, "family": item.family_b},
            "criteria": item.criteria,
            "reference": item.reference,
            "judges": list(judges),
            "protocol": {"kind": "swap"},
            "tags": {"fairpair:canary": canary.name, "fairpair:canary-run": str(number)},
            "self_preference": "allow",
        }
    )


class Due(NamedTuple):
    """A run that is due: of which judges, why, and the key that makes it once."""

    judges: list[str]
    trigger: str  # manual | schedule | version | model
    key: str


async def claim(services: Services, canary: Canary, due: Due) -> tuple[CanaryRun, list[str]] | None:
    """Store a run and its batch, once per (canary, due key): the run and the ids of the items
    to send, or None when another process claimed that due key first."""
    sessionmaker = services.sessionmaker
    async with sessionmaker() as session:
        items = list(
            await session.scalars(
                select(CanaryItem)
                .where(CanaryItem.canary_id == canary.id)
                .order_by(CanaryItem.position)
            )
        )
    for _attempt in range(5):
        async with sessionmaker() as session:
            try:
                return await _insert_run(session, canary, items, due, services)
            except IntegrityError:
                await session.rollback()
                taken = await session.scalar(
                    select(CanaryRun.id).where(
                        CanaryRun.canary_id == canary.id, CanaryRun.due_key == due.key
                    )
                )
                if taken is not None:
                    return None
                # Another run took the same number meanwhile: number again.
    raise RuntimeError("could not number a canary run after 5 attempts")


async def _insert_run(
    session: AsyncSession,
    canary: Canary,
    items: Sequence[CanaryItem],
    due: Due,
    services: Services,
) -> tuple[CanaryRun, list[str]]:
    last = await session.scalar(
        select(func.max(CanaryRun.number)).where(CanaryRun.canary_id == canary.id)
    )
    number = (last or 0) + 1
    requests = [
        BatchItemIn(item_id=str(i.position), compare=canary_request(canary, i, due.judges, number))
        for i in items
    ]
    now = utcnow()
    batch = Batch(
        id=str(uuid.uuid4()),
        created_at=now,
        api_key_id=canary.api_key_id,
        idempotency_key=None,
        # No Idempotency-Key: the run's unique due key is what makes it once.
        request_hash=hashlib.sha256(due.key.encode()).hexdigest(),
        item_count=len(requests),
    )
    run = CanaryRun(
        id=str(uuid.uuid4()),
        canary_id=canary.id,
        number=number,
        trigger=due.trigger,
        due_key=due.key,
        judges=due.judges,
        created_at=now,
        batch_id=batch.id,
    )
    session.add(run)
    session.add(batch)
    await session.flush()  # the unique (canary, due key) decides here, before the batch is written
    rows = [
        {**row, "origin": "canary"}
        for row in item_rows(batch.id, requests, services.settings, services.keeper)
    ]
    if rows:
        await session.execute(insert(BatchItem), rows)
    await session.commit()
    return run, [row["id"] for row in rows]


async def start(services: Services, queue: ItemQueue, canary: Canary, due: Due) -> CanaryRun | None:
    """Claim a run and send its items; None when it was claimed elsewhere. Items the queue
    could not send stay queued: the batches' reconciler sends them again."""
    claimed = await claim(services, canary, due)
    if claimed is None:
        return None
    run, item_ids = claimed
    await queue.enqueue(item_ids)
    log.info("canary_run_started", canary=canary.name, run=run.number, trigger=due.trigger)
    return run


# Settling


async def settle(session: AsyncSession, run: CanaryRun, min_effect: float) -> bool:
    """Compute and store the figures of a run whose items all finished; whether it is settled.
    Idempotent: two processes settling at once compute the same figures, and the first write
    wins."""
    if run.finished_at is not None:
        return True
    unfinished = await session.scalar(
        select(func.count())
        .select_from(BatchItem)
        .where(BatchItem.batch_id == run.batch_id, BatchItem.status.in_(_UNFINISHED))
    )
    if unfinished:
        return False
    figures = await _figures(session, run, min_effect)
    await session.execute(
        update(CanaryRun)
        .where(CanaryRun.id == run.id, CanaryRun.finished_at.is_(None))
        .values(figures=figures, finished_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    await session.commit()
    await session.refresh(run)
    return True


async def _figures(session: AsyncSession, run: CanaryRun, min_effect: float) -> dict[str, Any]:
    current = await _item_results(session, run)
    figures: dict[str, Any] = {}
    for judge in run.judges:
        items = current.get(judge, [])
        entry: dict[str, Any] = {
            "items": items,
            "summary": asdict(stats.summarize(_results(items))),
        }
        previous = await previous_run(session, run, judge)
        if previous is not None:
            before = _results(previous.figures[judge]["items"])  # type: ignore[index]
            entry["previous_run"] = previous.number
            entry["drift"] = asdict(stats.compare_runs(before, _results(items), min_effect))
        figures[judge] = entry
    return figures


async def previous_run(session: AsyncSession, run: CanaryRun, judge: str) -> CanaryRun | None:
    """The judge's latest settled run of the canary before this one."""
    earlier = await session.scalars(
        select(CanaryRun)
        .where(
            CanaryRun.canary_id == run.canary_id,
            CanaryRun.number < run.number,
            CanaryRun.finished_at.is_not(None),
        )
        .order_by(CanaryRun.number.desc())
    )
    for candidate in earlier:
        if candidate.figures and judge in candidate.figures:
            return candidate
    return None


def _results(items: Sequence[StoredItem]) -> list[stats.ItemResult]:
    return [
        stats.ItemResult(str(pos), gold, (w0, w1), (p0, p1), verdict)
        for pos, gold, w0, w1, p0, p1, verdict in items
    ]


async def _item_results(session: AsyncSession, run: CanaryRun) -> dict[str, list[StoredItem]]:
    """Per judge, per item of the run (by canary position): gold, the design calls' mapped
    winners and picks by round, and the judge's verdict."""
    items = (
        await session.execute(
            select(
                BatchItem.position, BatchItem.target_id, CanaryItem.gold, Comparison.judge_results
            )
            .join(
                CanaryItem,
                (CanaryItem.canary_id == run.canary_id)
                & (CanaryItem.position == BatchItem.position),
            )
            .outerjoin(Comparison, Comparison.id == BatchItem.target_id)
            .where(BatchItem.batch_id == run.batch_id)
            .order_by(BatchItem.position)
        )
    ).all()
    calls = await session.execute(
        select(
            JudgeCall.comparison_id,
            JudgeCall.judge_name,
            JudgeCall.round,
            JudgeCall.mapped_winner,
            JudgeCall.pick,
        )
        .join(BatchItem, BatchItem.target_id == JudgeCall.comparison_id)
        .where(BatchItem.batch_id == run.batch_id, JudgeCall.design, JudgeCall.round.in_((0, 1)))
    )
    by_call: dict[tuple[str, str, int], tuple[str | None, str | None]] = {
        (cid, judge, rnd): (winner, pick) for cid, judge, rnd, winner, pick in calls
    }
    results: dict[str, list[StoredItem]] = {judge: [] for judge in run.judges}
    for position, target, gold, judge_results in items:
        for judge in run.judges:
            w0, p0 = by_call.get((target, judge, 0), (None, None))
            w1, p1 = by_call.get((target, judge, 1), (None, None))
            verdict = ((judge_results or {}).get(judge) or {}).get("winner")
            results[judge].append([position, gold, w0, w1, p0, p1, verdict])
    return results


async def start_manual(
    services: Services, queue: ItemQueue, canary: Canary, judges: Sequence[str]
) -> CanaryRun:
    """A run asked for now (its due key is new, so it is always claimed)."""
    run = await start(
        services, queue, canary, Due(list(judges), "manual", f"manual:{uuid.uuid4()}")
    )
    assert run is not None
    return run
