"""The write path of judge calls is explicit: `app.jobs.writes.store_calls` is the only code
that inserts calls, and no ORM session event does work behind a caller's back."""

from __future__ import annotations

import ast
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
CALL_TABLES = {"JudgeCall", "ScoreCall"}


def modules() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text())) for path in sorted(APP.rglob("*.py"))]


def names_in(node: ast.AST) -> set[str]:
    """Every name and attribute name an expression mentions."""
    found = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute):
            found.add(sub.attr)
    return found


def test_no_module_of_app_listens_to_orm_session_events() -> None:
    offenders = []
    for path, tree in modules():
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in {"listen", "listens_for"} and any(
                "Session" in target for target in names_in(node.args[0])
            ):
                offenders.append(f"{path.relative_to(APP)}:{node.lineno}")
    assert offenders == []


def test_only_the_write_path_inserts_judge_calls() -> None:
    inserting = []
    for path, tree in modules():
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "id", getattr(node.func, "attr", "")) == "insert"
                and node.args
                and names_in(node.args[0]) & CALL_TABLES
            ):
                inserting.append(str(path.relative_to(APP)))
    assert inserting == []  # store_calls inserts `sink.table`, never a table by name
