"""Comparisons, their tags, and every judge call made for them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Boolean, Float, Index, Integer, String, Text, UniqueConstraint, false, text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONType
from app.jobs.models import JobColumns, StoredCall, TagColumns, job_reference


class Comparison(JobColumns, Base):
    """One compare request: what was asked, how, and the debiased verdict."""

    __tablename__ = "comparisons"

    # Texts, or in privacy mode only their salted HMACs; lengths always.
    response_a: Mapped[str | None] = mapped_column(Text, nullable=True)
    response_b: Mapped[str | None] = mapped_column(Text, nullable=True)
    reference: Mapped[str | None] = mapped_column(Text, nullable=True)
    response_a_hmac: Mapped[str | None] = mapped_column(String(64), nullable=True)
    response_b_hmac: Mapped[str | None] = mapped_column(String(64), nullable=True)
    len_a: Mapped[int] = mapped_column(Integer)
    len_b: Mapped[int] = mapped_column(Integer)
    placebo: Mapped[bool] = mapped_column(Boolean, default=False)
    # `traffic` (a caller's request) or `canary` (a drift canary's run, app/canaries): reports,
    # the leaderboard and the labeling queue count traffic unless asked otherwise.
    origin: Mapped[str] = mapped_column(String(16), default="traffic", server_default="traffic")
    # Whether its calls are in the report's rollups: set by the folder once it has stopped
    # running (`app.ledger.folder`); the report counts exactly the folded comparisons.
    folded: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    model_a: Mapped[str | None] = mapped_column(String(200), nullable=True)
    model_b: Mapped[str | None] = mapped_column(String(200), nullable=True)
    family_a: Mapped[str | None] = mapped_column(String(100), nullable=True)
    family_b: Mapped[str | None] = mapped_column(String(100), nullable=True)
    protocol: Mapped[str] = mapped_column(String(16))
    protocol_params: Mapped[dict[str, Any]] = mapped_column(JSONType)
    planned_rounds: Mapped[int] = mapped_column(Integer)

    # The verdict, written last.
    winner: Mapped[str | None] = mapped_column(String(4), nullable=True)
    confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    position_consistent: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    bias_detected: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    agreement: Mapped[float | None] = mapped_column(Float, nullable=True)
    # Per-judge results, so a replay answers exactly what was answered.
    judge_results: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)


# The folder's queue: the few comparisons not folded yet (the running ones among them).
Index(
    "ix_comparisons_unfolded",
    Comparison.id,
    postgresql_where=~Comparison.folded,
    sqlite_where=~Comparison.folded,
)


class ComparisonTag(TagColumns, Base):
    """A caller's `key: value` tag on a comparison."""

    __tablename__ = "comparison_tags"

    comparison_id: Mapped[str] = job_reference("comparisons", primary_key=True)


class JudgeCall(StoredCall):
    """One judge call, showing one display order: everything JUDGING.md says is recorded."""

    __tablename__ = "judge_calls"
    __table_args__ = (
        UniqueConstraint("comparison_id", "judge_name", "round"),
        Index("ix_judge_calls_judge_started", "judge_name", "started_at"),
        Index("ix_judge_calls_judge_version", "judge_name", "judge_version"),
        Index("ix_judge_calls_started_at", "started_at"),
        # Walked for the models a judge's provider reported (app/reports/provider_models.py).
        Index("ix_judge_calls_judge_model_started", "judge_name", "provider_model", "started_at"),
        # The judge-call cache's look-up (app/jobs/callcache.py); only the calls of judges that
        # cache have a key, so the others' inserts do not pay for the index.
        Index(
            "ix_judge_calls_request_key",
            "judge_config_hash",
            "request_key",
            postgresql_where=text("request_key IS NOT NULL"),
            sqlite_where=text("request_key IS NOT NULL"),
        ),
    )

    comparison_id: Mapped[str] = job_reference("comparisons", index=True)
    role: Mapped[str] = mapped_column(String(8))  # voter | audit
    protocol: Mapped[str] = mapped_column(String(16))
    round: Mapped[int] = mapped_column(Integer)
    # Rounds 0/1 of pair protocols and round 0 of single: the only calls bias statistics use.
    design: Mapped[bool] = mapped_column(Boolean)
    display_order: Mapped[str] = mapped_column(String(2))  # AB | BA
    label_pair: Mapped[str] = mapped_column(String(64))  # as written in the pool, "P/Q"
    label_a: Mapped[str] = mapped_column(String(16))
    label_b: Mapped[str] = mapped_column(String(16))
    # The label pair's second label sat on the first-shown slot.
    first_slot_second_label: Mapped[bool] = mapped_column(Boolean)
    pick: Mapped[str | None] = mapped_column(String(8), nullable=True)  # first|second|tie
    mapped_winner: Mapped[str | None] = mapped_column(String(4), nullable=True)  # A|B|tie
    confidence: Mapped[float | None] = mapped_column(Float, nullable=True)
    confidence_source: Mapped[str | None] = mapped_column(String(16), nullable=True)
