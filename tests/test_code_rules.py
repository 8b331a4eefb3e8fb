"""The house rules that keep app/ readable as it grows (issue 38), checked on every run:

- repeated code: at most `MAX_REPEATS` places where app/ repeats six or more lines, as pylint's
  `symilar` counts them (identical lines once comments, docstrings, imports and signatures are
  set aside; code of the same shape under other names is not counted: docs/DECISIONS.md);
- size: a module over `MAX_LINES` lines says why at its top (its docstring names the size);
- state: every `Annotated[T, from_state("key")]` alias declares the type `State` gives that key;
- statuses: job, item, provider-job and request statuses are enum members, never bare words, and
  the API spells every member of its enum.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from typing import get_args

import pytest

from app.batches import schemas as batch_schemas
from app.batches.models import BatchStatus, ItemStatus, ProviderJobState, RequestState
from app.comparisons import schemas as comparison_schemas
from app.jobs.models import JobStatus
from app.scoring import schemas as scoring_schemas

APP = Path(__file__).resolve().parent.parent / "app"
MAX_REPEATS = 15
MIN_REPEATED_LINES = 6
MAX_LINES = 500
SIMILARITY = re.compile(r"^(\d+) similar lines in (\d+) files$", re.MULTILINE)


def repeats(files: list[Path]) -> list[str]:
    """`symilar`'s findings over `files`: one line per repeated block."""
    symilar = Path(sys.executable).with_name("symilar")
    flags = ["-i", "--ignore-docstrings", "--ignore-imports", "--ignore-signatures"]
    command = [str(symilar), "-d", str(MIN_REPEATED_LINES), *flags, *map(str, files)]
    output = subprocess.run(command, capture_output=True, text=True, timeout=600).stdout
    return [match.group(0) for match in SIMILARITY.finditer(output)]


def test_app_repeats_itself_in_at_most_fifteen_places() -> None:
    found = repeats(sorted(APP.rglob("*.py")))
    assert len(found) <= MAX_REPEATS, found


def test_the_repeat_count_sees_a_copied_block(tmp_path: Path) -> None:
    body = "\n".join(f"    total = total * {i} + len(items[{i}:])" for i in range(8))
    for name in ("one", "two"):
        (tmp_path / f"{name}.py").write_text(
            f"def {name}(items, total):\n{body}\n    return total\n"
        )
    assert len(repeats(sorted(tmp_path.glob("*.py")))) == 1


def long_modules_without_a_reason(root: Path) -> list[str]:
    found = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= MAX_LINES:
            continue
        docstring = ast.get_docstring(ast.parse(text)) or ""
        if f"{MAX_LINES} lines" not in docstring:
            found.append(str(path.relative_to(root)))
    return found


def test_a_module_over_500_lines_says_why_at_its_top(tmp_path: Path) -> None:
    assert long_modules_without_a_reason(APP) == []
    filler = "x = 1\n" * (MAX_LINES + 1)
    (tmp_path / "silent.py").write_text(f'"""A module."""\n{filler}')
    (tmp_path / "said.py").write_text(
        f'"""A module: over 500 lines, because one table."""\n{filler}'
    )
    assert long_modules_without_a_reason(tmp_path) == ["silent.py"]


def _state_types() -> dict[str, str]:
    tree = ast.parse((APP / "lifespan.py").read_text(encoding="utf-8"))
    state = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "State")
    return {
        node.target.id: ast.unparse(node.annotation)
        for node in state.body
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name)
    }


def _state_aliases(path: Path) -> list[tuple[str, object, str]]:
    """(alias, key, declared type) of each `X = Annotated[T, from_state("key")]` in `path`."""
    aliases: list[tuple[str, object, str]] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Subscript)):
            continue
        if ast.unparse(node.value.value) != "Annotated":
            continue
        declared, *rest = node.value.slice.elts  # type: ignore[attr-defined]
        for call in rest:
            if isinstance(call, ast.Call) and ast.unparse(call.func) == "from_state":
                key = call.args[0].value  # type: ignore[attr-defined]
                text = declared.value if isinstance(declared, ast.Constant) else None
                shown = text if isinstance(text, str) else ast.unparse(declared)
                aliases.append((ast.unparse(node.targets[0]), key, shown))
    return aliases


def test_every_state_alias_declares_the_type_state_gives_its_key() -> None:
    state = _state_types()
    aliases = [alias for path in sorted(APP.rglob("*.py")) for alias in _state_aliases(path)]
    assert len(aliases) >= 10  # the aliases of app/deps.py and of the features are all read
    wrong = [
        (name, key, declared) for name, key, declared in aliases if state[str(key)] != declared
    ]
    assert wrong == []


# The lifecycle fields whose values are a `StrEnum` (app/jobs/models.py, app/batches/models.py),
# and the words of those enums (a health check's "ok" is not one of them).
_STATUS_FIELDS = frozenset({"status", "state"})
_STATUS_WORDS = frozenset(
    member.value
    for enum in (JobStatus, BatchStatus, ItemStatus, ProviderJobState, RequestState)
    for member in enum
)
# Where a status is a provider's own word or the simulated provider's, not one of ours.
_FOREIGN_STATUSES = ("judging/providers/", "simjudge/")


def _names_a_status(node: ast.AST) -> bool:
    """`row.status`, `status`, or `values["status"]` (and the same for `state`)."""
    if isinstance(node, ast.Attribute):
        return node.attr in _STATUS_FIELDS
    if isinstance(node, ast.Name):
        return node.id in _STATUS_FIELDS
    subscript = isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
    return subscript and node.slice.value in _STATUS_FIELDS  # type: ignore[attr-defined]


def _bare_words(node: ast.AST | None) -> bool:
    """A status word as a string literal, in a tuple or list, or as a branch of `a if c else b`."""
    if isinstance(node, ast.Constant):
        return node.value in _STATUS_WORDS
    if isinstance(node, ast.IfExp):
        return _bare_words(node.body) or _bare_words(node.orelse)
    return isinstance(node, ast.Tuple | ast.List) and any(map(_bare_words, node.elts))


def bare_statuses(source: str) -> list[int]:
    """Lines that compare or set a status with a bare string rather than its enum member."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(map(_names_a_status, sides)) and any(map(_bare_words, sides)):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            func = node.func
            set_or_tested = [kw.value for kw in node.keywords if kw.arg in _STATUS_FIELDS]
            if isinstance(func, ast.Attribute) and func.attr in ("in_", "not_in"):
                set_or_tested += node.args if _names_a_status(func.value) else []
            lines += [node.lineno for value in set_or_tested if _bare_words(value)]
        elif isinstance(node, ast.Assign):
            if any(map(_names_a_status, node.targets)) and _bare_words(node.value):
                lines.append(node.lineno)
        elif isinstance(node, ast.Dict):
            pairs = zip(node.keys, node.values, strict=True)
            lines += [
                node.lineno
                for key, value in pairs
                if isinstance(key, ast.Constant) and key.value in _STATUS_FIELDS
                if _bare_words(value)
            ]
    return sorted(set(lines))


def test_statuses_are_enum_members_not_bare_words() -> None:
    found = [
        f"{path.relative_to(APP)}:{line}"
        for path in sorted(APP.rglob("*.py"))
        if not str(path.relative_to(APP)).startswith(_FOREIGN_STATUSES)
        for line in bare_statuses(path.read_text("utf-8"))
    ]
    assert found == []


def test_the_status_check_sees_every_bare_word() -> None:
    source = """
if row.status == "failed": pass
if "running" != job.state: pass
query.where(Item.status.in_(("queued", "running")))
update(Item).values(status="queued")
values = {"status": "complete"}
status = "failed" if verdict is None else "partial"
if values["status"] != "failed": pass
ok = row.status == Status.FAILED and Item.status.in_(UNFINISHED) and health.status == "ok"
"""
    assert bare_statuses(source) == [2, 3, 4, 5, 6, 7, 8]


@pytest.mark.parametrize(
    ("literal", "enum", "left_out"),
    [
        (comparison_schemas.Status, JobStatus, set()),
        (scoring_schemas.Status, JobStatus, {JobStatus.WAITING}),  # scores use no provider batch
        (batch_schemas.BatchStatusField, BatchStatus, set()),
        (batch_schemas.ItemStatusField, ItemStatus, set()),
    ],
)
def test_the_api_spells_every_status_of_its_enum(
    literal: object, enum: type[StrEnum], left_out: set[StrEnum]
) -> None:
    assert set(get_args(literal)) == set(enum) - left_out
