"""Rollups of judge calls: written with the calls (`app.ledger.fold`), read by the bias
report instead of regrouping every call (`app.reports.rollups`)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, String, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime


class CubeColumns:
    """A cube row's keys below its own and its counts: what `queries.call_cube` counts per
    judge, version, placebo, protocol, error kind, label pair, UTC hour and origin."""

    judge: Mapped[str] = mapped_column(String(100), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    placebo: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    protocol: Mapped[str] = mapped_column(String(16), primary_key=True)
    # '' for calls without an error: a NULL in a key never conflicts, so it would never be summed.
    error_kind: Mapped[str] = mapped_column(String(32), primary_key=True)
    label_pair: Mapped[str] = mapped_column(String(64), primary_key=True)
    hour: Mapped[int] = mapped_column(BigInteger, primary_key=True)  # UTC hours since the epoch
    # The comparisons' origin (`traffic`, `canary`): the report reads one of them, or both.
    origin: Mapped[str] = mapped_column(String(16), primary_key=True, server_default="traffic")

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
    # Token sums (`callscope.call_sums`), so the report shows them per judge.
    tokens_in: Mapped[int] = mapped_column(BigInteger, server_default="0")
    tokens_out: Mapped[int] = mapped_column(BigInteger, server_default="0")
    reasoning_tokens: Mapped[int] = mapped_column(BigInteger, server_default="0")


class CallRollup(CubeColumns, Base):
    """Counts of judge calls per cube key, for whole hours."""

    __tablename__ = "call_rollup"


class TagKeys:
    """A rollup's counts per comparison tag: what a report filtered by one `key:value` tag
    reads (a comparison's tags are written with it, before its calls, and never change)."""

    tag_key: Mapped[str] = mapped_column(String(64), primary_key=True)
    tag_value: Mapped[str] = mapped_column(String(256), primary_key=True)


class CallTagRollup(CubeColumns, TagKeys, Base):
    """`call_rollup` per comparison tag, for whole hours."""

    __tablename__ = "call_tag_rollup"


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
    # The comparison's origin (constant per comparison, so never moved by a fold).
    origin: Mapped[str] = mapped_column(String(16), server_default="traffic")
    shorter: Mapped[int] = mapped_column(Integer)
    side: Mapped[str | None] = mapped_column(String(1), nullable=True)
    neutral: Mapped[int] = mapped_column(Integer)
    first_at: Mapped[datetime] = mapped_column(UTCDateTime, index=True)
    last_at: Mapped[datetime] = mapped_column(UTCDateTime)
    first_hour: Mapped[int] = mapped_column(BigInteger)  # of first_at, in UTC hours since 1970
    last_hour: Mapped[int] = mapped_column(BigInteger)  # of last_at
    # What the row held before the fold that last changed it (prev_y_n = 0: it was new), so
    # that the same statement can move its count out of the observation rollups' old keys.
    prev_y_n: Mapped[int] = mapped_column(BigInteger, server_default=text("0"))
    prev_y_sum: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    prev_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    prev_p1: Mapped[str | None] = mapped_column(String(8), nullable=True)
    prev_p2: Mapped[str | None] = mapped_column(String(8), nullable=True)
    prev_first_hour: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    prev_last_hour: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    # On a conflicted observation (`side` set), written when its comparison is folded: the
    # neutral judges' decisive calls and A picks on the same comparison, and the first and last
    # of their calls. Self-preference reads them instead of looking the neutral judges up, in
    # any window that holds those calls (NEUTRAL_COLUMNS).
    neutral_dec: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    neutral_a: Mapped[int | None] = mapped_column(BigInteger, nullable=True)
    neutral_first_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    neutral_last_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)

    __table_args__ = (
        # The few observations whose calls span hours: found without scanning the rest when
        # the report looks for observations cut by a window's edge.
        Index(
            "ix_judge_observations_long",
            "first_at",
            postgresql_where=text("last_hour > first_hour + 1"),
            sqlite_where=text("last_hour > first_hour + 1"),
        ),
        # The conflicted observations (a few percent), which self-preference starts from.
        Index(
            "ix_judge_observations_conflicted",
            "first_at",
            postgresql_where=text("side IS NOT NULL"),
            sqlite_where=text("side IS NOT NULL"),
        ),
    )


class ObservationKeys:
    """The keys an observation is counted under in both observation rollups (with their own),
    and the count."""

    judge: Mapped[str] = mapped_column(String(100), primary_key=True)
    first_hour: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    last_hour: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True)
    protocol: Mapped[str] = mapped_column(String(16), primary_key=True)
    origin: Mapped[str] = mapped_column(String(16), primary_key=True, server_default="traffic")

    n: Mapped[int] = mapped_column(BigInteger)


class PickKeys:
    """An observation's picks of the swap pair and length class."""

    # '' for no pick: a NULL in a key never conflicts, so it would never be summed.
    p1: Mapped[str] = mapped_column(String(8), primary_key=True)
    p2: Mapped[str] = mapped_column(String(8), primary_key=True)
    eligible: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    longer: Mapped[bool] = mapped_column(Boolean, primary_key=True)


class LengthKeys:
    """An observation's Δlen and (Σ outcome, calls). On PostgreSQL the primary key's index of
    a length rollup includes `n` (migration f5b2d8a1c7e3): the report reads it alone."""

    delta: Mapped[int] = mapped_column(Integer, primary_key=True)
    y_sum: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    y_n: Mapped[int] = mapped_column(BigInteger, primary_key=True)


class ObservationRollup(ObservationKeys, PickKeys, Base):
    """Observations counted per judge, first and last hour, version, protocol, picks of the
    swap pair and length class: what the report's pairs and length-class parts and its
    recent-bucket bound count, for whole hours."""

    __tablename__ = "observation_rollup"


class LengthRollup(ObservationKeys, LengthKeys, Base):
    """Observations counted per judge, first and last hour, version, protocol, Δlen and
    (Σ outcome, calls): the length section's (Δlen, y) frequencies, for whole hours."""

    __tablename__ = "length_rollup"


class ObservationTagRollup(TagKeys, ObservationKeys, PickKeys, Base):
    """`observation_rollup` per comparison tag (first in the key: a report reads one tag's)."""

    __tablename__ = "observation_tag_rollup"


class LengthTagRollup(TagKeys, ObservationKeys, LengthKeys, Base):
    """`length_rollup` per comparison tag (first in the key: a report reads one tag's)."""

    __tablename__ = "length_tag_rollup"


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
    "origin",
)

# The neutral judges' sums kept on conflicted observations, in this order.
NEUTRAL_COLUMNS = ("neutral_dec", "neutral_a", "neutral_first_at", "neutral_last_at")
