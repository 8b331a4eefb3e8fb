"""Process-wide objects are reached only through typed dependencies (app/deps.py).

The lifespan (app/lifespan.py) builds them into `State`; app/deps.py alone reads that state and
hands each object to routes as an `Annotated` alias. A read of `request.state`, `app.state` or
`request.app.state` anywhere else would bring back untyped, lazily created globals.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import get_args

from app.deps import StateKey
from app.lifespan import State

APP = Path(__file__).resolve().parent.parent / "app"
STATE_OWNERS = frozenset({"app/deps.py", "app/lifespan.py"})
# Values set for one request by middleware or auth, not process-wide objects.
REQUEST_SCOPED = frozenset({"request_id", "principal"})
HOLDERS = frozenset({"request", "req", "app", "_app", "websocket", "connection", "conn"})


def holds_state(node: ast.expr) -> bool:
    """`request`, `app`, or `<anything>.app`: what Starlette hangs a `state` on."""
    if isinstance(node, ast.Name):
        return node.id in HOLDERS
    return isinstance(node, ast.Attribute) and node.attr == "app"


def is_scope_state(node: ast.Subscript) -> bool:
    """`scope["state"]` or `request.scope["state"]`: the same state, read from the ASGI scope."""
    scope = node.value
    named_scope = (isinstance(scope, ast.Name) and scope.id == "scope") or (
        isinstance(scope, ast.Attribute) and scope.attr == "scope"
    )
    return named_scope and isinstance(node.slice, ast.Constant) and node.slice.value == "state"


def state_reads(source: str) -> list[str]:
    """Each read of an app's or a request's state, as `line: code`, but request-scoped names."""
    tree = ast.parse(source)
    parents = {child: parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "state" and holds_state(node.value):
            parent = parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.attr in REQUEST_SCOPED:
                continue
            found.append(f"{node.lineno}: {ast.unparse(parent or node)}")
        elif isinstance(node, ast.Subscript) and is_scope_state(node):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_only_the_lifespan_and_deps_read_state() -> None:
    offenders = {}
    for path in sorted(APP.rglob("*.py")):
        name = path.relative_to(APP.parent).as_posix()
        if name in STATE_OWNERS:
            continue
        if reads := state_reads(path.read_text(encoding="utf-8")):
            offenders[name] = reads
    assert offenders == {}, "read process-wide objects through app/deps.py's typed aliases"


def test_the_dependencies_name_every_field_of_state() -> None:
    assert set(get_args(StateKey)) == set(State.__annotations__)


def test_the_scan_sees_every_form_of_state_read() -> None:
    source = """
async def route(request):
    a = request.state.registry
    b = request.app.state.leaderboard_cache
    c = getattr(request.state, "redis", None)
    d = request.scope["state"]
    app.state.pages = 1
    e = request.state.request_id
"""
    lines = sorted(int(read.split(":")[0]) for read in state_reads(source))
    assert lines == [3, 4, 5, 6, 7]
