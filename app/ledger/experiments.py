"""Experiments: a named run of comparisons between a baseline and a candidate model that stops
paying once it is decided (issue 41).

An experiment is a view of the ledger: its comparisons carry the tag `fairpair:experiment` with
its name (set from the compare request's `experiment` field, never by hand), and its standing is
read from their verdicts in the order they completed. It lives here, below the job kinds, because
both the comparison kind (which refuses a comparison whose models are not the experiment's) and
the batch runner (which skips an item once its experiment is decided) read it.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Float,
    Integer,
    Select,
    String,
    and_,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from app import metrics, sequential
from app.db import Base, JSONType, UTCDateTime, utcnow
from app.errors import ValidationProblem
from app.ledger.models import Comparison, ComparisonTag, JudgeCall

EXPERIMENT_TAG = "fairpair:experiment"
# A verdict as the candidate's outcome: a win, a tie (one half) or a loss.
_CANDIDATE_WINS = {"candidate": 1.0, "tie": 0.5, "baseline": 0.0}


class ExperimentStatus(StrEnum):
    """`running` until decided, out of items (`exhausted`) or cancelled."""

    RUNNING = "running"
    DECIDED = "decided"
    EXHAUSTED = "exhausted"
    CANCELLED = "cancelled"


class Decision(StrEnum):
    """What the confidence sequence settled."""

    CANDIDATE_BETTER = "candidate_better"
    BASELINE_BETTER = "baseline_better"
    EQUIVALENT = "equivalent"


class Experiment(Base):
    """A named A/B experiment: what it compares, at what level, and where it stands."""

    __tablename__ = "experiments"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    # The `fairpair:experiment` tag's value as the ledger stores it: the name, or in privacy
    # mode its token (the kernel stores every tag value through the text keeper).
    tag_value: Mapped[str] = mapped_column(String(256))
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    api_key_id: Mapped[str] = mapped_column(String(32), default="")
    baseline: Mapped[str] = mapped_column(String(200))
    candidate: Mapped[str] = mapped_column(String(200))
    # The compare request's `judges` and `protocol` for its items (null: the default panel).
    judges: Mapped[list[str] | None] = mapped_column(JSONType, nullable=True)
    protocol: Mapped[dict[str, Any]] = mapped_column(JSONType)
    alpha: Mapped[float] = mapped_column(Float)
    margin: Mapped[float] = mapped_column(Float)
    seed: Mapped[int] = mapped_column(Integer)
    # The batch that judges its items; null for a streaming experiment.
    batch_id: Mapped[str | None] = mapped_column(String(36), nullable=True)
    status: Mapped[str] = mapped_column(String(16))  # an `ExperimentStatus`
    decision: Mapped[str | None] = mapped_column(String(20), nullable=True)  # a `Decision`
    decided_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # How many comparisons the decision rested on (later ones narrow the interval, never move it).
    decided_after: Mapped[int | None] = mapped_column(Integer, nullable=True)


@dataclass(frozen=True)
class Standing:
    """Where an experiment's sequence stands now: its outcomes and the interval they give."""

    outcomes: list[float]
    interval: sequential.Interval | None


async def find(session: AsyncSession, name: str) -> Experiment | None:
    """The experiment of that name, if any."""
    return await session.scalar(select(Experiment).where(Experiment.name == name))


async def check_member(
    session: AsyncSession, name: str, model_a: str | None, model_b: str | None
) -> None:
    """422 unless `name` is an experiment that is not cancelled and the two responses come from
    its baseline and candidate (in either slot)."""
    experiment = await find(session, name)
    if experiment is None:
        raise ValidationProblem(f"/experiment: no experiment named {name!r}")
    if experiment.status == ExperimentStatus.CANCELLED:
        raise ValidationProblem(f"/experiment: experiment {name!r} is cancelled")
    if {model_a, model_b} != {experiment.baseline, experiment.candidate}:
        raise ValidationProblem(
            f"/experiment: experiment {name!r} compares {experiment.baseline!r} with "
            f"{experiment.candidate!r}; response_a.model and response_b.model must be those two"
        )


def _members(experiment: Experiment) -> list[ColumnElement[bool]]:
    """The experiment's decided comparisons (joined through their tag)."""
    return [
        ComparisonTag.key == EXPERIMENT_TAG,
        ComparisonTag.value == experiment.tag_value,
        Comparison.winner.is_not(None),
        Comparison.completed_at.is_not(None),
    ]


def _outcome_rows(
    experiment: Experiment, *after: ColumnElement[bool]
) -> Select[datetime | None, str, str | None, bool]:
    """Completion time, id and the candidate's outcome of each decided comparison, in the order
    they completed (`after`: only those past a mark)."""
    candidate_slot = Comparison.model_a == experiment.candidate
    return (
        select(Comparison.completed_at, Comparison.id, Comparison.winner, candidate_slot)
        .join(ComparisonTag, ComparisonTag.comparison_id == Comparison.id)
        .where(*_members(experiment), *after)
        .order_by(Comparison.completed_at, Comparison.id)
    )


def _outcome(winner: str | None, candidate_is_a: bool) -> float:
    return _CANDIDATE_WINS[_side(winner, candidate_is_a)]


async def outcomes(session: AsyncSession, experiment: Experiment) -> list[float]:
    """The candidate's outcome (1 win, 0.5 tie, 0 loss) in each decided comparison of the
    experiment, in the order they completed."""
    rows = await session.execute(_outcome_rows(experiment))
    return [_outcome(winner, bool(is_a)) for _, _, winner, is_a in rows]


def _side(winner: str | None, candidate_is_a: bool) -> str:
    if winner == "tie":
        return "tie"
    return "candidate" if (winner == "A") == candidate_is_a else "baseline"


async def evaluate(session: AsyncSession, experiment: Experiment) -> Standing:
    """Read the experiment's sequence and, the first time it decides, store the decision (a
    decision is never taken back: the sequence's guarantee holds at the first crossing)."""
    seen = await outcomes(session, experiment)
    path = sequential.decision_path(seen, experiment.alpha, experiment.margin)
    await _settle(session, experiment, path)
    return Standing(seen, path.interval)


async def _settle(
    session: AsyncSession, experiment: Experiment, path: sequential.DecisionPath
) -> None:
    if experiment.status == ExperimentStatus.RUNNING and path.decision is not None:
        await _store_decision(session, experiment, Decision(path.decision), path.decided_after)


@dataclass
class _Running:
    """One experiment's sequence as far as this process has read it."""

    decider: sequential.Decider
    read: int = 0  # outcomes taken, in completion order
    mark: tuple[datetime, str] | None = None  # (completed_at, id) of the last one


class RunningSequences:
    """Each running experiment's sequence, kept by one process (the batch runner's), so that an
    item start reads only the outcomes completed since the last one instead of all of them.

    Exact, not approximate: the outcomes read past the mark are appended in completion order,
    and the count of all decided comparisons must equal what was read plus them; when it does
    not (a comparison committed after a later-completed one was read: several workers, or the
    API's streaming), the sequence is read again from the start, as `evaluate` reads it. So the
    decision is always the one a full read in completion order gives. One lock per experiment
    keeps a process's concurrent items from taking the same outcomes twice."""

    def __init__(self) -> None:
        self._states: dict[str, _Running] = {}
        self._locks: dict[str, asyncio.Lock] = {}

    def forget(self, experiment_id: str) -> None:
        """Drop a finished experiment's state."""
        self._states.pop(experiment_id, None)
        self._locks.pop(experiment_id, None)

    async def path(self, session: AsyncSession, experiment: Experiment) -> sequential.DecisionPath:
        """The experiment's decision path over every decided comparison so far."""
        lock = self._locks.setdefault(experiment.id, asyncio.Lock())
        async with lock:
            state = self._states.get(experiment.id)
            after = [] if state is None or state.mark is None else [_past(*state.mark)]
            rows = (await session.execute(_outcome_rows(experiment, *after))).all()
            total = await session.scalar(
                select(func.count())
                .select_from(Comparison)
                .join(ComparisonTag, ComparisonTag.comparison_id == Comparison.id)
                .where(*_members(experiment))
            )
            if state is None or state.read + len(rows) != total:
                state = _Running(sequential.Decider(experiment.alpha, experiment.margin))
                if after:  # something committed behind the mark: read all again
                    rows = (await session.execute(_outcome_rows(experiment))).all()
            for completed_at, comparison_id, winner, is_a in rows:
                assert completed_at is not None  # _members keeps completed comparisons only
                state.decider.update(_outcome(winner, bool(is_a)))
                state.read += 1
                state.mark = (completed_at, comparison_id)
            self._states[experiment.id] = state
            return state.decider.path()


def _past(completed_at: datetime, comparison_id: str) -> ColumnElement[bool]:
    """Comparisons after (completed_at, id) in completion order."""
    return or_(
        Comparison.completed_at > completed_at,
        and_(Comparison.completed_at == completed_at, Comparison.id > comparison_id),
    )


async def _store_decision(
    session: AsyncSession, experiment: Experiment, decision: Decision, after: int | None
) -> None:
    stored = await session.execute(
        update(Experiment)
        .where(Experiment.id == experiment.id, Experiment.status == ExperimentStatus.RUNNING)
        .values(
            status=ExperimentStatus.DECIDED,
            decision=decision,
            decided_at=utcnow(),
            decided_after=after,
        )
        .execution_options(synchronize_session=False)
    )
    await session.commit()
    if not stored.rowcount:  # type: ignore[attr-defined]
        await session.refresh(experiment)  # another process stored it (or cancelled) first
        return
    experiment.status, experiment.decision = ExperimentStatus.DECIDED, decision
    experiment.decided_after = after
    metrics.record_experiment_decision(experiment.name, decision, await calls(session, experiment))


async def stopped(
    session: AsyncSession, name: str, sequences: RunningSequences | None = None
) -> bool:
    """Whether the experiment no longer wants comparisons (decided, cancelled or gone): what a
    batch item of the experiment asks before it spends calls. With `sequences`, the sequence is
    carried on from this process's last read rather than read whole."""
    experiment = await find(session, name)
    if experiment is None or experiment.status == ExperimentStatus.CANCELLED:
        return True
    if experiment.status == ExperimentStatus.RUNNING:
        if sequences is None:
            await evaluate(session, experiment)
        else:
            await _settle(session, experiment, await sequences.path(session, experiment))
    if sequences is not None and experiment.status != ExperimentStatus.RUNNING:
        sequences.forget(experiment.id)
    return experiment.status == ExperimentStatus.DECIDED


async def calls(session: AsyncSession, experiment: Experiment) -> int:
    """The judge calls the experiment's comparisons made."""
    tagged = select(ComparisonTag.comparison_id).where(
        ComparisonTag.key == EXPERIMENT_TAG, ComparisonTag.value == experiment.tag_value
    )
    found = await session.scalar(
        select(func.count()).select_from(JudgeCall).where(JudgeCall.comparison_id.in_(tagged))
    )
    return int(found or 0)
