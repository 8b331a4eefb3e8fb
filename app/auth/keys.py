"""API keys: creation, verification with a short cache, listing and revocation."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
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
    """Verified keys, and key ids found unknown, remembered for `ttl_s`: the request path skips
    the database for both, so a flood of one unknown id costs a single query per `ttl_s`.

    Key ids are random and shown only once their key is stored, so an id is missed before its
    key exists only by someone guessing it; even then the key works after `ttl_s`. Keys are
    created by `fairpair keys create`, another process, so there is no miss to drop here.
    """

    MAX_MISSES = 10_000

    def __init__(self, ttl_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl_s = ttl_s
        self._clock = clock
        self._entries: dict[str, tuple[str, Principal, float]] = {}
        self._misses: dict[str, float] = {}

    async def verify(self, session: AsyncSession, token: str) -> Principal | None:
        """The principal for a bearer token, or None when it is not a valid live key."""
        parsed = parse_key(token)
        if parsed is None:
            return None
        key_id, secret = parsed
        now = self._clock()
        cached = self._entries.get(key_id)
        if cached is None or cached[2] <= now:
            if self._misses.get(key_id, now) > now:
                return None
            cached = await self._load(session, key_id, now)
            if cached is None:
                return None
        return cached[1] if hmac.compare_digest(cached[0], hash_secret(secret)) else None

    async def _load(
        self, session: AsyncSession, key_id: str, now: float
    ) -> tuple[str, Principal, float] | None:
        row = await session.get(ApiKey, key_id)
        if row is None or row.revoked_at is not None:
            self._remember_miss(key_id, now)
            return None
        entry = (row.secret_sha256, Principal(row.id, frozenset(row.scopes)), now + self.ttl_s)
        self._entries[key_id] = entry
        return entry

    def _remember_miss(self, key_id: str, now: float) -> None:
        self._entries.pop(key_id, None)
        self._misses.pop(key_id, None)
        if len(self._misses) >= self.MAX_MISSES:  # random ids must not grow memory: oldest go
            del self._misses[next(iter(self._misses))]
        self._misses[key_id] = now + self.ttl_s
