"""The columns every job row and every call record share, declared once.

A job is one request the kernel runs (a comparison, a score session); a call record is one judge
call made for it. Each kind declares its own tables on these bases, so tables, columns and
indexes are exactly what they were when each kind declared them itself.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, declared_attr, mapped_column

from app.db import Base, JSONType, UTCDateTime, utcnow
from app.judges.registry import RuntimeJudge
from app.judging.types import CallRecord
from app.privacy import TextKeeper

# SQLite only auto-increments an INTEGER PRIMARY KEY.
BigIntId = BigInteger().with_variant(Integer, "sqlite")


class JobStatus(StrEnum):
    """A job's lifecycle: running → complete | partial | failed, or waiting on the way."""

    RUNNING = "running"
    # No process holds it: it waits on something outside (a provider's batch job), so the
    # sweeper does not close it and nothing requeues it; whoever it waits on moves it on.
    WAITING = "waiting"
    COMPLETE = "complete"
    PARTIAL = "partial"  # some judges produced no result
    FAILED = "failed"  # no judge produced a result


# A job whose calls are not all in yet: its observations are not final (reports leave them out).
UNFINISHED = (JobStatus.RUNNING, JobStatus.WAITING)


class Idempotent:
    """A row a request creates once per Idempotency-Key (scoped per API key, kept 24 h)."""

    @declared_attr.directive
    def __table_args__(cls) -> tuple[Any, ...]:
        name = cls.__tablename__  # type: ignore[attr-defined]
        return (
            UniqueConstraint("api_key_id", "idempotency_key"),
            Index(f"ix_{name}_created_at_id", "created_at", "id"),
        )

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    # Idempotency is scoped per API key ("" when auth is off).
    api_key_id: Mapped[str] = mapped_column(String(32), default="")
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    # Its HMAC in privacy mode: a plain hash would confirm a guessed request.
    request_hash: Mapped[str] = mapped_column(String(64))


class JobColumns(Idempotent):
    """A job's lifecycle (running → complete | partial | failed), its deadline and its plan."""

    completed_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    deadline_at: Mapped[datetime] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(16), index=True)  # a `JobStatus`
    error_kind: Mapped[str | None] = mapped_column(String(32), nullable=True)  # "interrupted"
    # The prompt, or in privacy mode only its keyed HMAC.
    prompt: Mapped[str | None] = mapped_column(Text, nullable=True)
    prompt_hmac: Mapped[str | None] = mapped_column(String(64), nullable=True)
    criteria: Mapped[Any] = mapped_column(JSONType, nullable=True)
    self_preference: Mapped[str] = mapped_column(String(16))
    self_preference_risk: Mapped[bool] = mapped_column(Boolean, default=False)
    timeout_s: Mapped[float] = mapped_column(Float)
    simulated: Mapped[bool] = mapped_column(Boolean, default=False)
    # The plan, so that a replay answers exactly what was answered and a resumed job asks the
    # same judges.
    panel: Mapped[dict[str, Any]] = mapped_column(JSONType)


def job_reference(table: str, **options: Any) -> Mapped[str]:
    """The column of a row that belongs to a job of `table` (deleted with it)."""
    return mapped_column(ForeignKey(f"{table}.id", ondelete="CASCADE"), **options)


class TagColumns:
    """A caller's `key: value` tag on a job; reports filter on these. The kind declares the column
    naming the job (part of the primary key)."""

    @declared_attr.directive
    def __table_args__(cls) -> tuple[Any, ...]:
        name = cls.__tablename__  # type: ignore[attr-defined]
        return (Index(f"ix_{name}_key_value", "key", "value"),)

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    value: Mapped[str] = mapped_column(String(256))


class StoredCall(Base):
    """The call-record base type: one stored judge call, with what JUDGING.md "What is recorded"
    asks of every kind of call."""

    __abstract__ = True

    id: Mapped[int] = mapped_column(BigIntId, primary_key=True, autoincrement=True)
    judge_name: Mapped[str] = mapped_column(String(100))
    judge_version: Mapped[int] = mapped_column(Integer)
    judge_config_hash: Mapped[str] = mapped_column(String(64))
    judge_family: Mapped[str | None] = mapped_column(String(100), nullable=True)
    template_hash: Mapped[str] = mapped_column(String(64))
    nonces: Mapped[list[str]] = mapped_column(JSONType)
    anonymized_replacements: Mapped[int] = mapped_column(Integer, default=0)
    provider_model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    raw_output: Mapped[str | None] = mapped_column(Text, nullable=True)
    raw_output_hmac: Mapped[str | None] = mapped_column(String(64), nullable=True)
    latency_ms: Mapped[float] = mapped_column(Float)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[datetime] = mapped_column(UTCDateTime)
    tokens_in: Mapped[int | None] = mapped_column(Integer, nullable=True)
    tokens_out: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # Of tokens_out, a reasoning model's reasoning (OpenAI's completion_tokens_details).
    reasoning_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    cost_usd: Mapped[float | None] = mapped_column(Float, nullable=True)
    retries: Mapped[int] = mapped_column(Integer, default=0)
    error_kind: Mapped[str | None] = mapped_column(String(32), nullable=True)
    error: Mapped[str | None] = mapped_column(Text, nullable=True)
    # The judge-call cache (app/jobs/callcache.py): the request's key (an HMAC in privacy mode)
    # when the judge caches, and on an answer served from the cache, the call it repeats.
    request_key: Mapped[str | None] = mapped_column(String(64), nullable=True)
    cached_from: Mapped[int | None] = mapped_column(BigIntId, nullable=True)


def record_values(judge: RuntimeJudge, result: CallRecord, keeper: TextKeeper) -> dict[str, Any]:
    """The `StoredCall` columns of one call, as stored (texts through the keeper)."""
    return {
        "judge_name": judge.name,
        "judge_version": judge.version,
        "judge_config_hash": judge.config_hash,
        "judge_family": judge.family,  # effective: the family the panel was planned with
        "template_hash": result.template_hash,
        "nonces": list(result.nonces),
        "anonymized_replacements": result.anonymized_replacements,
        "provider_model": result.provider_model,
        "raw_output": keeper.text(result.raw_output),
        "raw_output_hmac": keeper.hmac(result.raw_output),
        "latency_ms": result.latency_ms,
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "reasoning_tokens": result.reasoning_tokens,
        "cost_usd": result.cost_usd,
        "retries": result.retries,
        "error_kind": result.error_kind,
        "error": keeper.text(result.error),  # a provider's text may quote the request
        "request_key": result.request_key,
        "cached_from": result.cached_from,
    }
