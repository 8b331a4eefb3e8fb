"""`fairpair keys rotate-secret`: every ciphertext stored under FAIRPAIR_SECRET_KEY, re-encrypted
under the current key (read with the current key or FAIRPAIR_SECRET_KEY_PREVIOUS). Idempotent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cryptography.fernet import InvalidToken
from sqlalchemy import ColumnElement, Update, bindparam, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import InstrumentedAttribute

from app.batches.models import BatchItem, ProviderRequest
from app.config import Settings
from app.judges import crypto
from app.judges.models import JudgeVersion
from app.keyring.models import InstanceSecret
from app.keyring.service import salt_ciphertext

# Rows re-encrypted per transaction: batch payloads can be large.
ROTATION_PAGE = 200


@dataclass(frozen=True)
class Encrypted:
    """A column of ciphertexts, the key its rows are paged by, and the purpose it was sealed for."""

    key: InstrumentedAttribute[Any]
    column: InstrumentedAttribute[Any]
    purpose: bytes = crypto.PROVIDER_KEYS
    only: ColumnElement[bool] | None = None


# Everything encrypted with the secret key (grep app/ for `crypto.encrypt` when adding a kind).
ENCRYPTED = {
    "provider keys": Encrypted(JudgeVersion.id, JudgeVersion.api_key_ciphertext),
    # Privacy-mode payloads, until their item is processed (PRODUCT.md "Privacy mode and batches").
    "batch payloads": Encrypted(
        BatchItem.id, BatchItem.payload, only=BatchItem.encrypted.is_(True)
    ),
    # Privacy-mode provider-batch requests and results, until answered and used.
    "provider requests": Encrypted(
        ProviderRequest.custom_id, ProviderRequest.body, only=ProviderRequest.encrypted.is_(True)
    ),
    "provider results": Encrypted(
        ProviderRequest.custom_id, ProviderRequest.result, only=ProviderRequest.encrypted.is_(True)
    ),
    "instance secrets": Encrypted(
        InstanceSecret.name, InstanceSecret.ciphertext, purpose=crypto.INSTANCE_SECRETS
    ),
}


@dataclass
class Rotated:
    """What a rotation did to one kind of ciphertext."""

    rewritten: int = 0
    current: int = 0  # already under the current key: left alone
    unreadable: int = 0  # under neither key: left alone


async def rotate_secret(session: AsyncSession, settings: Settings) -> dict[str, Rotated]:
    """Re-encrypt every stored ciphertext under the current key; counts per kind."""
    # The salt is stored first if no process started since the upgrade: once the previous key
    # is gone, it could no longer be derived as the hashes already stored were.
    await salt_ciphertext(session, settings)
    return {name: await _rotate(session, settings, kind) for name, kind in ENCRYPTED.items()}


async def _rotate(session: AsyncSession, settings: Settings, kind: Encrypted) -> Rotated:
    """Re-encrypt one kind page by page in key order, one transaction per page."""
    counts, after = Rotated(), None
    while True:
        query = select(kind.key, kind.column).where(kind.column.is_not(None))
        if kind.only is not None:
            query = query.where(kind.only)
        if after is not None:
            query = query.where(kind.key > after)
        rows = (await session.execute(query.order_by(kind.key).limit(ROTATION_PAGE))).all()
        changes = [change for row in rows if (change := _change(settings, kind, *row, counts))]
        if changes:
            await session.execute(_update(kind), changes)  # one executemany per page
        await session.commit()
        if len(rows) < ROTATION_PAGE:
            return counts
        after = rows[-1][0]


def _change(
    settings: Settings, kind: Encrypted, row_key: Any, ciphertext: str, counts: Rotated
) -> dict[str, Any] | None:
    """The row's new ciphertext as update parameters; None when it stays as it is."""
    try:
        fresh = crypto.reencrypted(
            settings.secret_key, ciphertext, settings.secret_key_previous, kind.purpose
        )
    except InvalidToken:
        counts.unreadable += 1
        return None
    if fresh is None:
        counts.current += 1
        return None
    counts.rewritten += 1
    return {"row_key": row_key, "old": ciphertext, "new": fresh}


def _update(kind: Encrypted) -> Update:
    table = kind.column.class_.__table__
    key, column = table.c[kind.key.key], table.c[kind.column.key]
    # Only if unchanged meanwhile: a finished batch item's payload is deleted, never revived.
    return (
        update(table)
        .where(key == bindparam("row_key"), column == bindparam("old"))
        .values({column.name: bindparam("new")})
    )
