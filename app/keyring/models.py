"""Values made once per instance and kept for good, encrypted under FAIRPAIR_SECRET_KEY."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import String, Text
from sqlalchemy.orm import Mapped, mapped_column

from app.db import Base, UTCDateTime, utcnow


class InstanceSecret(Base):
    """One named value (the privacy-mode HMAC salt); `keys rotate-secret` re-encrypts it."""

    __tablename__ = "instance_secrets"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    # A Fernet token under the secret key's `instance-secrets` derivation: a leaked database alone
    # does not give the value.
    ciphertext: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, default=utcnow)
