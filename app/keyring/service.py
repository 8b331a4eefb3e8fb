"""The instance's stored secrets: the privacy-mode HMAC salt.

The salt is made on the first start (insert-or-read, so processes starting
together agree) and never changes: a rotation of the secret key re-encrypts it, and the hashes
of equal texts stay equal across rotations.
"""

from __future__ import annotations

import structlog
from cryptography.fernet import InvalidToken
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.judges import crypto
from app.keyring.models import InstanceSecret
from app.privacy import KEEP_TEXTS, TextKeeper

log = structlog.get_logger()

TEXT_HMAC_SALT = "text-hmac-salt"


class UnreadableSecretError(RuntimeError):
    """A stored secret opens with neither FAIRPAIR_SECRET_KEY nor FAIRPAIR_SECRET_KEY_PREVIOUS."""


async def text_keeper(
    settings: Settings, sessionmaker: async_sessionmaker[AsyncSession]
) -> TextKeeper:
    """The process's keeper, under the instance's salt (stored now if this is the first start)."""
    try:
        salt = await stored_salt(settings, sessionmaker)
    except InvalidToken as exc:
        if settings.privacy == "hash":
            raise UnreadableSecretError(
                "the stored privacy-mode salt opens with neither FAIRPAIR_SECRET_KEY nor "
                "FAIRPAIR_SECRET_KEY_PREVIOUS: set the previous key to the one it was stored under"
            ) from exc
        # Outside privacy mode no text is hashed; only a later switch to it needs the salt.
        log.warning("text_hmac_salt_unreadable", hint="set FAIRPAIR_SECRET_KEY_PREVIOUS")
        return KEEP_TEXTS
    return TextKeeper.from_settings(settings, salt)


async def stored_salt(settings: Settings, sessionmaker: async_sessionmaker[AsyncSession]) -> bytes:
    """The privacy-mode HMAC salt, stored on the first call."""
    async with sessionmaker() as session:
        ciphertext = await salt_ciphertext(session, settings)
    plain = crypto.decrypt(
        settings.secret_key, ciphertext, settings.secret_key_previous, crypto.INSTANCE_SECRETS
    )
    return bytes.fromhex(plain)


async def salt_ciphertext(session: AsyncSession, settings: Settings) -> str:
    """The stored salt's ciphertext; stored first if this instance has none yet."""
    ciphertext = await _ciphertext(session, TEXT_HMAC_SALT)
    if ciphertext is not None:
        return ciphertext
    # Hashes already stored were made under the key being rotated away from, if any.
    first = TextKeeper.first_salt(settings.secret_key_previous or settings.secret_key)
    mine = crypto.encrypt(settings.secret_key, first.hex(), crypto.INSTANCE_SECRETS)
    return await _insert_or_read(session, TEXT_HMAC_SALT, mine)


async def _ciphertext(session: AsyncSession, name: str) -> str | None:
    query = select(InstanceSecret.ciphertext).where(InstanceSecret.name == name)
    return await session.scalar(query)


async def _insert_or_read(session: AsyncSession, name: str, ciphertext: str) -> str:
    """Store `ciphertext` under `name` unless another process stored one first; the winner's."""
    session.add(InstanceSecret(name=name, ciphertext=ciphertext))
    try:
        await session.commit()
    except IntegrityError:
        await session.rollback()
        stored = await _ciphertext(session, name)
        assert stored is not None  # instance secrets are never deleted
        return stored
    return ciphertext
