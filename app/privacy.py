"""Privacy mode: with `FAIRPAIR_PRIVACY=hash`, texts are kept only as salted HMAC-SHA256 digests."""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from app.config import Settings


@dataclass(frozen=True)
class TextKeeper:
    """Decides what is stored of a text: the text itself, or only its HMAC."""

    hash_only: bool
    salt: bytes

    @classmethod
    def from_settings(cls, settings: Settings) -> TextKeeper:
        """The keeper the settings ask for; the salt derives from FAIRPAIR_SECRET_KEY."""
        secret = settings.secret_key.get_secret_value().encode()
        return cls(
            hash_only=settings.privacy == "hash",
            salt=hashlib.sha256(b"fairpair-text-hmac:" + secret).digest(),
        )

    def digest(self, text: str) -> str:
        """Salted HMAC-SHA256 of a text (equal texts give equal digests)."""
        return hmac.new(self.salt, text.encode(), hashlib.sha256).hexdigest()

    def text(self, text: str | None) -> str | None:
        """The text to store: None in privacy mode."""
        return None if self.hash_only else text

    def hmac(self, text: str | None) -> str | None:
        """The digest to store: only in privacy mode."""
        return self.digest(text) if self.hash_only and text is not None else None


KEEP_TEXTS = TextKeeper(hash_only=False, salt=b"")
