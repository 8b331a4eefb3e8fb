"""The secret key (issue 18 item 6): at least 256 bits, keys derived per purpose with HKDF, and a
rotation that keeps every stored provider key working and every privacy hash comparable.

A judge's provider key is checked where it matters, in the Authorization header a fake provider
receives over real HTTP; the rotation runs as the real `fairpair keys rotate-secret` command.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from cryptography.fernet import Fernet, InvalidToken
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from pydantic import SecretStr
from sqlalchemy import select

from app.batches.models import Batch, BatchItem, ProviderRequest
from app.batches.provider_keys import draws_seed, request_key, seal, unseal
from app.config import Settings, UnsafeSettingsError, check_startup_safety
from app.db import create_engine, create_sessionmaker, utcnow
from app.judges import crypto
from app.judges.models import JudgeVersion
from app.keyring.models import InstanceSecret
from app.keyring.service import stored_salt, text_keeper
from app.models import Comparison
from tests.security.provider import recording_provider
from tests.support.processes import free_port, run_cli, run_fairpair

KEY_1 = "1" * 64  # hex, 32 bytes
KEY_2_BYTES = bytes(range(100, 132))
KEY_2 = base64.urlsafe_b64encode(KEY_2_BYTES).decode().rstrip("=")  # base64url, 32 bytes
POSTGRES = "postgresql+asyncpg://fairpair@127.0.0.1/fairpair"
PROMPT = "Which answer is kinder?"
COMPARE = {"prompt": PROMPT, "response_a": "Yes.", "response_b": "No."}


def settings_on(database_url: str, secret_key: str) -> Settings:
    return Settings(database_url=database_url, secret_key=secret_key)


@pytest.mark.parametrize(
    "secret_key",
    [
        "s3cret-for-tests",  # a passphrase: neither hex nor base64url
        "correct horse battery staple correct horse battery staple",
        "ab" * 31,  # hex, 31 bytes
        base64.urlsafe_b64encode(bytes(range(31))).decode(),  # base64url, 31 bytes
        "",
    ],
)
def test_a_secret_key_below_256_bits_is_refused(secret_key: str) -> None:
    for database_url in (POSTGRES, "sqlite+aiosqlite:///./x.db"):
        with pytest.raises(UnsafeSettingsError, match="at least 256 bits") as refused:
            check_startup_safety(settings_on(database_url, secret_key), "127.0.0.1")
        assert not secret_key or secret_key not in str(refused.value)


@pytest.mark.parametrize(
    ("secret_key", "key_bytes"),
    [
        (bytes(range(32)).hex(), bytes(range(32))),  # as secrets.token_hex(32)
        (bytes(range(32)).hex().upper(), bytes(range(32))),
        (KEY_2, KEY_2_BYTES),  # unpadded base64url, as secrets.token_urlsafe(32)
        # padded, as Fernet.generate_key()
        (base64.urlsafe_b64encode(bytes([251] * 32)).decode(), bytes([251] * 32)),
        # the "+/" alphabet, as openssl rand -base64 48
        (base64.b64encode(bytes([251] * 48)).decode(), bytes([251] * 48)),
        (f"  {bytes(range(32)).hex()}\n", bytes(range(32))),  # as read from a file
    ],
)
def test_a_hex_or_base64url_key_of_32_bytes_is_accepted_and_its_bytes_are_the_key(
    secret_key: str, key_bytes: bytes
) -> None:
    check_startup_safety(settings_on(POSTGRES, secret_key), "127.0.0.1")
    check_startup_safety(settings_on("sqlite+aiosqlite:///./x.db", secret_key), "127.0.0.1")
    sealed = crypto.encrypt(SecretStr(secret_key), "sk-provider").encode()
    assert hkdf_fernet(key_bytes, b"fairpair/provider-keys").decrypt(sealed) == b"sk-provider"


def test_a_short_key_stops_fairpair_serve_with_the_reason(clean_pg: str) -> None:
    env = {"FAIRPAIR_DATABASE_URL": clean_pg, "FAIRPAIR_SECRET_KEY": "s3cret-for-tests"}
    started = run_fairpair("serve", "--port", str(free_port()), env=env)
    assert started.returncode == 2
    assert "FAIRPAIR_SECRET_KEY must carry at least 256 bits" in started.stderr
    assert "s3cret-for-tests" not in started.stderr


def hkdf_fernet(key_bytes: bytes, info: bytes) -> Fernet:
    """The reference derivation: HKDF-SHA256, no salt, 32 bytes, the purpose as `info`."""
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=info).derive(key_bytes)
    return Fernet(base64.urlsafe_b64encode(derived))


def legacy_fernet(secret_key: str) -> Fernet:
    """The derivation before HKDF."""
    digest = hashlib.sha256(b"fairpair-provider-keys:" + secret_key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def test_provider_keys_are_sealed_under_an_hkdf_key_of_their_purpose() -> None:
    ciphertext = crypto.encrypt(SecretStr(KEY_1), "sk-provider")
    assert (
        hkdf_fernet(bytes.fromhex(KEY_1), b"fairpair/provider-keys").decrypt(ciphertext.encode())
        == b"sk-provider"
    )
    with pytest.raises(InvalidToken):
        legacy_fernet(KEY_1).decrypt(ciphertext.encode())
    with pytest.raises(InvalidToken):  # another purpose's key opens nothing of this one
        hkdf_fernet(bytes.fromhex(KEY_1), b"fairpair/instance-secrets").decrypt(ciphertext.encode())


def test_a_ciphertext_of_the_old_derivation_still_decrypts_with_either_key() -> None:
    old = legacy_fernet(KEY_1).encrypt(b"sk-from-before").decode()
    assert crypto.decrypt(SecretStr(KEY_1), old) == "sk-from-before"
    assert crypto.decrypt(SecretStr(KEY_2), old, previous=SecretStr(KEY_1)) == "sk-from-before"
    with pytest.raises(InvalidToken):
        crypto.decrypt(SecretStr(KEY_2), old)


def cli_env(database_url: str, secret_key: str, previous: str | None = None) -> dict[str, str]:
    env = {"FAIRPAIR_DATABASE_URL": database_url, "FAIRPAIR_SECRET_KEY": secret_key}
    return env | ({"FAIRPAIR_SECRET_KEY_PREVIOUS": previous} if previous else {})


async def rotate_secret(database_url: str, previous: str) -> str:
    """`fairpair keys rotate-secret` from KEY_1 (previous) to KEY_2; its report."""
    return await asyncio.to_thread(
        run_cli, "keys", "rotate-secret", env=cli_env(database_url, KEY_2, previous)
    )


async def compare(client: httpx2.AsyncClient, headers: dict[str, str], **extra: Any) -> None:
    response = await client.post("/v1/compare", headers=headers, json={**COMPARE, **extra})
    assert response.status_code == 200, response.text


async def test_a_judge_keeps_its_provider_key_through_a_secret_rotation(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    def settings(**keys: str) -> Settings:
        return settings_factory(judge_hosts_allow="127.0.0.1", **keys)

    async with recording_provider() as provider:
        before = await live_factory(settings(secret_key=KEY_1))
        judge = {"name": "keyed", "provider": "openai", "model": "m", "api_key": "sk-judge"}
        posted = await before.post(
            "/v1/judges", headers=admin, json={**judge, "base_url": provider.base_url}
        )
        assert posted.status_code == 201, posted.text
        await compare(before, comparer, judges=["keyed"])

        # Key 2 encrypts, key 1 still decrypts: a new process reads the stored key.
        switched = await live_factory(settings(secret_key=KEY_2, secret_key_previous=KEY_1))
        await compare(switched, comparer, judges=["keyed"])

        report = await rotate_secret(clean_pg, previous=KEY_1)
        assert "provider keys: 1 re-encrypted, 0 already current, 0 unreadable" in report
        again = await rotate_secret(clean_pg, previous=KEY_1)
        assert "provider keys: 0 re-encrypted, 1 already current, 0 unreadable" in again

        after = await live_factory(settings(secret_key=KEY_2))
        await compare(after, comparer, judges=["keyed"])
    assert provider.authorizations
    assert set(provider.authorizations) == {"Bearer sk-judge"}
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        query = select(JudgeVersion.api_key_ciphertext).where(
            JudgeVersion.api_key_ciphertext.is_not(None)
        )
        (ciphertext,) = (await session.scalars(query)).all()
    await engine.dispose()
    assert ciphertext is not None
    with pytest.raises(InvalidToken):  # key 1 no longer opens it
        crypto.decrypt(SecretStr(KEY_1), ciphertext)


async def prompt_hmacs(database_url: str) -> list[str | None]:
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        query = select(Comparison.prompt_hmac).order_by(Comparison.created_at)
        hmacs = list((await session.scalars(query)).all())
    await engine.dispose()
    return hmacs


async def test_privacy_hashes_of_a_text_are_equal_before_and_after_a_rotation(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    before = await live_factory(settings_factory(secret_key=KEY_1, privacy="hash"))
    await compare(before, comparer)
    report = await rotate_secret(clean_pg, previous=KEY_1)
    assert "instance secrets: 1 re-encrypted" in report
    after = await live_factory(settings_factory(secret_key=KEY_2, privacy="hash"))
    await compare(after, comparer)

    first, second = await prompt_hmacs(clean_pg)
    assert first == second
    # The stored salt is the one derived before salts were stored: old hashes still match.
    legacy_salt = hashlib.sha256(b"fairpair-text-hmac:" + KEY_1.encode()).digest()
    assert first == hmac.new(legacy_salt, PROMPT.encode(), hashlib.sha256).hexdigest()


async def test_the_stored_salt_is_encrypted_and_processes_starting_together_agree(
    clean_pg: str,
) -> None:
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    # A rotating process derives a first salt from the previous key, another from the current;
    # whichever stores it first, both use the stored one.
    rotating = Settings(database_url=clean_pg, secret_key=KEY_2, secret_key_previous=KEY_1)
    plain = Settings(database_url=clean_pg, secret_key=KEY_2)
    salts = await asyncio.gather(*(stored_salt(s, maker) for s in [rotating, plain] * 4))
    async with maker() as session:
        (row,) = (await session.scalars(select(InstanceSecret))).all()
    await engine.dispose()
    assert len(set(salts)) == 1
    assert salts[0].hex() not in row.ciphertext
    assert (
        hkdf_fernet(KEY_2_BYTES, b"fairpair/instance-secrets").decrypt(row.ciphertext.encode())
        == salts[0].hex().encode()
    )


async def test_privacy_mode_refuses_to_start_when_the_stored_salt_cannot_be_opened(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> None:
    await live_factory(settings_factory(secret_key=KEY_1, privacy="hash"))
    with pytest.raises(RuntimeError, match="FAIRPAIR_SECRET_KEY_PREVIOUS"):
        await live_factory(settings_factory(secret_key=KEY_2, privacy="hash"))
    # Outside privacy mode nothing is hashed: the service starts and serves.
    client = await live_factory(settings_factory(secret_key=KEY_2))
    assert (await client.get("/readyz")).status_code == 200


async def store_provider_request(database_url: str, settings: Settings) -> None:
    """A privacy-mode provider request, answered but not yet used: body and result sealed."""
    now = utcnow()
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        session.add(Batch(id="b1", request_hash="0" * 64, item_count=1, mode="provider"))
        await session.flush()
        item = {"id": "i1", "batch_id": "b1", "position": 0, "kind": "compare", "status": "waiting"}
        session.add(BatchItem(**item, target_id="t1", enqueued_at=now))
        await session.flush()
        body, encrypted = seal(settings, {"messages": [PROMPT]})
        result, _ = seal(settings, {"content": "the answer"})
        session.add(
            ProviderRequest(
                custom_id="fp_1", batch_id="b1", item_id="i1", judge_name="j", request_key="k",
                state="resolved", body=body, result=result, encrypted=encrypted, created_at=now,
            )
        )  # fmt: skip
        await session.commit()
    await engine.dispose()


async def test_a_rotation_reencrypts_provider_requests_and_keeps_their_keys_and_draws(
    settings_factory: Callable[..., Settings], clean_pg: str
) -> None:
    # Issue 36: rotation left provider requests under the old key, and their request keys and
    # the items' draws were keyed by the secret key, so a rotation re-asked (and paid for)
    # every waiting request.
    before = settings_factory(secret_key=KEY_1, privacy="hash")
    await store_provider_request(clean_pg, before)
    engine = create_engine(clean_pg)
    keeper_before = await text_keeper(before, create_sessionmaker(engine))
    report = await rotate_secret(clean_pg, previous=KEY_1)
    assert "provider requests: 1 re-encrypted" in report
    assert "provider results: 1 re-encrypted" in report
    after = settings_factory(secret_key=KEY_2, privacy="hash")
    keeper_after = await text_keeper(after, create_sessionmaker(engine))
    async with create_sessionmaker(engine)() as session:
        stored = await session.get(ProviderRequest, "fp_1")
    await engine.dispose()
    assert stored is not None
    assert stored.result is not None
    assert unseal(after, stored.result, encrypted=True) == {"content": "the answer"}  # key 2 only
    body = {"messages": [PROMPT]}
    assert request_key(keeper_after, "j", body) == request_key(keeper_before, "j", body)
    assert draws_seed(keeper_after, "t1") == draws_seed(keeper_before, "t1")
