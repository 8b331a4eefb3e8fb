"""Query-parameter parsing that several routers share: a parameter is declared and checked once,
whichever route or dashboard page reads it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Annotated

from fastapi import Query

from app.errors import ValidationProblem
from app.fields import check_text
from app.privacy import TextKeeper

# A judge's name, as a filter.
JudgeParam = Annotated[str | None, Query(max_length=100)]
# `key:value` tag filters, ANDed.
TagParams = Annotated[list[str] | None, Query(max_length=16)]


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
    """A query parameter's time in UTC (naive means UTC); 422 when UTC cannot hold it."""
    try:
        return (moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment).astimezone(UTC)
    except OverflowError as exc:
        raise ValidationProblem(f"/{name}: out of range") from exc
