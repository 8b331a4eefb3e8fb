"""No log line of the API or the worker holds SQL parameters or an error's message.

A driver error's message quotes the statement's parameters (prompts, responses, key hashes): the
engines hide them, and the worker's loops and items log an error by its type and place
(`app.logs.error_fields`), as the API's 500s do.
"""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError
from structlog.testing import capture_logs
from taskiq import InMemoryBroker

from app.batches.queue import TASK_NAME, register
from app.db import create_engine

SECRET = "a prompt nobody may read in a log"


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_a_failing_statement_does_not_quote_its_parameters(
    backend: str, pg_url: str, tmp_path: object
) -> None:
    url = pg_url if backend == "postgresql" else f"sqlite+aiosqlite:///{tmp_path}/x.db"
    engine = create_engine(url)
    try:
        with pytest.raises(DBAPIError) as failed:
            async with engine.connect() as conn:
                await conn.execute(text("SELECT * FROM no_such_table WHERE x = :x"), {"x": SECRET})
    finally:
        await engine.dispose()
    assert SECRET not in str(failed.value)
    assert "hidden" in str(failed.value)


async def test_a_failing_batch_item_is_logged_by_type_and_place_never_its_message() -> None:
    async def run_item(item_id: str) -> None:
        raise ValueError(f"could not judge {SECRET!r}")

    broker = InMemoryBroker()
    register(broker, run_item)
    task = broker.find_task(TASK_NAME)
    assert task is not None
    with capture_logs() as lines:
        await task.original_func("item-1")
    assert [line["event"] for line in lines] == ["internal_error"]
    assert lines[0]["error"] == "ValueError"
    assert lines[0]["item_id"] == "item-1"
    assert any("run_item" in frame for frame in lines[0]["frames"])
    assert SECRET not in repr(lines)
