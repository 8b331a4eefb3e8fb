"""Score sessions, their responses and tags, every reviewer call, and every single score."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, Float, ForeignKey, Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONType, UTCDateTime
from app.jobs.models import JobColumns, StoredCall, TagColumns, job_reference


class ScoreSession(JobColumns, Base):
    """One `POST /v1/score`: the prompt, the rubric, the panel plan and the status."""

    __tablename__ = "score_sessions"

    # The rubric as given; its id hashes range, levels and anchors (reports fit per rubric).
    rubric: Mapped[dict[str, Any]] = mapped_column(JSONType)
    rubric_id: Mapped[str] = mapped_column(String(16), index=True)
    rubric_min: Mapped[float] = mapped_column(Float)
    rubric_max: Mapped[float] = mapped_column(Float)
    length_target: Mapped[int | None] = mapped_column(Integer, nullable=True)  # None: not asked
    # The reviewer offsets the answer used (a snapshot of the last refit), written last.
    calibration: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)


class ScoreSessionTag(TagColumns, Base):
    """A caller's `key: value` tag on a score session."""

    __tablename__ = "score_session_tags"

    session_id: Mapped[str] = job_reference("score_sessions", primary_key=True)


class ScoreResponse(Base):
    """One response of a session, by its 0-based index in the request."""

    __tablename__ = "score_responses"

    session_id: Mapped[str] = job_reference("score_sessions", primary_key=True)
    response_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str | None] = mapped_column(Text, nullable=True)
    text_hmac: Mapped[str | None] = mapped_column(String(64), nullable=True)
    model: Mapped[str | None] = mapped_column(String(200), nullable=True)
    family: Mapped[str | None] = mapped_column(String(100), nullable=True)  # as given
    resolved_family: Mapped[str | None] = mapped_column(String(100), nullable=True)
    length: Mapped[int] = mapped_column(Integer)  # code points of the submitted text


class ScoreCall(StoredCall):
    """One reviewer's call over its shown responses: everything JUDGING.md says is recorded."""

    __tablename__ = "score_calls"
    __table_args__ = (
        UniqueConstraint("session_id", "judge_name"),
        Index("ix_score_calls_judge_started", "judge_name", "started_at"),
    )

    session_id: Mapped[str] = job_reference("score_sessions", index=True)
    rubric_id: Mapped[str] = mapped_column(String(16))
    # Response indices in the order shown; labels and scores are in that same order.
    display_order: Mapped[list[int]] = mapped_column(JSONType)
    labels: Mapped[list[str]] = mapped_column(JSONType)
    scores: Mapped[list[float] | None] = mapped_column(JSONType, nullable=True)


class Score(Base):
    """One score of one response by one reviewer: the row the reviewer model is fitted on.

    Reviewer, version, rubric, length and time are copied from the call and the response so
    that the report's sums are single-table aggregates.
    """

    __tablename__ = "scores"
    __table_args__ = (
        Index("ix_scores_rubric_scored_at", "rubric_id", "scored_at"),
        Index("ix_scores_call_id", "call_id"),
    )

    session_id: Mapped[str] = job_reference("score_sessions", primary_key=True)
    response_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    reviewer: Mapped[str] = mapped_column(String(100), primary_key=True)
    judge_version: Mapped[int] = mapped_column(Integer)
    call_id: Mapped[int] = mapped_column(ForeignKey("score_calls.id", ondelete="CASCADE"))
    rubric_id: Mapped[str] = mapped_column(String(16))
    position: Mapped[int] = mapped_column(Integer)  # 1-based display position in the call
    label: Mapped[str] = mapped_column(String(16))
    score: Mapped[float] = mapped_column(Float)
    length: Mapped[int] = mapped_column(Integer)
    # False for an audit score (a conflicted reviewer under `audit`): stored, kept out of means.
    counted: Mapped[bool] = mapped_column(Boolean, default=True)
    scored_at: Mapped[datetime] = mapped_column(UTCDateTime)  # the call's started_at
