"""API keys: 401 without a valid key, 403 without the scope, revocation, the cache."""

from __future__ import annotations

import httpx2
from sqlalchemy import select

from app.auth.keys import KeyCache, create_key, parse_key, revoke_key
from app.auth.models import ApiKey
from app.db import create_engine, create_sessionmaker


async def test_requests_without_a_key_get_401_problem(client: httpx2.AsyncClient) -> None:
    response = await client.get("/v1/judges")
    assert response.status_code == 401
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["type"] == "unauthorized"


async def test_a_malformed_or_unknown_key_gets_401(client: httpx2.AsyncClient) -> None:
    for token in ("nonsense", "fp_abc_def", "fp__x"):
        response = await client.get("/v1/judges", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == 401


async def test_a_key_without_the_scope_gets_403(
    client: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    response = await client.post(
        "/v1/judges", headers=reader, json={"name": "x", "provider": "sim", "model": "m"}
    )
    assert response.status_code == 403
    assert response.json()["type"] == "forbidden"


async def test_health_probes_are_open(client: httpx2.AsyncClient) -> None:
    assert (await client.get("/healthz")).status_code == 200
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"]["database"] is True


async def test_stored_key_holds_only_the_hash_of_its_secret(clean_pg: str) -> None:
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        token = await create_key(session, "k", ["read"])
        key_id, secret = parse_key(token) or ("", "")
        row = await session.scalar(select(ApiKey).where(ApiKey.id == key_id))
    await engine.dispose()
    assert row is not None
    assert secret not in row.secret_sha256
    assert len(secret) == 64  # 256 bits of hex


async def test_revoked_key_is_refused_once_the_cache_expires(clean_pg: str) -> None:
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    cache = KeyCache(ttl_s=0)
    async with maker() as session:
        token = await create_key(session, "k", ["read"])
        assert await cache.verify(session, token) is not None
        await revoke_key(session, "k")
        assert await cache.verify(session, token) is None
    await engine.dispose()


async def test_cached_key_with_a_wrong_secret_is_refused(clean_pg: str) -> None:
    engine = create_engine(clean_pg)
    cache = KeyCache(ttl_s=60)
    async with create_sessionmaker(engine)() as session:
        token = await create_key(session, "k", ["read"])
        assert await cache.verify(session, token) is not None
        forged = token[:-4] + ("0000" if not token.endswith("0000") else "1111")
        assert await cache.verify(session, forged) is None
    await engine.dispose()
