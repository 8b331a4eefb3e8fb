"""Rollups of judge calls: written with the calls (`app.comparisons.rollups`), read by the bias
report instead of regrouping every call (`app.reports.rollups`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime


class CallRollup(Base):
    """Counts of judge calls per judge, version, placebo, protocol, error kind, label pair and
    UTC hour: what `queries.call_cube` counts, for whole hours."""

    __tablename__ = "call_rollup"

    judge: Mapped[str] = mapped_column(String(100), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    placebo: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    protocol: Mapped[str] = mapped_column(String(16), primary_key=True)
    # '' for calls without an error: a NULL in a key never conflicts, so it would never be summed.
    error_kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    label_pair: Mapped[str] = mapped_column(String(64), primary_key=True)
    hour: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # UTC hours since the epoch

    calls: Mapped[int] = mapped_column(BigInteger)
    failed: Mapped[int] = mapped_column(BigInteger)
    design: Mapped[int] = mapped_column(BigInteger)
    parsed: Mapped[int] = mapped_column(BigInteger)
    ties: Mapped[int] = mapped_column(BigInteger)
    design_parsed: Mapped[int] = mapped_column(BigInteger)
    decisive: Mapped[int] = mapped_column(BigInteger)
    first: Mapped[int] = mapped_column(BigInteger)
    design_ties: Mapped[int] = mapped_column(BigInteger)
    second_label: Mapped[int] = mapped_column(BigInteger)


class JudgeObservation(Base):
    """One judge's observation of one non-placebo comparison, over its parsed design calls:
    `queries.observation_sums`, folded in as the calls are written."""

    __tablename__ = "judge_observations"

    judge: Mapped[str] = mapped_column(String(100), primary_key=True)
    comparison_id: Mapped[str] = mapped_column(
        ForeignKey("comparisons.id", ondelete="CASCADE"), primary_key=True, index=True
    )
    version: Mapped[int] = mapped_column(Integer)
    protocol: Mapped[str] = mapped_column(String(16))
    p1: Mapped[str | None] = mapped_column(String(8), nullable=True)  # round 0 shown AB
    p2: Mapped[str | None] = mapped_column(String(8), nullable=True)  # round 1 shown BA
    y_sum: Mapped[int] = mapped_column(BigInteger)
    y_n: Mapped[int] = mapped_column(BigInteger)
    n_dec: Mapped[int] = mapped_column(BigInteger)
    n_a: Mapped[int] = mapped_column(BigInteger)
    delta: Mapped[int] = mapped_column(Integer)  # len A − len B
    shorter: Mapped[int] = mapped_column(Integer)
    side: Mapped[str | None] = mapped_column(String(1), nullable=True)
    neutral: Mapped[int] = mapped_column(Integer)
    first_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    last_at: Mapped[datetime] = mapped_column(UTCDateTime)
    first_hour: Mapped[int] = mapped_column(BigInteger)  # of first_at, in UTC hours since 1970
    last_hour: Mapped[int] = mapped_column(BigInteger)  # of last_at

    __table_args__ = (
        # The few observations whose calls span hours: found without scanning the rest when
        # the report looks for observations cut by a window's edge.
        Index(
            "ix_judge_observations_long",
            "first_at",
            postgresql_where=text("last_hour > first_hour + 1"),
            sqlite_where=text("last_hour > first_hour + 1"),
        ),
    )


# In the order `queries.raw_observations` returns them (the two are UNIONed).
OBSERVATION_COLUMNS = (
    "judge",
    "comparison_id",
    "version",
    "protocol",
    "p1",
    "p2",
    "y_sum",
    "y_n",
    "n_dec",
    "n_a",
    "delta",
    "shorter",
    "side",
    "neutral",
    "first_at",
    "last_at",
    "first_hour",
    "last_hour",
)
