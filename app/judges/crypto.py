"""Data at rest under FAIRPAIR_SECRET_KEY: Fernet keys derived per purpose with HKDF-SHA256.

Ciphertexts of the derivation before HKDF (SHA-256 of a prefix and the secret) stay readable until
`fairpair keys rotate-secret` rewrites them; FAIRPAIR_SECRET_KEY_PREVIOUS is tried after the
current key, the same two ways. Only the current key's HKDF derivation ever encrypts.
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from pydantic import SecretStr

from app.config import secret_key_bytes

# HKDF `info`, one per purpose, so that a key derived for one purpose opens nothing of another.
# Provider keys and privacy-mode batch payloads (the callers of encrypt/decrypt without a purpose).
PROVIDER_KEYS = b"fairpair/provider-keys"
# Values stored once per instance (the privacy-mode HMAC salt: app/keyring).
INSTANCE_SECRETS = b"fairpair/instance-secrets"
# The derivation before HKDF, kept only to read what it wrote.
_LEGACY_PREFIXES = {PROVIDER_KEYS: b"fairpair-provider-keys:"}


def derive_key(secret_key: SecretStr, purpose: bytes) -> bytes:
    """The 32-byte key of `purpose`, by HKDF-SHA256 from the secret key's decoded bytes."""
    value = secret_key.get_secret_value()
    # The embedded placeholder, or a passphrase kept as the previous key, has no decoded form.
    material = secret_key_bytes(value) or value.encode()
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=purpose).derive(material)


def _fernet(key: bytes) -> Fernet:
    return Fernet(base64.urlsafe_b64encode(key))


# Cached: decoding and deriving cost more than sealing a provider key (a rotation rewrites
# every stored ciphertext); the cache holds only keys the process's settings already hold.
@lru_cache(maxsize=16)
def _keys(secret: str, purpose: bytes) -> tuple[Fernet, ...]:
    """The keys that may have written under `secret`: its HKDF key (the one that encrypts),
    then the legacy derivation."""
    keys = [_fernet(derive_key(SecretStr(secret), purpose))]
    if purpose in _LEGACY_PREFIXES:
        keys.append(_fernet(hashlib.sha256(_LEGACY_PREFIXES[purpose] + secret.encode()).digest()))
    return tuple(keys)


def _sealer(secret_key: SecretStr, purpose: bytes) -> Fernet:
    return _keys(secret_key.get_secret_value(), purpose)[0]


def encrypt(secret_key: SecretStr, plaintext: str, purpose: bytes = PROVIDER_KEYS) -> str:
    """Ciphertext of a provider key (or of another `purpose`'s value)."""
    return _sealer(secret_key, purpose).encrypt(plaintext.encode()).decode()


def decrypt(
    secret_key: SecretStr,
    ciphertext: str,
    previous: SecretStr | None = None,
    purpose: bytes = PROVIDER_KEYS,
) -> str:
    """The plaintext back, by the current key, else the previous one (InvalidToken if neither)."""
    tried = [secret_key] if previous is None else [secret_key, previous]
    readers = [key for secret in tried for key in _keys(secret.get_secret_value(), purpose)]
    return MultiFernet(readers).decrypt(ciphertext.encode()).decode()


def reencrypted(
    secret_key: SecretStr,
    ciphertext: str,
    previous: SecretStr | None = None,
    purpose: bytes = PROVIDER_KEYS,
) -> str | None:
    """The ciphertext under the current key's HKDF derivation; None when it already is."""
    try:
        _sealer(secret_key, purpose).decrypt(ciphertext.encode())
    except InvalidToken:
        return encrypt(secret_key, decrypt(secret_key, ciphertext, previous, purpose), purpose)
    return None
