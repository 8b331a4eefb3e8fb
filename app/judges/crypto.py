"""Provider keys at rest: Fernet encryption under a key derived from FAIRPAIR_SECRET_KEY."""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet
from pydantic import SecretStr


def _fernet(secret_key: SecretStr) -> Fernet:
    digest = hashlib.sha256(b"fairpair-provider-keys:" + secret_key.get_secret_value().encode())
    return Fernet(base64.urlsafe_b64encode(digest.digest()))


def encrypt(secret_key: SecretStr, plaintext: str) -> str:
    """Ciphertext of a provider key."""
    return _fernet(secret_key).encrypt(plaintext.encode()).decode()


def decrypt(secret_key: SecretStr, ciphertext: str) -> str:
    """The provider key back."""
    return _fernet(secret_key).decrypt(ciphertext.encode()).decode()
