"""Drift canaries: a frozen set of comparisons, the judges it audits, and its runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Float,
    ForeignKey,
    Integer,
    String,
    Text,
    UniqueConstraint,
    false,
)
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONType, UTCDateTime


class Canary(Base):
    """A named canary. Its items are copies: new traffic, a purge or a relabel cannot change it."""

    __tablename__ = "canaries"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    # The key that created it: its runs' comparisons are stored under it, like a batch's.
    api_key_id: Mapped[str] = mapped_column(String(64))
    judges: Mapped[list[str]] = mapped_column(JSONType)
    interval_s: Mapped[float | None] = mapped_column(Float, nullable=True)
    # How the items were chosen (ids or a tag), as given; informative only.
    selector: Mapped[dict[str, Any]] = mapped_column(JSONType)
    item_count: Mapped[int] = mapped_column(Integer)


class CanaryItem(Base):
    """One frozen comparison of a canary: the texts as stored, and its gold label then."""

    __tablename__ = "canary_items"

    canary_id: Mapped[str] = mapped_column(
        ForeignKey("canaries.id", ondelete="CASCADE"), primary_key=True
    )
    position: Mapped[int] = mapped_column(Integer, primary_key=True)
    source_id: Mapped[str] = mapped_column(String(36))  # the comparison it was copied from
    prompt: Mapped[str] = mapped_column(Text)
    response_a: Mapped[str] = mapped_column(Text)
    response_b: Mapped[str] = mapped_column(Text)
    reference: Mapped[str | None] = mapped_column(Text, nullable=True)
    criteria: Mapped[Any] = mapped_column(JSONType, nullable=True)
    model_a: Mapped[str | None] = mapped_column(String(200), nullable=True)
    model_b: Mapped[str | None] = mapped_column(String(200), nullable=True)
    family_a: Mapped[str | None] = mapped_column(String(100), nullable=True)
    family_b: Mapped[str | None] = mapped_column(String(100), nullable=True)
    gold: Mapped[str | None] = mapped_column(String(4), nullable=True)  # A | B | tie


class CanaryJudge(Base):
    """What the canary last saw of one judge: the version and provider model its triggers
    compare against (a change claims an automatic run)."""

    __tablename__ = "canary_judges"

    canary_id: Mapped[str] = mapped_column(
        ForeignKey("canaries.id", ondelete="CASCADE"), primary_key=True
    )
    judge: Mapped[str] = mapped_column(String(100), primary_key=True)
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    provider_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    # The time and judge version of the newest call that reported a model, as last looked at.
    model_seen_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    model_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The judge's latest settled run of the canary and its drift flag (null: no previous run):
    # what the report, the dashboard and the gauge read without loading every run.
    last_run: Mapped[int | None] = mapped_column(Integer, nullable=True)
    last_drift: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    # The run every later run of the same judge version is also compared with (a slow drift
    # passes each step's test), and the version it judged: the first run of a version, unless
    # an admin pinned another run.
    baseline_run: Mapped[int | None] = mapped_column(Integer, nullable=True)
    baseline_version: Mapped[int | None] = mapped_column(Integer, nullable=True)
    baseline_pinned: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # The run that flagged drift, kept until an admin acknowledges it or pins a baseline: a
    # change stays visible after the next run no longer differs from it.
    drift_run: Mapped[int | None] = mapped_column(Integer, nullable=True)


class CanaryRun(Base):
    """One run of a canary against some of its judges, as one batch of `canary` comparisons.

    `due_key` names the reason it is due (`manual:<uuid>`, `schedule:<time>`,
    `version:<judge>:<n>`, `model:<judge>:<model>:<first seen>`): unique per canary, so a due run
    is claimed once however many processes find it due.
    """

    __tablename__ = "canary_runs"
    __table_args__ = (
        UniqueConstraint("canary_id", "due_key"),
        UniqueConstraint("canary_id", "number"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    canary_id: Mapped[str] = mapped_column(ForeignKey("canaries.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)  # 1, 2, … per canary
    trigger: Mapped[str] = mapped_column(String(16))  # manual | schedule | version | model
    due_key: Mapped[str] = mapped_column(String(400))
    judges: Mapped[list[str]] = mapped_column(JSONType)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    batch_id: Mapped[str] = mapped_column(String(36))
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # Per judge: the run's figures and the paired tests against its previous run (`drift`).
    figures: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    # Per judge, per item: what the next run is paired with (loaded only when settling).
    item_results: Mapped[dict[str, Any] | None] = mapped_column(
        JSONType, nullable=True, deferred=True
    )
