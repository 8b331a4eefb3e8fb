"""Judges and their versions: every change to how a judge judges is a new version."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Boolean, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, JSONType, UTCDateTime, utcnow


class Judge(Base):
    """A named judge; `current_version` points at the config new calls use."""

    __tablename__ = "judges"

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(100), unique=True)
    source: Mapped[str] = mapped_column(String(8))  # "file" | "api"
    enabled: Mapped[bool] = mapped_column(Boolean, default=True)
    current_version: Mapped[int] = mapped_column(Integer, default=1)
    # Bumped by every change (key, limits, URL, ...): every process rebuilds its client on the
    # next call that sees a new revision, so no change waits for a restart.
    revision: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)


class JudgeVersion(Base):
    """One immutable configuration of a judge; calls store its number and hash."""

    __tablename__ = "judge_versions"
    __table_args__ = (UniqueConstraint("judge_id", "version"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    judge_id: Mapped[int] = mapped_column(ForeignKey("judges.id", ondelete="CASCADE"), index=True)
    version: Mapped[int] = mapped_column(Integer)
    config: Mapped[dict[str, Any]] = mapped_column(JSONType)
    config_hash: Mapped[str] = mapped_column(String(64))
    # Provider keys posted through the API, Fernet-encrypted with FAIRPAIR_SECRET_KEY.
    api_key_ciphertext: Mapped[str | None] = mapped_column(Text, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
