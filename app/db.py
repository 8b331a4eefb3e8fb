"""Database plumbing: the declarative base, UTC timestamps, engine and session factories."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, DateTime, MetaData, event
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.engine import Dialect, ExceptionContext
from sqlalchemy.exc import DisconnectionError, OperationalError
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.orm import DeclarativeBase
from sqlalchemy.types import TypeDecorator

NAMING_CONVENTION = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

# JSONB on PostgreSQL, JSON text on SQLite.
JSONType = JSON().with_variant(JSONB(), "postgresql")


class Base(DeclarativeBase):
    """Base of every ORM model; constraint names come from one convention."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)


class UTCDateTime(TypeDecorator[datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite keeps no zone)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime stored; use datetime.now(UTC)")
        return value.astimezone(UTC)

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def rowcount(result: object) -> int:
    """Rows an UPDATE or DELETE touched (the typed Result does not declare it)."""
    return int(getattr(result, "rowcount", 0) or 0)


def utcnow() -> datetime:
    """The current time, timezone-aware."""
    return datetime.now(UTC)


def _configure_sqlite(dbapi_connection: Any, _record: Any) -> None:
    # WAL lets readers run beside the writer; the busy timeout queues writers instead of failing.
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=30000")
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


CONNECT_TIMEOUT_S = 10.0


def create_engine(database_url: str, timeout_s: float | None = None) -> AsyncEngine:
    """An async engine with the settings each backend needs. On PostgreSQL, `timeout_s` bounds
    every statement the service sends (`database_timeout_s`); migrations and benchmarks give
    none, as one of their statements may rightly take minutes."""
    # hide_parameters: a driver error's message (logged by a library, or by a loop that logs
    # `str(exc)`) otherwise quotes the statement's parameters: prompts, responses, key hashes.
    if database_url.startswith("sqlite"):
        engine = create_async_engine(
            database_url, connect_args={"timeout": 30}, hide_parameters=True
        )
        event.listen(engine.sync_engine, "connect", _configure_sqlite)
        return engine
    # asyncpg's own bounds: a client-side one on connecting and on each statement, which holds
    # for a server that stopped answering as well as for one that is slow.
    connect_args: dict[str, float] = {"timeout": min(CONNECT_TIMEOUT_S, timeout_s or 60.0)}
    if timeout_s is not None:
        connect_args["command_timeout"] = timeout_s
    engine = create_async_engine(
        database_url,
        pool_size=20,
        max_overflow=20,
        pool_timeout=10,
        connect_args=connect_args,
        hide_parameters=True,
    )
    ping_when_idle(engine)
    disconnects_are_operational(engine)
    return engine


# A connection back in the pool for less than this was working a moment ago: checking it out again
# needs no ping. `pool_pre_ping` pings on every checkout (BEGIN and ROLLBACK with asyncpg: two round
# trips, three checkouts per comparison, ~4% of the API's CPU). A connection that dies while
# in use, or within this time of its last use, fails its statement instead; SQLAlchemy then
# recognises the disconnect and discards every pooled connection older than it, so one request
# hears the restart (503) and the next ones reconnect.
IDLE_BEFORE_PING_S = 5.0


def ping_when_idle(engine: AsyncEngine) -> None:
    """Ping a pooled connection on checkout when it sat idle for `IDLE_BEFORE_PING_S`, or when a
    new connection to the server failed since this one was last known good.

    The second case: an outage seen first by a connect (refused, timed out) invalidates nothing in
    the pool, unlike a pooled connection's disconnect, so the connections returned just before
    it would be handed out unpinged once the server is back, and the first write after recovery
    would fail (a 503 `not_persisted` after `/readyz` said 200)."""
    connect_failed_at = [0.0]

    @event.listens_for(engine.sync_engine, "connect")
    def _connected(_dbapi_connection: Any, record: Any) -> None:
        record.info["good_at"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "do_connect")
    def _connect_noting_failures(dialect: Dialect, _record: Any, cargs: Any, cparams: Any) -> Any:
        # A refused connect is an OSError, which no `handle_error` hook hears: connect here.
        try:
            return dialect.connect(*cargs, **cparams)
        except Exception:
            connect_failed_at[0] = time.monotonic()
            raise

    @event.listens_for(engine.sync_engine, "checkin")
    def _returned(_dbapi_connection: Any, record: Any) -> None:
        record.info["returned_at"] = time.monotonic()

    @event.listens_for(engine.sync_engine, "checkout")
    def _ping_if_doubtful(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        now, returned_at = time.monotonic(), record.info.get("returned_at")
        idle = returned_at is not None and now - returned_at >= IDLE_BEFORE_PING_S
        outage_since = record.info.get("good_at", 0.0) < connect_failed_at[0]
        if not (idle or outage_since):
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as exc:
            # The pool discards this connection and checks out a fresh one.
            raise DisconnectionError("pooled connection failed its ping") from exc
        record.info["good_at"] = now


def create_sessionmaker(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions that keep loaded values after commit (we answer from them)."""
    return async_sessionmaker(engine, expire_on_commit=False)


def disconnects_are_operational(engine: AsyncEngine) -> None:
    """A statement that loses its connection raises `OperationalError`, as a failed connect does
    (a connect the server refuses too).

    asyncpg's "connection was closed" comes out of SQLAlchemy as a bare `DBAPIError`; PEP 249 files
    an unexpected disconnect under OperationalError, and so do our handlers (503, `not_persisted`).
    """

    @event.listens_for(engine.sync_engine, "handle_error")
    def _as_operational(context: ExceptionContext) -> OperationalError | None:
        # A connect the server refuses ("too many clients", a database not accepting
        # connections) comes out as a bare DBAPIError too: a 500 where the outage is a 503.
        refused_connect = context.connection is None and context.sqlalchemy_exception is not None
        if not (context.is_disconnect or refused_connect):
            return None
        if isinstance(context.sqlalchemy_exception, OperationalError):
            return None
        return OperationalError(
            context.statement,
            context.parameters,
            context.original_exception,
            connection_invalidated=context.is_disconnect,
        )


def values_of(source: object, *names: str) -> dict[str, Any]:
    """The named attributes of a row or record, as keyword arguments for another shape."""
    return {name: getattr(source, name) for name in names}
