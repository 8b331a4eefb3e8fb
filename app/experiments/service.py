"""Experiments: store one, judge its items through the batch queue, read where it stands.

An item experiment is a batch of compare items, each tagged with the experiment: the workers,
leases, retries and exactly-once of batches hold unchanged, and each item asks, before it spends
calls, whether its experiment is still undecided (app/batches/runner.py). The items go in a
seeded random order with the baseline shown as A or B at random, so the sequence of outcomes is
exchangeable and no slot carries the candidate throughout.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import sequential
from app.auth.keys import Principal
from app.batches import queries as batch_queries
from app.batches import service as batches
from app.batches.queue import ItemQueue
from app.batches.schemas import BatchCounts, BatchCreate, BatchItemIn
from app.comparisons.schemas import CompareRequest
from app.config import Settings
from app.db import utcnow
from app.errors import Conflict, NotFound, ValidationProblem
from app.experiments.schemas import (
    ExperimentCreate,
    ExperimentItemIn,
    ExperimentRead,
    ExperimentWinRate,
)
from app.jobs.schemas import ResponseIn
from app.judges.registry import JudgeRegistry
from app.ledger import experiments
from app.ledger.experiments import Experiment, ExperimentStatus
from app.privacy import TextKeeper

Sessionmaker = async_sessionmaker[AsyncSession]
LIST_LIMIT = 200


class ExperimentExists(Conflict):
    slug, title = "experiment-exists", "An experiment of this name exists"


async def create(
    body: ExperimentCreate,
    principal: Principal,
    settings: Settings,
    sessionmaker: Sessionmaker,
    registry: JudgeRegistry,
    queue: ItemQueue,
    keeper: TextKeeper,
) -> ExperimentRead:
    """Store the experiment, then (with items) its batch; 409 when the name is taken."""
    if body.baseline == body.candidate:
        raise ValidationProblem("/candidate: the candidate must differ from the baseline")
    experiment = Experiment(
        id=str(uuid.uuid4()),
        name=body.name,
        tag_value=keeper.token(body.name),
        created_at=utcnow(),
        api_key_id=principal.key_id,
        baseline=body.baseline,
        candidate=body.candidate,
        judges=body.judges,
        protocol=body.protocol.model_dump(exclude_none=True),
        alpha=body.alpha,
        margin=body.margin,
        seed=body.seed,
        status=ExperimentStatus.RUNNING,
    )
    # Items are built before anything is stored: a bad item is a 422 that leaves no trace.
    items = batch_items(body) if body.items else None
    async with sessionmaker() as session:
        session.add(experiment)
        try:
            await session.commit()
        except IntegrityError as exc:
            raise ExperimentExists(f"an experiment named {body.name!r} exists") from exc
    if items is not None:
        try:
            outcome = await batches.submit(
                BatchCreate(items=items),
                principal,
                None,
                settings,
                sessionmaker,
                registry,
                queue,
                keeper,
            )
        except BaseException:
            async with sessionmaker() as session:
                await session.execute(delete(Experiment).where(Experiment.id == experiment.id))
                await session.commit()
            raise
        experiment.batch_id = outcome.batch.id
        async with sessionmaker() as session:
            await session.execute(
                update(Experiment)
                .where(Experiment.id == experiment.id)
                .values(batch_id=experiment.batch_id)
            )
            await session.commit()
    async with sessionmaker() as session:
        return await read(session, await stored(session, body.name))


def batch_items(body: ExperimentCreate) -> list[BatchItemIn]:
    """The items as compare items, in a seeded random order, the candidate's slot drawn per
    item; `item_id` is the item's position in the request."""
    assert body.items is not None
    draw = random.Random(body.seed)
    order = list(range(len(body.items)))
    draw.shuffle(order)
    return [
        BatchItemIn(item_id=str(i), compare=_request(body, i, body.items[i], draw.random() < 0.5))
        for i in order
    ]


def _request(
    body: ExperimentCreate, index: int, item: ExperimentItemIn, candidate_first: bool
) -> CompareRequest:
    baseline = _as_model(item.baseline, body.baseline, f"/items/{index}/baseline")
    candidate = _as_model(item.candidate, body.candidate, f"/items/{index}/candidate")
    a, b = (candidate, baseline) if candidate_first else (baseline, candidate)
    return CompareRequest(
        prompt=item.prompt,
        response_a=a,
        response_b=b,
        judges=body.judges,
        protocol=body.protocol,
        experiment=body.name,
    )


def _as_model(response: ResponseIn, model: str, pointer: str) -> ResponseIn:
    """The response marked as `model`'s; 422 when it names another model."""
    if response.model is not None and response.model != model:
        raise ValidationProblem(f"{pointer}/model: must be {model!r} (or left out)")
    return response.model_copy(update={"model": model})


async def stored(session: AsyncSession, name: str) -> Experiment:
    """The experiment of that name; 404 when there is none."""
    experiment = await experiments.find(session, name)
    if experiment is None:
        raise NotFound(f"no experiment named {name!r}")
    return experiment


async def read(session: AsyncSession, experiment: Experiment) -> ExperimentRead:
    """Where the experiment stands now (storing a decision or exhaustion the first time it
    shows)."""
    standing = await experiments.evaluate(session, experiment)
    counts = await _item_counts(session, experiment)
    if counts is not None and counts.queued + counts.running + counts.waiting == 0:
        await _mark_exhausted(session, experiment)
    calls = await experiments.calls(session, experiment)
    outcomes = standing.outcomes
    judged = counts.completed + counts.failed if counts is not None else None
    left = None if counts is None or judged is None else experiment_items(counts) - judged
    return ExperimentRead(
        name=experiment.name,
        status=ExperimentStatus(experiment.status),
        decision=experiment.decision,
        decided_after=experiment.decided_after,
        baseline=experiment.baseline,
        candidate=experiment.candidate,
        alpha=experiment.alpha,
        margin=experiment.margin,
        win_rate=win_rate(outcomes),
        comparisons=len(outcomes),
        calls=calls,
        items=experiment_items(counts) if counts is not None else None,
        items_judged=judged,
        items_left=left,
        calls_saved=_saved(calls, len(outcomes), left),
        batch_id=experiment.batch_id,
        created_at=experiment.created_at,
        decided_at=experiment.decided_at,
    )


def experiment_items(counts: BatchCounts) -> int:
    """Every item of the experiment's batch, whatever its status."""
    return sum(counts.model_dump().values())


def win_rate(outcomes: list[float]) -> ExperimentWinRate | None:
    """The candidate's win rate with the sequence's interval and the fixed-sample one."""
    sequence = sequential.confidence_sequence(outcomes, 0.05)
    if sequence is None:
        return None
    fixed = sequential.fixed_interval(outcomes, 0.05) or sequential.Interval(0.0, 1.0)
    return ExperimentWinRate(
        value=sum(outcomes) / len(outcomes),
        cs95=(sequence.lower, sequence.upper),
        ci95=(fixed.lower, fixed.upper),
    )


def _saved(calls: int, comparisons: int, left: int | None) -> int | None:
    """The calls the items left would have cost, at the mean calls of a judged comparison."""
    if left is None:
        return None
    if comparisons == 0:
        return 0
    return round(left * calls / comparisons)


async def _item_counts(session: AsyncSession, experiment: Experiment) -> BatchCounts | None:
    if experiment.batch_id is None:
        return None
    batch = await batch_queries.stored_batch(session, experiment.batch_id)
    return (await batch_queries.read_batch(session, batch)).counts


async def _mark_exhausted(session: AsyncSession, experiment: Experiment) -> None:
    if experiment.status != ExperimentStatus.RUNNING:
        return
    await session.execute(
        update(Experiment)
        .where(Experiment.id == experiment.id, Experiment.status == ExperimentStatus.RUNNING)
        .values(status=ExperimentStatus.EXHAUSTED)
    )
    await session.commit()
    experiment.status = ExperimentStatus.EXHAUSTED


async def list_experiments(session: AsyncSession) -> list[ExperimentRead]:
    """The newest experiments first (at most `LIST_LIMIT`)."""
    rows: Sequence[Experiment] = (
        await session.scalars(
            select(Experiment).order_by(Experiment.created_at.desc()).limit(LIST_LIMIT)
        )
    ).all()
    return [await read(session, row) for row in rows]


async def cancel(session: AsyncSession, name: str, settings: Settings) -> ExperimentRead:
    """Stop the experiment: no more comparisons join it, and its items not started are
    cancelled. A decided or exhausted experiment stays as it is."""
    experiment = await stored(session, name)
    await session.execute(
        update(Experiment)
        .where(Experiment.id == experiment.id, Experiment.status == ExperimentStatus.RUNNING)
        .values(status=ExperimentStatus.CANCELLED)
    )
    await session.commit()
    await session.refresh(experiment)
    if experiment.batch_id is not None:
        await batches.cancel(session, experiment.batch_id, settings)
    return await read(session, experiment)
