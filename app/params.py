"""Query-parameter parsing that several routers share: a parameter is declared and checked once,
whichever route or dashboard page reads it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import Query

from app.errors import ValidationProblem

# A judge's name, as a filter.
JudgeParam = Annotated[str | None, Query(max_length=100)]
# `key:value` tag filters, ANDed.
TagParams = Annotated[list[str] | None, Query(max_length=16)]


def check_order(since: datetime | None, until: datetime | None) -> None:
    """422 unless `until` comes after `since` (when both are given)."""
    if since is not None and until is not None and until <= since:
        raise ValidationProblem("/until: must be after since")
