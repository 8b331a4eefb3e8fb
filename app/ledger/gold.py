"""Human labels as every reader shares them: the `labels` and `queue_draws` tables, the gold
label of a comparison, and the outcomes of one model against another with their gold.

Here, below both `labels` and `leaderboard` (which may not import each other) and `winrates`, so
the one gold-label read serves them all (docs/DECISIONS.md, 2026-11-29). `app.labels.models`
re-exports the tables under their old names.

Gold label of a comparison: the winner named by more of its labelers' latest labels than any
other winner (a labeler's new label replaces the old one, so every row is a latest label);
when two winners share the most labels the comparison is `disputed` and has no gold label.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import (
    Boolean,
    ColumnElement,
    ForeignKey,
    Select,
    String,
    Subquery,
    Text,
    UniqueConstraint,
    and_,
    case,
    distinct,
    func,
    null,
    select,
)
from sqlalchemy.orm import Mapped, mapped_column

from app import stats
from app.db import Base, UTCDateTime, utcnow
from app.jobs.models import BigIntId
from app.ledger.models import Comparison

WINNERS = ("A", "B", "tie")
Y_OF_WINNER = {"A": 1.0, "tie": 0.5, "B": 0.0}
LabelledReason = Literal["no_comparisons", "no_labels", "insufficient_data"]


class Label(Base):
    """One labeler's latest verdict on one comparison (a new label replaces the old one)."""

    __tablename__ = "labels"
    # The unique key's leading column also serves lookups by comparison.
    __table_args__ = (UniqueConstraint("comparison_id", "labeler"),)

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    comparison_id: Mapped[str] = mapped_column(ForeignKey("comparisons.id", ondelete="CASCADE"))
    labeler: Mapped[str] = mapped_column(String(200))
    winner: Mapped[str] = mapped_column(String(4))  # A | B | tie
    # Drawn from the random labeling queue, rather than chosen by the labeler.
    from_queue: Mapped[bool] = mapped_column(Boolean)
    # The response the labeler saw first (A | B), when the client said so: the humans' own
    # first-slot rate counts only labels whose display order is known.
    shown_first: Mapped[str | None] = mapped_column(String(1), nullable=True)
    # The labeler's own words on the item, when given (the dashboard's labeling page asks).
    note: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)


class QueueDraw(Base):
    """A comparison `GET /v1/labeling-queue` offered to a key: a label from that key may say
    `from_queue` only for one of these (the random sample is the server's draw, not a claim)."""

    __tablename__ = "queue_draws"

    # The key's id; "" when auth is off (one trusted user on loopback).
    key_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    comparison_id: Mapped[str] = mapped_column(
        ForeignKey("comparisons.id", ondelete="CASCADE"), primary_key=True
    )
    drawn_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, index=True)


def gold_labels(*conditions: ColumnElement[bool]) -> Subquery:
    """Per labelled comparison: votes per winner, labelers, the gold label (NULL: disputed),
    whether all labelers agree, whether any label came from the queue, the last label's time."""
    votes = {w: func.count().filter(Label.winner == w) for w in WINNERS}
    a, b, t = votes["A"], votes["B"], votes["tie"]
    gold = case(
        (and_(a > b, a > t), "A"),
        (and_(b > a, b > t), "B"),
        (and_(t > a, t > b), "tie"),
        else_=null(),
    )
    return (
        select(
            Label.comparison_id.label("comparison_id"),
            a.label("votes_a"),
            b.label("votes_b"),
            t.label("votes_tie"),
            func.count().label("labelers"),
            gold.label("gold"),
            case((func.count(distinct(Label.winner)) == 1, 1), else_=0).label("unanimous"),
            func.max(case((Label.from_queue, 1), else_=0)).label("from_queue"),
            func.max(Label.updated_at).label("labelled_at"),
        )
        .where(*conditions)
        .group_by(Label.comparison_id)
        .subquery("gold")
    )


# The outcomes of a model against another, with the queue's gold


@dataclass(frozen=True)
class OutcomeCount:
    """How many comparisons ended with this verdict and this human gold, from `model`'s side."""

    model_is_a: bool
    verdict: str  # A | B | tie
    gold: str | None  # the queue labels' gold; None: no queue label, or disputed
    queue_labelled: bool  # has a label from the queue (gold None then means disputed)
    other_labels: bool  # has a label given outside the queue
    count: int


def outcome_counts_query(
    keys: Sequence[ColumnElement[Any]],
    verdict: ColumnElement[Any],
    conditions: Sequence[ColumnElement[bool]],
) -> Select[Any]:
    """Comparisons counted per `keys`, then the verdict and label status: the columns after
    `keys` are (verdict, gold, queue_labelled, other_labels, n). Only labels drawn from the
    random queue (`from_queue`) make a gold; labels people chose to give are only counted."""
    queue = gold_labels(Label.from_queue.is_(True)).alias("queue")
    other = gold_labels(Label.from_queue.is_(False)).alias("other")
    grouped = [
        *keys,
        verdict.label("verdict"),
        queue.c.gold.label("gold"),
        queue.c.labelers.is_not(None).label("queue_labelled"),
        other.c.labelers.is_not(None).label("other_labels"),
    ]
    return (
        select(*grouped, func.count().label("n"))
        .select_from(Comparison)
        .outerjoin(queue, queue.c.comparison_id == Comparison.id)
        .outerjoin(other, other.c.comparison_id == Comparison.id)
        .where(*conditions, verdict.in_(WINNERS))
        .group_by(*grouped)
    )


def outcome_count(model_is_a: object, rest: Sequence[Any]) -> OutcomeCount:
    """One row of `outcome_counts_query` after its keys."""
    verdict, gold, queue_labelled, other_labels, n = rest
    return OutcomeCount(
        bool(model_is_a), verdict, gold, bool(queue_labelled), bool(other_labels), int(n)
    )


@dataclass
class Outcomes:
    """The outcomes for the model, as arrays: the labelled slice (human, judge) and the rest."""

    human: list[float] = field(default_factory=list)
    judged: list[float] = field(default_factory=list)  # the judge on the labelled slice
    unlabelled: list[float] = field(default_factory=list)
    not_from_queue: int = 0
    disputed: int = 0

    @property
    def every_judged(self) -> list[float]:
        """The judge's outcome on every comparison."""
        return self.judged + self.unlabelled

    def labelled_reason(self) -> LabelledReason | None:
        """Why nothing rests on the labels, if nothing does (`no_comparisons`, `no_labels`,
        `insufficient_data`: too few labels for any evidence tier)."""
        if not self.every_judged:
            return "no_comparisons"
        if not self.human:
            return "no_labels"
        if stats.tier("labelled", len(self.human)) == "insufficient":
            return "insufficient_data"
        return None


def for_model(winner: str, model_is_a: bool) -> float:
    """The outcome of a winner (A | B | tie) for the model."""
    y = Y_OF_WINNER[winner]
    return y if model_is_a else 1.0 - y


def outcomes_of(counts: Sequence[OutcomeCount]) -> Outcomes:
    """The counted outcomes, expanded (at most one value per comparison in the window)."""
    outcomes = Outcomes()
    # In one order whatever the database's: the float sums then agree to the last bit.
    for row in sorted(
        counts, key=lambda r: (r.model_is_a, r.verdict, r.gold or "", r.other_labels)
    ):
        judged = for_model(row.verdict, row.model_is_a)
        if row.gold is not None:
            outcomes.human += [for_model(row.gold, row.model_is_a)] * row.count
            outcomes.judged += [judged] * row.count
        else:
            # Disputed and non-queue labelled comparisons are not in the uniform slice.
            outcomes.unlabelled += [judged] * row.count
        outcomes.not_from_queue += row.count if row.other_labels else 0
        outcomes.disputed += row.count if row.queue_labelled and row.gold is None else 0
    return outcomes
