"""Experiments: a named run of comparisons between a baseline and a candidate model that stops
paying once it is decided (issue 41).

An experiment is a view of the ledger: its comparisons carry the tag `fairpair:experiment` with
its name (set from the compare request's `experiment` field, never by hand), and its standing is
read from their verdicts in the order they completed. It lives here, below the job kinds, because
both the comparison kind (which refuses a comparison whose models are not the experiment's) and
the batch runner (which skips an item once its experiment is decided) read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import Float, Integer, String, func, select, update
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


async def outcomes(session: AsyncSession, experiment: Experiment) -> list[float]:
    """The candidate's outcome (1 win, 0.5 tie, 0 loss) in each decided comparison of the
    experiment, in the order they completed."""
    candidate_slot = Comparison.model_a == experiment.candidate
    rows = await session.execute(
        select(Comparison.winner, candidate_slot)
        .join(ComparisonTag, ComparisonTag.comparison_id == Comparison.id)
        .where(
            ComparisonTag.key == EXPERIMENT_TAG,
            ComparisonTag.value == experiment.tag_value,
            Comparison.winner.is_not(None),
            Comparison.completed_at.is_not(None),
        )
        .order_by(Comparison.completed_at, Comparison.id)
    )
    return [_CANDIDATE_WINS[_side(winner, bool(is_a))] for winner, is_a in rows]


def _side(winner: str | None, candidate_is_a: bool) -> str:
    if winner == "tie":
        return "tie"
    return "candidate" if (winner == "A") == candidate_is_a else "baseline"


async def evaluate(session: AsyncSession, experiment: Experiment) -> Standing:
    """Read the experiment's sequence and, the first time it decides, store the decision (a
    decision is never taken back: the sequence's guarantee holds at the first crossing)."""
    seen = await outcomes(session, experiment)
    path = sequential.decision_path(seen, experiment.alpha, experiment.margin)
    if experiment.status == ExperimentStatus.RUNNING and path.decision is not None:
        await _store_decision(session, experiment, Decision(path.decision), path.decided_after)
    return Standing(seen, path.interval)


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


async def stopped(session: AsyncSession, name: str) -> bool:
    """Whether the experiment no longer wants comparisons (decided, cancelled or gone): what a
    batch item of the experiment asks before it spends calls."""
    experiment = await find(session, name)
    if experiment is None or experiment.status == ExperimentStatus.CANCELLED:
        return True
    if experiment.status == ExperimentStatus.RUNNING:
        await evaluate(session, experiment)
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
