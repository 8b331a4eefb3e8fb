"""Rows of stored comparisons for tests that insert them directly (reports, labels, leaderboard)."""

from __future__ import annotations

from datetime import datetime
from typing import Any


def comparison_row(
    comparison_id: str,
    at: datetime,
    *,
    status: str = "complete",
    placebo: bool = False,
    protocol: str = "swap",
    **columns: Any,
) -> dict[str, Any]:
    """A finished comparison's columns at `at`; `columns` add to or override them."""
    return {
        "id": comparison_id,
        "created_at": at,
        "completed_at": at,
        "deadline_at": at,
        "status": status,
        "api_key_id": "",
        "request_hash": "0" * 64,
        "prompt": "p",
        "response_a": "a",
        "response_b": "a" if placebo else "b",
        "len_a": 1,
        "len_b": 1,
        "placebo": placebo,
        "protocol": protocol,
        "protocol_params": {"kind": protocol},
        "planned_rounds": 2,
        "self_preference": "allow",
        "timeout_s": 120.0,
        "panel": {"judges": [], "excluded": []},
        **columns,
    }


def tag_rows(comparison_id: str, tags: dict[str, str] | None) -> list[dict[str, Any]]:
    """The comparison's tag rows."""
    return [{"comparison_id": comparison_id, "key": k, "value": v} for k, v in (tags or {}).items()]
