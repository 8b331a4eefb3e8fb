"""Query-parameter parsing that several routers share: a parameter is declared and checked once,
whichever route or dashboard page reads it."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import Annotated

from fastapi import Query
from pydantic import TypeAdapter, ValidationError
from sqlalchemy import ColumnElement, SQLColumnExpression, and_, or_

from app.errors import ValidationProblem
from app.fields import check_text
from app.privacy import TextKeeper
from app.textpatterns import compile_linear

# A judge's name, as a filter.
JudgeParam = Annotated[str | None, Query(max_length=100)]
# `key:value` tag filters, ANDed.
TagParams = Annotated[list[str] | None, Query(max_length=16)]
# A moment: an ISO 8601 date or datetime (naive means UTC), an age before now like 7d, 24h, 30m,
# or Unix seconds (what the parameter took before ages).
MomentParam = Annotated[
    str | None,
    Query(
        max_length=64,
        description="ISO 8601 (naive means UTC), an age before now (7d, 24h, 30m) or Unix seconds",
        examples=["7d", "2026-01-31T00:00:00Z"],
    ),
]
AGE = compile_linear(r"(\d{1,6})([dhm])")
AGE_UNITS = {"d": "days", "h": "hours", "m": "minutes"}
# The moments a filter may name. Far inside what `datetime` holds, so that the arithmetic the
# readers do on a bound (a 30-day default window, a dashboard window of up to ten years, an
# edge less two hours, the hour after the last bucket, the provider-model walk's end in 9999)
# never overflows; no stored job lies outside it.
EARLIEST = datetime(1900, 1, 1, tzinfo=UTC)
LATEST = datetime(9000, 1, 1, tzinfo=UTC)
# A PostgreSQL `integer` (judge versions): the driver refuses a larger parameter, a 500.
MAX_INTEGER = 2**31 - 1


def query_problem(name: str, message: str) -> ValidationProblem:
    """A 422 for query parameter `name`, its pointer in `detail` and in `errors`."""
    error = {"pointer": f"/{name}", "in": "query", "message": message}
    return ValidationProblem(f"/{name}: {message}", extra={"errors": [error]})


def check_order(since: datetime | None, until: datetime | None) -> None:
    """422 unless `until` comes after `since` (when both are given)."""
    if since is not None and until is not None and until <= since:
        raise ValidationProblem("/until: must be after since")


def parse_tag_filters(tags: Sequence[str], keeper: TextKeeper) -> list[tuple[str, str]]:
    """`key:value` filters, each value as stored (its HMAC in privacy mode); 422 for one
    without a colon."""
    parsed = []
    for i, tag in enumerate(tags):
        key, sep, value = tag.partition(":")
        if not sep or not key:
            raise ValidationProblem(f"/tag/{i}: expected key:value")
        try:
            check_text(tag)
        except ValueError as exc:
            raise ValidationProblem(f"/tag/{i}: {exc}") from exc
        parsed.append((key, keeper.token(value)))
    return parsed


def as_utc(moment: datetime, name: str = "since") -> datetime:
    """A query parameter's time in UTC (naive means UTC); 422 outside EARLIEST..LATEST. Every
    time filter (reports, dashboard, lists, leaderboard) comes through here."""
    try:
        utc = (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).astimezone(UTC)
    except OverflowError as exc:
        raise query_problem(name, "out of range") from exc
    if not EARLIEST <= utc < LATEST:
        raise query_problem(name, f"out of range ({EARLIEST.year} to {LATEST.year - 1})")
    return utc


def check_version(version: int | None, name: str = "judge_version") -> None:
    """422 for a judge version no judge can have (below 1, or past a database integer)."""
    if version is not None and not 1 <= version <= MAX_INTEGER:
        raise query_problem(name, f"out of range (1 to {MAX_INTEGER})")


def parse_age(text: str) -> timedelta:
    """`90d`, `12h` or `30m` as a timedelta; ValueError for anything else."""
    age = AGE.fullmatch(text.strip())
    if age is None:
        raise ValueError(f"expected an age like 90d, 12h or 30m, got {text!r}")
    return timedelta(**{AGE_UNITS[age[2]]: int(age[1])})


@cache
def _datetimes() -> TypeAdapter[datetime]:
    return TypeAdapter(datetime)


def unix_time(text: str, name: str) -> datetime:
    """A Unix time (seconds, or milliseconds past 2e10) as pydantic reads one: what these
    parameters took before they took ages, kept so that no caller breaks."""
    if not (text.isascii() and text.removeprefix("-").replace(".", "", 1).isdigit()):
        raise ValidationProblem(f"/{name}: expected an ISO 8601 time or an age like 7d, 24h or 30m")
    try:
        return _datetimes().validate_python(text)
    except ValidationError as exc:
        raise query_problem(name, "out of range") from exc


def parse_moment(text: str, name: str, *, now: datetime) -> datetime:
    """`text` as a UTC moment: an age like `7d`, `24h` or `30m` before `now`, else ISO 8601
    (naive means UTC), else Unix seconds (`unix_time`). Every `since`/`until` the API, the
    dashboard and `fairpair report` take is read through it."""
    if AGE.fullmatch(text.strip()):
        try:
            return as_utc(now - parse_age(text), name)
        except OverflowError as exc:
            raise query_problem(name, "out of range") from exc
    try:
        moment = datetime.fromisoformat(text.strip())
    except ValueError:
        moment = unix_time(text.strip(), name)
    return as_utc(moment, name)


def parse_since_until(
    since: str | None, until: str | None, *, now: datetime
) -> tuple[datetime | None, datetime | None]:
    """A list's `since`/`until` (each as `parse_moment` reads it), `until` after `since`."""
    start = None if since is None else parse_moment(since, "since", now=now)
    end = None if until is None else parse_moment(until, "until", now=now)
    check_order(start, end)
    return start, end


def encode_name_cursor(kind: str, position: str) -> str:
    """An opaque cursor after `position` (a name or number) in a list of `kind` (one letter)."""
    return base64.urlsafe_b64encode(f"{kind}{position}".encode()).decode()


def decode_name_cursor(cursor: str, kind: str) -> str:
    """The position a cursor of ours points after; 422 for anything else. Printable ASCII only:
    a NUL would reach PostgreSQL as a comparison it refuses (a 500)."""
    try:
        raw = base64.urlsafe_b64decode(cursor.encode()).decode()
    except (ValueError, binascii.Error, UnicodeDecodeError) as exc:
        raise ValidationProblem("/cursor: not a valid cursor") from exc
    valid = raw.startswith(kind) and 2 <= len(raw) <= 101 and raw.isascii() and raw.isprintable()
    if not valid:
        raise ValidationProblem("/cursor: not a valid cursor")
    return raw[1:]


def encode_time_cursor(created_at: datetime, row_id: str) -> str:
    """An opaque keyset cursor after the row (`created_at`, `row_id`) of a list newest first."""
    return base64.urlsafe_b64encode(f"{created_at.isoformat()}|{row_id}".encode()).decode()


def decode_time_cursor(cursor: str) -> tuple[datetime, str]:
    """The (created_at, id) a cursor points after; 422 when it is not one of ours.

    Cursors come back from clients: a forged one must fail here, not in the database (a NUL,
    a naive or out-of-range time, an id no uuid could be).
    """
    try:
        raw = base64.urlsafe_b64decode(cursor.encode()).decode()
        created_text, _, row_id = raw.partition("|")
        if not (raw.isascii() and raw.isprintable()) or len(row_id) > 36:
            raise ValueError(raw)
        created_at = datetime.fromisoformat(created_text)
        if created_at.tzinfo is None:
            raise ValueError(created_text)
        return created_at.astimezone(UTC), row_id
    except (ValueError, OverflowError, binascii.Error, UnicodeDecodeError) as exc:
        raise ValidationProblem("/cursor: not a valid cursor") from exc


def before_cursor(
    created_at: SQLColumnExpression[datetime], row_id: SQLColumnExpression[str], cursor: str
) -> ColumnElement[bool]:
    """The rows after `cursor` in a list newest first, keyset on (created_at, id)."""
    at, last_id = decode_time_cursor(cursor)
    return or_(created_at < at, and_(created_at == at, row_id < last_id))
