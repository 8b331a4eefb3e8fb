"""API keys: creation, verification with a short cache, listing and revocation."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import Literal, get_args

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.models import ApiKey
from app.db import utcnow

Scope = Literal["compare", "score", "read", "label", "admin"]
SCOPES: tuple[str, ...] = get_args(Scope)
KEY_PREFIX = "fp"


@dataclass(frozen=True)
class Principal:
    """Who is calling: the key's id ("" when auth is off) and its scopes."""

    key_id: str
    scopes: frozenset[str]


ANONYMOUS = Principal(key_id="", scopes=frozenset(SCOPES))


def hash_secret(secret: str) -> str:
    """SHA-256 of a 256-bit random secret: no slow hash needed, none brute-forceable."""
    return hashlib.sha256(secret.encode()).hexdigest()


def parse_key(token: str) -> tuple[str, str] | None:
    """`fp_<id>_<secret>` → (id, secret), or None when malformed."""
    parts = token.split("_", 2)
    if len(parts) != 3 or parts[0] != KEY_PREFIX or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2]


def check_scopes(scopes: list[str]) -> list[str]:
    """Validate scope names, keeping their order and dropping repeats."""
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown or not scopes:
        raise ValueError(f"scopes must be among {', '.join(SCOPES)}; got {scopes}")
    return list(dict.fromkeys(scopes))


async def create_key(session: AsyncSession, name: str, scopes: list[str]) -> str:
    """Store a new key and return its full token (shown once)."""
    key_id, secret = secrets.token_hex(6), secrets.token_hex(32)
    session.add(
        ApiKey(id=key_id, name=name, secret_sha256=hash_secret(secret), scopes=check_scopes(scopes))
    )
    await session.commit()
    return f"{KEY_PREFIX}_{key_id}_{secret}"


async def list_keys(session: AsyncSession) -> list[ApiKey]:
    """Every key, newest first."""
    return list((await session.scalars(select(ApiKey).order_by(ApiKey.created_at.desc()))).all())


async def revoke_key(session: AsyncSession, name: str) -> bool:
    """Revoke the key named `name`; False when there is none."""
    key = await session.scalar(select(ApiKey).where(ApiKey.name == name))
    if key is None:
        return False
    key.revoked_at = utcnow()
    await session.commit()
    return True


class KeyCache:
    """Verified keys, remembered for `ttl_s` so the request path skips the database."""

    def __init__(self, ttl_s: float) -> None:
        self.ttl_s = ttl_s
        self._entries: dict[str, tuple[str, Principal, float]] = {}

    async def verify(self, session: AsyncSession, token: str) -> Principal | None:
        """The principal for a bearer token, or None when it is not a valid live key."""
        parsed = parse_key(token)
        if parsed is None:
            return None
        key_id, secret = parsed
        digest = hash_secret(secret)
        cached = self._entries.get(key_id)
        if cached and cached[2] > time.monotonic():
            return cached[1] if hmac.compare_digest(cached[0], digest) else None
        row = await session.get(ApiKey, key_id)
        if row is None or row.revoked_at is not None:
            return None
        if not hmac.compare_digest(row.secret_sha256, digest):
            return None
        principal = Principal(key_id=row.id, scopes=frozenset(row.scopes))
        self._entries[key_id] = (row.secret_sha256, principal, time.monotonic() + self.ttl_s)
        return principal
