"""Calibration labels: a human's gold verdict on a stored comparison."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, utcnow

# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigIntId = BigInteger().with_variant(Integer, "sqlite")


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
