"""Privacy mode: with `FAIRPAIR_PRIVACY=hash`, no submitted text is stored in the clear.

What each stored field keeps in privacy mode (HMAC = salted HMAC-SHA256, hex):
- prompts, responses (comparisons, score sessions), judges' raw outputs: not stored; HMAC kept
- references: not stored; response lengths: kept
- criteria, rubric texts (level descriptions, anchors): every string replaced by its HMAC
  (weights, scores and the range stay, so answers keep their shape)
- tag values, Idempotency-Keys, batch item ids: HMAC, so that equal values still match
  (filters and lookups hash the incoming value the same way); tag keys stay clear
- error texts of failed judge calls and batch items: not stored (the error kind is)
- batch payloads: encrypted until their item is processed, then deleted
Identifiers stay clear: model, family, judge and labeler names.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from app.config import Settings


@dataclass(frozen=True)
class TextKeeper:
    """Decides what is stored of a text: the text itself, or only its HMAC."""

    hash_only: bool
    salt: bytes

    @classmethod
    def from_settings(cls, settings: Settings, salt: bytes) -> TextKeeper:
        """The keeper the settings ask for, under the instance's stored salt (app/keyring)."""
        return cls(hash_only=settings.privacy == "hash", salt=salt)

    @staticmethod
    def first_salt(secret_key: SecretStr) -> bytes:
        """The salt an instance stores on its first start, derived as before salts were stored,
        so that the hashes made then stay comparable; it never changes afterwards."""
        secret = secret_key.get_secret_value().encode()
        return hashlib.sha256(b"fairpair-text-hmac:" + secret).digest()

    def digest(self, text: str) -> str:
        """Salted HMAC-SHA256 of a text (equal texts give equal digests)."""
        return hmac.new(self.salt, text.encode(), hashlib.sha256).hexdigest()

    def text(self, text: str | None) -> str | None:
        """The text to store: None in privacy mode."""
        return None if self.hash_only else text

    def hmac(self, text: str | None) -> str | None:
        """The digest to store: only in privacy mode."""
        return self.digest(text) if self.hash_only and text is not None else None

    def token(self, text: str) -> str:
        """What is stored of a value that must still match exactly (tag values, idempotency
        keys, batch item ids): the value, or its HMAC in privacy mode."""
        return self.digest(text) if self.hash_only else text

    def tags(self, tags: dict[str, str]) -> dict[str, str]:
        """Tags as stored: clear keys, each value a `token`."""
        return {key: self.token(value) for key, value in tags.items()}

    def texts_in(self, value: Any) -> Any:
        """A JSON value as stored: in privacy mode every string in it becomes its HMAC (keys
        and numbers stay, so criteria and rubrics keep their shape)."""
        if not self.hash_only or value is None:
            return value
        if isinstance(value, str):
            return self.digest(value)
        if isinstance(value, list):
            return [self.texts_in(item) for item in value]
        if isinstance(value, dict):
            return {key: self.texts_in(item) for key, item in value.items()}
        return value


KEEP_TEXTS = TextKeeper(hash_only=False, salt=b"")


def keeper_for(settings: Settings, keeper: TextKeeper | None) -> TextKeeper:
    """`keeper`, the process's (made in the lifespan under the stored salt). Privacy mode needs
    it; outside privacy mode KEEP_TEXTS does exactly what any keeper would."""
    if keeper is not None:
        return keeper
    if settings.privacy == "hash":
        raise RuntimeError("privacy mode needs the process's TextKeeper (app/keyring/service.py)")
    return KEEP_TEXTS
