"""Dashboard sessions: a login trades an API key for a random session token.

The cookie carries only the token (256 random bits); the database keeps its SHA-256, the key it
was opened with, and when it expires or was revoked. Every page request looks the session up
together with its key, so logging out, or revoking the key, ends the session at once in every
process. Expired rows are deleted at the next login.
"""

from __future__ import annotations

import secrets
from datetime import timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.keys import Principal, hash_secret
from app.auth.models import ApiKey, DashboardSession
from app.db import utcnow

SESSION_LIFETIME = timedelta(hours=8)


async def open_session(session: AsyncSession, key_id: str) -> str:
    """Store a new session for `key_id` and return its token (the cookie's value)."""
    token, now = secrets.token_urlsafe(32), utcnow()
    await session.execute(delete(DashboardSession).where(DashboardSession.expires_at < now))
    session.add(
        DashboardSession(
            token_sha256=hash_secret(token),
            key_id=key_id,
            created_at=now,
            expires_at=now + SESSION_LIFETIME,
        )
    )
    await session.commit()
    return token


async def session_principal(session: AsyncSession, token: str) -> Principal | None:
    """Who holds `token`: None unless its session and its key are both live."""
    row = (
        await session.execute(
            select(ApiKey.id, ApiKey.scopes)
            .join(DashboardSession, DashboardSession.key_id == ApiKey.id)
            .where(
                DashboardSession.token_sha256 == hash_secret(token),
                DashboardSession.revoked_at.is_(None),
                DashboardSession.expires_at > utcnow(),
                ApiKey.revoked_at.is_(None),
            )
        )
    ).first()
    return None if row is None else Principal(key_id=row.id, scopes=frozenset(row.scopes))


async def revoke_session(session: AsyncSession, token: str) -> None:
    """End the session of `token` (nothing happens for an unknown one)."""
    await session.execute(
        update(DashboardSession)
        .where(
            DashboardSession.token_sha256 == hash_secret(token),
            DashboardSession.revoked_at.is_(None),
        )
        .values(revoked_at=utcnow())
    )
    await session.commit()
