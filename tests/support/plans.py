"""Query plans of the bias report's statements, for tests that hold a statement to an index."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from sqlalchemy import event, text

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.ledger.callscope import ReportFilters
from app.reports.bias import build_report


async def report_plans(
    url: str,
    filters: ReportFilters,
    wanted: Callable[[str], bool],
    *settings: str,
    as_json: bool = False,
) -> list[Any]:
    """The plans of the statements one bias report sends that `wanted` picks, in their order:
    each EXPLAINed with its parameters on a fresh connection after the `settings` statements
    (e.g. `SET enable_seqscan = off`, so that the plan shows whether an index can serve it), as
    text, or parsed from JSON."""
    engine = create_engine(url)
    captured: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, *rest: Any) -> None:
        if wanted(statement):
            captured.append((statement, parameters))

    event.listen(engine.sync_engine, "before_cursor_execute", capture)
    try:
        async with create_sessionmaker(engine)() as session:
            await build_report(session, filters, Settings())
        event.remove(engine.sync_engine, "before_cursor_execute", capture)
        async with engine.connect() as connection:
            for setting in settings:
                await connection.execute(text(setting))
            explain = "EXPLAIN (FORMAT JSON)" if as_json else "EXPLAIN"
            plans = []
            for statement, parameters in captured:
                result = await connection.exec_driver_sql(f"{explain} {statement}", parameters)
                rows = [row[0] for row in result]
                plans.append(parsed(rows[0]) if as_json else "\n".join(rows))
    finally:
        await engine.dispose()
    return plans


def parsed(plan: Any) -> Any:
    """A JSON plan as the driver returns it (asyncpg: text), parsed."""
    return json.loads(plan) if isinstance(plan, str) else plan


def plan_nodes(node: dict[str, Any]) -> list[dict[str, Any]]:
    """A plan node and every node below it."""
    return [node, *(found for child in node.get("Plans", []) for found in plan_nodes(child))]
