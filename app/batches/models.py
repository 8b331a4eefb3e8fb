"""Batches and their items: the database is the queue's source of truth; messages carry item ids."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime
from app.jobs.models import Idempotent


class BatchStatus(StrEnum):
    """A batch's status, aggregated from its items' (never stored)."""

    QUEUED = "queued"
    RUNNING = "running"
    COMPLETED = "completed"
    CANCELLED = "cancelled"
    FAILED = "failed"  # every finished item failed


class ItemStatus(StrEnum):
    """A batch item's status; `waiting`: its calls are at a provider's batch API, held by no
    process (no lease, no requeue) until their answers are in."""

    QUEUED = "queued"
    RUNNING = "running"
    WAITING = "waiting"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


# An item in one of these is done: nothing runs or requeues it again.
TERMINAL = (ItemStatus.COMPLETED, ItemStatus.FAILED, ItemStatus.CANCELLED)


class ProviderJobState(StrEnum):
    """Where a provider job stands (`ProviderJob`'s docstring says what each means)."""

    SUBMITTING = "submitting"
    RUNNING = "running"
    ENDED = "ended"
    FAILED = "failed"
    UNCLEAR = "unclear"
    ABANDONED = "abandoned"


class RequestState(StrEnum):
    """Where a provider request stands (`ProviderRequest`'s docstring says what each means)."""

    PENDING = "pending"
    SUBMITTED = "submitted"
    RESOLVED = "resolved"


class Batch(Idempotent, Base):
    """One `POST /v1/batches`; its status and counts are aggregated from its items."""

    __tablename__ = "batches"

    cancelled_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    item_count: Mapped[int] = mapped_column(Integer)
    # `live`, or `provider`: judges with a batch API get their calls through it (docs/BATCHES.md).
    mode: Mapped[str] = mapped_column(String(8), default="live", server_default="live")


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
    status: Mapped[str] = mapped_column(String(16))  # an `ItemStatus`
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


class ProviderJob(Base):
    """One job at a provider's batch API, holding some planned calls of one judge of a batch.

    `state`: `submitting` (the row claims its requests before the provider is asked), `running`
    (the provider has it: `external_id` is stored, so a restarted process polls the same job
    and never submits it again), `ended` (its results are mapped onto its requests), `failed`
    (the provider failed it whole: its requests go back to be submitted once more), `unclear`
    (the submission's outcome is unknown: looked up by its metadata before anything is resent),
    `abandoned` (not found: its requests went back, counting an unclear submission each).
    """

    __tablename__ = "provider_jobs"
    __table_args__ = (
        Index("ix_provider_jobs_batch_id", "batch_id"),
        Index("ix_provider_jobs_state_next_poll_at", "state", "next_poll_at"),
    )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    batch_id: Mapped[str] = mapped_column(ForeignKey("batches.id", ondelete="CASCADE"))
    judge_name: Mapped[str] = mapped_column(String(100))
    provider: Mapped[str] = mapped_column(String(16))
    external_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    state: Mapped[str] = mapped_column(String(16))  # a `ProviderJobState`
    provider_state: Mapped[str | None] = mapped_column(String(32), nullable=True)
    request_count: Mapped[int] = mapped_column(Integer, default=0)
    succeeded: Mapped[int] = mapped_column(Integer, default=0)
    failed: Mapped[int] = mapped_column(Integer, default=0)
    input_file_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    output_file_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    error_file_id: Mapped[str | None] = mapped_column(String(200), nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
    submitted_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    ended_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    expires_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    # When the job is next looked at (polled, or its submission taken over if it stalled).
    next_poll_at: Mapped[datetime] = mapped_column(UTCDateTime)
    polls: Mapped[int] = mapped_column(Integer, default=0)
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)


class ProviderRequest(Base):
    """One planned judge call of a batch item sent through a provider's batch API, by the
    short opaque `custom_id` the provider echoes with its result.

    `state`: `pending` (waiting to be put in a job), `submitted`, `resolved` (its `result` is
    in: an answer or an error). `request_key` is what the item's delivery asks (judge and
    provider body, keyed), so a later delivery finds its answer by asking the same. `body` is
    kept until resolved (a job failed whole is submitted again), the row until the item has run
    over its result; body and result are encrypted in privacy mode.
    """

    __tablename__ = "provider_requests"
    __table_args__ = (
        UniqueConstraint("item_id", "judge_name", "request_key"),
        Index("ix_provider_requests_batch_id_judge_name_state", "batch_id", "judge_name", "state"),
        # Every round's look for pending requests across batches.
        Index("ix_provider_requests_state_batch_id", "state", "batch_id"),
        Index("ix_provider_requests_job_id", "job_id"),
    )

    custom_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    batch_id: Mapped[str] = mapped_column(ForeignKey("batches.id", ondelete="CASCADE"))
    item_id: Mapped[str] = mapped_column(ForeignKey("batch_items.id", ondelete="CASCADE"))
    judge_name: Mapped[str] = mapped_column(String(100))
    request_key: Mapped[str] = mapped_column(String(64))
    job_id: Mapped[str | None] = mapped_column(
        ForeignKey("provider_jobs.id", ondelete="SET NULL"), nullable=True
    )
    state: Mapped[str] = mapped_column(String(16))  # a `RequestState`
    body: Mapped[str | None] = mapped_column(Text, nullable=True)
    result: Mapped[str | None] = mapped_column(Text, nullable=True)
    encrypted: Mapped[bool] = mapped_column(Boolean, default=False)
    # Jobs that failed whole with this request in them: the second failure resolves it.
    job_failures: Mapped[int] = mapped_column(Integer, default=0)
    # Submissions with this request whose outcome stayed unknown (the provider may have the job
    # nonetheless): each may be a paid job, so the third fails the request (`submit_unclear`).
    unclear_submissions: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime)
