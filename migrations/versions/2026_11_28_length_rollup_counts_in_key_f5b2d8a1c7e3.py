"""The count in the key's index of both length rollups, on PostgreSQL (issue 20): the length
section reads each judge's recent rows as a range of the key, and with `n` included that is an
index-only scan instead of reading the table's pages (0.34 s of the 10M report). Rows are
seldom updated (an observation's (Δlen, y) is nearly its own key), so HOT updates lost to the
included column cost little.

Revision ID: f5b2d8a1c7e3
Revises: e3a7c9f2b5d1
Create Date: 2026-11-28 01:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "f5b2d8a1c7e3"
down_revision: str | None = "e3a7c9f2b5d1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEYS = {
    "length_rollup": (),
    "length_tag_rollup": ("tag_key", "tag_value"),
}
LENGTH_KEY = (
    "judge",
    "first_hour",
    "last_hour",
    "version",
    "protocol",
    "origin",
    "delta",
    "y_sum",
    "y_n",
)


def _primary_key(include: bool) -> None:
    if op.get_bind().dialect.name != "postgresql":
        return  # SQLite has no INCLUDE; its small tables are read whole
    for table, tags in KEYS.items():
        columns = ", ".join((*tags, *LENGTH_KEY))
        op.execute(
            f"ALTER TABLE {table} DROP CONSTRAINT pk_{table}, ADD CONSTRAINT pk_{table}"
            f" PRIMARY KEY ({columns}){' INCLUDE (n)' if include else ''}"
        )


def upgrade() -> None:
    _primary_key(include=True)


def downgrade() -> None:
    _primary_key(include=False)
