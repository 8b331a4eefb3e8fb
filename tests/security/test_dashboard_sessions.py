"""Dashboard sessions: the cookie holds a server-side session token, never the API key."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from sqlalchemy import select, update

from app.auth.keys import revoke_key
from app.auth.models import DashboardSession
from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow

FOREIGN = (
    {"Origin": "https://evil.example"},
    {"Origin": "http://127.0.0.1.evil.example"},
    {"Origin": "http://127.0.0.1:8000"},
    {"Origin": "null"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site"},
)


@pytest.fixture
async def app_on(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with auth on."""
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    return client


def token_of(headers: dict[str, str]) -> str:
    return headers["Authorization"].removeprefix("Bearer ")


def cookie_of(response: httpx2.Response) -> str:
    """The value the login set in the `fairpair_key` cookie."""
    name, _, value = response.headers["set-cookie"].split(";")[0].partition("=")
    assert name == "fairpair_key"
    return value


async def log_in(client: httpx2.AsyncClient, token: str, **headers: str) -> httpx2.Response:
    return await client.post("/dashboard/login", data={"key": token}, headers=headers)


async def with_cookie(client: httpx2.AsyncClient, value: str) -> int:
    """The status of the overview page for a request carrying only this cookie."""
    client.cookies.clear()
    return (await client.get("/dashboard", headers={"Cookie": f"fairpair_key={value}"})).status_code


async def log_out(client: httpx2.AsyncClient, value: str, **headers: str) -> httpx2.Response:
    """Log out the session whose cookie is `value`."""
    client.cookies.clear()
    return await client.post(
        "/dashboard/logout", headers={"Cookie": f"fairpair_key={value}", **headers}
    )


async def stored_sessions(database_url: str) -> list[DashboardSession]:
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        rows = list((await session.scalars(select(DashboardSession))).all())
    await engine.dispose()
    return rows


async def test_the_cookie_holds_a_session_token_and_the_database_only_its_hash(
    app_on: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    token = token_of(reader)
    login = await log_in(app_on, token, Origin="http://127.0.0.1")
    assert login.status_code == 303
    value = cookie_of(login)
    key_id, secret = token.split("_")[1:]
    assert secret not in value
    assert key_id not in value
    assert len(value) >= 43  # 256 random bits, base64url
    [row] = await stored_sessions(clean_pg)
    assert row.token_sha256 == hashlib.sha256(value.encode()).hexdigest()
    assert row.key_id == key_id
    assert row.expires_at - row.created_at == timedelta(hours=8)
    assert await with_cookie(app_on, value) == 200
    # The API key itself is no cookie: a cookie holding one is sent to log in.
    assert await with_cookie(app_on, token) == 303


async def test_logout_revokes_the_session_on_the_server(
    app_on: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    value = cookie_of(await log_in(app_on, token_of(reader)))
    other = cookie_of(await log_in(app_on, token_of(reader)))
    out = await log_out(app_on, value, Origin="http://127.0.0.1")
    assert out.status_code == 303
    assert "max-age=0" in out.headers["set-cookie"].lower()
    assert await with_cookie(app_on, value) == 303  # a copy of the cookie is worthless now
    assert await with_cookie(app_on, other) == 200  # another login of the same key goes on
    revoked = {row.token_sha256 for row in await stored_sessions(clean_pg) if row.revoked_at}
    assert revoked == {hashlib.sha256(value.encode()).hexdigest()}


async def test_revoking_the_key_or_expiry_ends_its_sessions(
    app_on: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str], comparer: dict[str, str]
) -> None:
    of_reader = cookie_of(await log_in(app_on, token_of(reader)))
    of_comparer = cookie_of(await log_in(app_on, token_of(comparer)))
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        assert await revoke_key(session, "reader")
        await session.execute(
            update(DashboardSession)
            .where(DashboardSession.key_id == token_of(comparer).split("_")[1])
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
        await session.commit()
    await engine.dispose()
    assert await with_cookie(app_on, of_reader) == 303
    assert await with_cookie(app_on, of_comparer) == 303


async def test_login_and_logout_posted_from_another_origin_are_refused(
    app_on: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    token = token_of(reader)
    for headers in FOREIGN:
        refused = await log_in(app_on, token, **headers)
        assert refused.status_code == 403, headers
        assert refused.headers["content-type"] == "application/problem+json"
        assert refused.json()["type"] == "forbidden"
        assert "set-cookie" not in refused.headers
    assert await stored_sessions(clean_pg) == []
    same = {"Origin": "http://127.0.0.1", "Sec-Fetch-Site": "same-origin"}
    value = cookie_of(await log_in(app_on, token, **same))
    for headers in FOREIGN:
        assert (await log_out(app_on, value, **headers)).status_code == 403
    assert await with_cookie(app_on, value) == 200  # no foreign form logged the user out


async def test_the_cookie_is_secure_over_https_and_behind_a_trusted_proxy_only(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    token = token_of(reader)
    direct = await live_factory(settings_factory())
    proxied = await live_factory(settings_factory(trusted_proxies="10.9.0.0/16, 127.0.0.1"))
    forwarded = {"X-Forwarded-Proto": "https"}

    def secure(login: httpx2.Response) -> bool:
        assert login.status_code == 303
        return "secure" in [part.strip() for part in login.headers["set-cookie"].lower().split(";")]

    https = await direct.post("https://127.0.0.1/dashboard/login", data={"key": token})
    assert secure(https)
    assert not secure(await log_in(direct, token))
    assert not secure(await log_in(direct, token, **forwarded))  # no proxy is trusted
    assert secure(await log_in(proxied, token, **forwarded))
    assert not secure(await log_in(proxied, token, **{"X-Forwarded-Proto": "http"}))
