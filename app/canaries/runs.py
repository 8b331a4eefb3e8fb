"""A canary's runs: claimed once, run as a batch of `canary` comparisons, settled into figures.

A run is a batch (app/batches): the workers run its items when Redis is configured, the API
process otherwise, with the batch's leases, retries and reconciler. Its items are stored with
origin `canary`, so the report, the leaderboard and the labeling queue leave them out unless
asked. Once no item is queued or running, the first process to look settles the run: per judge,
the figures of `app.canaries.stats` and the paired tests against the judge's previous run of the
canary on the items both runs have, and against its baseline run (the first run of its judge
version, or one an admin pinned), so that a slow drift whose every step is too small to flag
still shows. Drift, once flagged, stays set on the judge (`CanaryJudge.drift_run`) until an admin
acknowledges it or pins a baseline. The per-item results are kept with the figures, so a later
run is compared with them even after the comparisons are purged.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any, NamedTuple

import structlog
from pydantic import ValidationError
from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app import metrics
from app.batches.models import Batch, BatchItem
from app.batches.queue import ItemQueue
from app.batches.schemas import BatchItemIn
from app.batches.service import item_rows
from app.canaries import stats
from app.canaries.models import Canary, CanaryItem, CanaryJudge, CanaryRun
from app.comparisons.schemas import CompareRequest
from app.db import utcnow
from app.errors import ValidationProblem
from app.jobs.kind import Services
from app.judges.models import Judge
from app.ledger.models import Comparison, JudgeCall

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


def _batch_item(
    canary: Canary, item: CanaryItem, judges: Sequence[str], number: int
) -> BatchItemIn:
    """The item as a batch item; a 422 when its stored request no longer validates (a limit
    lowered since it was copied, say) rather than a 500."""
    try:
        request = canary_request(canary, item, judges, number)
    except ValidationError as exc:
        reason = exc.errors()[0].get("msg", "invalid") if exc.errors() else "invalid"
        raise ValidationProblem(
            f"canary item {item.position} no longer validates as a compare request: {reason}"
        ) from exc
    return BatchItemIn(item_id=str(item.position), compare=request)


class Due(NamedTuple):
    """A run that is due: of which judges, why, and the key that makes it once."""

    judges: list[str]
    trigger: str  # manual | schedule | version | model
    key: str


async def claim(services: Services, canary: Canary, due: Due) -> tuple[CanaryRun, list[str]] | None:
    """Store a run and its batch, once per (canary, due key): the run and the ids of the items
    to send; None when the key was claimed already or none of its judges is enabled (a
    retired judge is left out of a run: its items would fail for every judge)."""
    async with services.sessionmaker() as session:
        # The canary's row is the lock: its runs are claimed and numbered one at a time.
        await session.execute(select(Canary.id).where(Canary.id == canary.id).with_for_update())
        if await _claimed(session, canary, due.key):
            return None
        judges = await enabled_judges(session, due.judges)
        if not judges:
            log.warning("canary_run_without_judges", canary=canary.name, due=due.key)
            return None
        items = await session.scalars(
            select(CanaryItem)
            .where(CanaryItem.canary_id == canary.id)
            .order_by(CanaryItem.position)
        )
        try:
            return await _insert_run(
                session, canary, list(items), due._replace(judges=judges), services
            )
        except IntegrityError:  # SQLite takes no row lock: a concurrent claim won the key
            await session.rollback()
            if await _claimed(session, canary, due.key):
                return None
            raise


async def _claimed(session: AsyncSession, canary: Canary, key: str) -> bool:
    found = await session.scalar(
        select(CanaryRun.id).where(CanaryRun.canary_id == canary.id, CanaryRun.due_key == key)
    )
    return found is not None


async def enabled_judges(session: AsyncSession, names: Sequence[str]) -> list[str]:
    """The names of enabled judges among `names`, in their order."""
    enabled = set(
        await session.scalars(select(Judge.name).where(Judge.name.in_(names), Judge.enabled))
    )
    return [name for name in names if name in enabled]


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
    requests = [_batch_item(canary, item, due.judges, number) for item in items]
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
    await session.flush()  # the unique (canary, due key) decides before the batch is written
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
    metrics.CANARY_RUNS.labels(due.trigger).inc()
    return run


# Settling


async def settle(session: AsyncSession, run: CanaryRun, min_effect: float) -> bool:
    """Compute and store the figures of a run whose items all finished; whether it is settled.

    Runs settle in their order: a run waits while an earlier run of the canary is unsettled, so
    that each is paired with the run before it. Two processes settling one run take turns on
    its row; the second finds it settled.
    """
    if run.finished_at is not None:
        return True
    if await _waiting(session, run):
        return False
    locked = select(CanaryRun.finished_at).where(CanaryRun.id == run.id).with_for_update()
    if await session.scalar(locked) is not None:
        await session.commit()
        await session.refresh(run)
        return True
    current = await _item_results(session, run)
    versions = await _run_versions(session, run)
    states = await session.scalars(
        select(CanaryJudge).where(
            CanaryJudge.canary_id == run.canary_id, CanaryJudge.judge.in_(run.judges)
        )
    )
    by_judge = {state.judge: state for state in states}
    figures: dict[str, Any] = {}
    changes: dict[str, dict[str, Any]] = {}
    for judge in run.judges:
        state = by_judge.get(judge) or CanaryJudge(judge=judge, baseline_pinned=False)
        figures[judge], changes[judge] = await _judge_figures(
            session, run, state, current[judge], versions.get(judge), min_effect
        )
    await session.execute(
        update(CanaryRun)
        .where(CanaryRun.id == run.id)
        .values(figures=figures, item_results=current, finished_at=utcnow())
        .execution_options(synchronize_session=False)
    )
    for judge, values in changes.items():
        await session.execute(
            update(CanaryJudge)
            .where(CanaryJudge.canary_id == run.canary_id, CanaryJudge.judge == judge)
            .values(**values)
            .execution_options(synchronize_session=False)
        )
    await session.commit()
    await session.refresh(run)
    return True


async def settle_all(
    session: AsyncSession, min_effect: float, canary_id: str | None = None
) -> None:
    """Settle the unsettled runs (of one canary, or all) whose items finished, oldest first."""
    query = select(CanaryRun).where(CanaryRun.finished_at.is_(None))
    if canary_id is not None:
        query = query.where(CanaryRun.canary_id == canary_id)
    for run in list(await session.scalars(query.order_by(CanaryRun.canary_id, CanaryRun.number))):
        await settle(session, run, min_effect)


async def has_open_run(session: AsyncSession, canary: Canary) -> bool:
    """Whether a run of the canary is not settled yet."""
    found = await session.scalar(
        select(CanaryRun.id)
        .where(CanaryRun.canary_id == canary.id, CanaryRun.finished_at.is_(None))
        .limit(1)
    )
    return found is not None


async def _waiting(session: AsyncSession, run: CanaryRun) -> bool:
    """Whether the run's items are still running, or an earlier run is unsettled."""
    unfinished = await session.scalar(
        select(func.count())
        .select_from(BatchItem)
        .where(BatchItem.batch_id == run.batch_id, BatchItem.status.in_(_UNFINISHED))
    )
    earlier = await session.scalar(
        select(func.count()).where(
            CanaryRun.canary_id == run.canary_id,
            CanaryRun.number < run.number,
            CanaryRun.finished_at.is_(None),
        )
    )
    return bool(unfinished or earlier)


async def _judge_figures(
    session: AsyncSession,
    run: CanaryRun,
    state: CanaryJudge,
    items: list[StoredItem],
    version: int | None,
    min_effect: float,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """One judge's figures in the run and the paired tests against its previous run and its
    baseline; and the judge's new state: its latest run, its baseline (this run, when it is the
    first of a judge version) and its drift flag, which stays set once raised."""
    current = _results(items)
    entry: dict[str, Any] = {"summary": asdict(stats.summarize(current)), "version": version}
    values: dict[str, Any] = {"last_run": run.number}
    previous, baseline = state.last_run, state.baseline_run
    if baseline is None or version != state.baseline_version:
        baseline = None  # a new judge version (or none yet): this run is its baseline
        values |= {"baseline_run": run.number, "baseline_version": version}
        values["baseline_pinned"] = False
    entry["baseline_run"] = baseline if baseline is not None else run.number
    # A baseline that is the previous run is compared with once, as the previous run.
    separate = baseline if baseline != previous else None
    before = await _stored_results(session, run.canary_id, state.judge, previous)
    since = await _stored_results(session, run.canary_id, state.judge, separate)
    drift, from_baseline = stats.compare_with(current, before, since, min_effect)
    if drift is not None:
        entry["previous_run"] = previous
        entry["drift"] = asdict(drift)
    if from_baseline is not None:
        entry["baseline_drift"] = asdict(from_baseline)
    compared = [d for d in (drift, from_baseline) if d is not None]
    flagged = any(d.drift for d in compared) if compared else None
    entry["flagged"] = flagged
    values["last_drift"] = flagged
    if flagged and state.drift_run is None:
        values["drift_run"] = run.number
    return entry, values


async def _stored_results(
    session: AsyncSession, canary_id: str, judge: str, number: int | None
) -> list[stats.ItemResult] | None:
    """A settled run's per-item results of one judge; None for no run."""
    if number is None:
        return None
    stored = await session.scalar(
        select(CanaryRun.item_results).where(
            CanaryRun.canary_id == canary_id, CanaryRun.number == number
        )
    )
    return _results((stored or {}).get(judge, []))


async def _run_versions(session: AsyncSession, run: CanaryRun) -> dict[str, int]:
    """Per judge, the judge version of the run's calls (the newest, should a PATCH have landed
    while the run ran)."""
    rows = await session.execute(
        select(JudgeCall.judge_name, func.max(JudgeCall.judge_version))
        .join(BatchItem, BatchItem.target_id == JudgeCall.comparison_id)
        .where(BatchItem.batch_id == run.batch_id)
        .group_by(JudgeCall.judge_name)
    )
    return {judge: int(version) for judge, version in rows}


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
    """A run asked for now (its due key is new, so it is claimed unless no judge is enabled)."""
    due = Due(list(judges), "manual", f"manual:{uuid.uuid4()}")
    run = await start(services, queue, canary, due)
    if run is None:
        raise ValidationProblem("/judges: none of the run's judges is enabled")
    return run
