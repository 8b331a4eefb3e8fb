"""A batch's results as one file, streamed page by page: JSON Lines (each item exactly as
`GET /v1/batches/{id}/results` shows it) or CSV (one flat row per item, for spreadsheets).

Each page is read in a session of its own, so a long export holds no connection between pages
and a slow reader holds none at all.
"""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator, Iterable
from typing import Literal

import orjson
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.batches import queries
from app.batches.schemas import BatchItemRead

ExportFormat = Literal["jsonl", "csv"]
MEDIA_TYPES: dict[ExportFormat, str] = {"jsonl": "application/x-ndjson", "csv": "text/csv"}
PAGE = 200
CSV_COLUMNS = (
    "position",
    "item_id",
    "kind",
    "status",
    "comparison_id",
    "score_session_id",
    "winner",
    "confidence",
    "error_type",
    "error_detail",
    "attempts",
    "started_at",
    "finished_at",
)
# A cell a spreadsheet would run as a formula (OWASP's CSV injection list): client-given text
# such as an item id is shown as text instead.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


async def item_pages(
    sessionmaker: async_sessionmaker[AsyncSession], batch_id: str
) -> AsyncIterator[list[BatchItemRead]]:
    """Every item of the batch in submission order, a page at a time."""
    cursor: str | None = None
    while True:
        async with sessionmaker() as session:
            page = await queries.list_results(
                session, batch_id, limit=PAGE, cursor=cursor, status=None
            )
        yield page.items
        if page.next_cursor is None:
            return
        cursor = page.next_cursor


def jsonl(items: Iterable[BatchItemRead]) -> bytes:
    """One JSON object per line."""
    return b"".join(orjson.dumps(item.model_dump(mode="json")) + b"\n" for item in items)


def text_cell(value: object) -> str:
    """A value as a CSV cell: empty for none, and never a formula."""
    if value is None:
        return ""
    text = value.isoformat() if hasattr(value, "isoformat") else str(value)
    return "'" + text if text.startswith(FORMULA_STARTS) else text


def csv_row(item: BatchItemRead) -> list[str]:
    """An item's flat row: a comparison's verdict and confidence, an error's type and detail."""
    comparison, error = item.comparison, item.error
    values = {
        **item.model_dump(include={"position", "item_id", "kind", "status", "attempts"}),
        "comparison_id": item.comparison_id,
        "score_session_id": item.score_session_id,
        "winner": comparison.winner if comparison else None,
        "confidence": comparison.confidence if comparison else None,
        "error_type": error.type if error else None,
        "error_detail": error.detail if error else None,
        "started_at": item.started_at,
        "finished_at": item.finished_at,
    }
    return [text_cell(values[column]) for column in CSV_COLUMNS]


def csv_lines(rows: Iterable[list[str]]) -> bytes:
    """Rows as CSV text (RFC 4180 quoting, CRLF line ends)."""
    buffer = io.StringIO()
    csv.writer(buffer).writerows(rows)
    return buffer.getvalue().encode()


async def export(
    sessionmaker: async_sessionmaker[AsyncSession], batch_id: str, form: ExportFormat
) -> AsyncIterator[bytes]:
    """The file's bytes, a page of items at a time (CSV with its header first)."""
    if form == "csv":
        yield csv_lines([list(CSV_COLUMNS)])
    async for items in item_pages(sessionmaker, batch_id):
        yield jsonl(items) if form == "jsonl" else csv_lines(map(csv_row, items))
