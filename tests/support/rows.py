"""Rows of stored comparisons for tests that insert them directly (reports, labels, leaderboard)."""

from __future__ import annotations

from datetime import UTC, datetime
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


def call_row(comparison_id: str, round_index: int) -> dict[str, Any]:
    """One answered swap call, as the write path inserts it."""
    order = "AB" if round_index == 0 else "BA"
    now = datetime.now(UTC)
    return {
        "comparison_id": comparison_id, "judge_name": "bench-judge", "judge_version": 1,
        "judge_config_hash": "c" * 64, "judge_family": None, "role": "voter",
        "protocol": "swap", "round": round_index, "design": True, "display_order": order,
        "label_pair": "P/Q", "label_a": "P" if order == "AB" else "Q",
        "label_b": "Q" if order == "AB" else "P", "first_slot_second_label": False,
        "template_hash": "t" * 64, "nonces": [], "anonymized_replacements": 0,
        "pick": "first", "mapped_winner": "A" if order == "AB" else "B", "confidence": 0.9,
        "confidence_source": "stated", "latency_ms": 100.0, "started_at": now,
        "finished_at": now, "retries": 0, "tokens_in": 500, "tokens_out": 20,
    }  # fmt: skip
