"""docs/ARCHITECTURE.md's layer table is the import contract that CI enforces, row for row.

`lint-imports` checks the layers in `pyproject.toml`; the table is what a maintainer reads. Every
module or package the contract names appears in the table's row for its layer, in the contract's
order, and the table names nothing the contract does not (issue 38: it omitted `canaries`).
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def contract_layers() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
    (layers,) = [
        c["layers"] for c in config["tool"]["importlinter"]["contracts"] if c["id"] == "layers"
    ]
    return [{name.strip() for name in re.split(r"[:|]", layer)} for layer in layers]


def table_layers() -> list[set[str]]:
    """The backticked names in the first cell of each row of the layer table."""
    text = (ROOT / "docs/ARCHITECTURE.md").read_text("utf-8")
    table = text.split("| Layer, top to bottom |", 1)[1].split("\n\n", 1)[0]
    rows = [line for line in table.splitlines()[2:] if line.startswith("|")]
    return [set(re.findall(r"`([a-z_]+)`", row.split(" | ", 1)[0])) for row in rows]


def test_the_layer_table_names_every_layer_of_the_contract_in_order() -> None:
    assert table_layers() == contract_layers()
