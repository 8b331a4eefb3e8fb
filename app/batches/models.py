"""Batches and their items: the database is the queue's source of truth; messages carry item ids."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime
from app.jobs.models import Idempotent


class Batch(Idempotent, Base):
    """One `POST /v1/batches`; its status and counts are aggregated from its items."""

    __tablename__ = "batches"

    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    item_count: Mapped[int] = mapped_column(Integer)


class BatchItem(Base):
    """One compare or score request of a batch, with its lease while a process runs it."""

    __tablename__ = "batch_items"
    __table_args__ = (
        UniqueConstraint("batch_id", "position"),
        UniqueConstraint("batch_id", "item_id"),
        Index("ix_batch_items_batch_id_status", "batch_id", "status"),
        # The reconciler's two scans: expired leases, and queued items nobody picked up.
        Index("ix_batch_items_status_lease_expires_at", "status", "lease_expires_at"),
        Index("ix_batch_items_status_enqueued_at", "status", "enqueued_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    batch_id: Mapped[str] = mapped_column(ForeignKey("batches.id", ondelete="CASCADE"))
    position: Mapped[int] = mapped_column(Integer)
    item_id: Mapped[str | None] = mapped_column(String(200), nullable=True)  # the client's
    kind: Mapped[str] = mapped_column(String(8))  # compare | score
    # The origin its comparison is stored with: `traffic`, or `canary` for a canary's run.
    origin: Mapped[str] = mapped_column(String(16), default="traffic", server_default="traffic")
    # The comparison or score session id, allocated at submission so a redelivery reuses it.
    target_id: Mapped[str] = mapped_column(String(36))
    status: Mapped[str] = mapped_column(String(16))  # queued|running|completed|failed|cancelled
    # The request as JSON (a Fernet token in privacy mode), deleted once the item is finished.
    payload: Mapped[str | None] = mapped_column(Text, nullable=True)
    encrypted: Mapped[bool] = mapped_column(Boolean, default=False)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(100), nullable=True)
    lease_expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    enqueued_at: Mapped[datetime] = mapped_column(UTCDateTime)
    started_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    error_kind: Mapped[str | None] = mapped_column(String(40), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
