"""Comparisons and batch items carry an `origin`: `traffic` (a caller's request) or `canary` (a
drift canary's run). Existing rows are traffic.

The rollups key on it, so that the report can read traffic, canaries or both: the cubes and the
observation rollups get `origin` in their primary keys, `judge_observations` a column (it is a
constant of the comparison). Every existing row counts traffic, as every existing comparison is.

Revision ID: a7c1e5d9b3f2
Revises: f3a9c7e2d1b5
Create Date: 2026-11-25 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import (
    OBSERVATION_ROLLUPS,
    rebuild_moved_statements,
    rebuild_statements,
)

revision: str = "a7c1e5d9b3f2"
down_revision: str | None = "f3a9c7e2d1b5"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("comparisons", "batch_items", "judge_observations")
CUBE_KEYS = ("judge", "version", "placebo", "protocol", "error_kind", "label_pair", "hour")
OBSERVATION_KEYS = ("judge", "first_hour", "last_hour", "version", "protocol")
# Each rollup's primary key before this revision; `origin` is appended to it.
ROLLUP_KEYS: dict[str, tuple[str, ...]] = {
    "call_rollup": CUBE_KEYS,
    "call_tag_rollup": ("tag_key", "tag_value", *CUBE_KEYS),
    "observation_rollup": (*OBSERVATION_KEYS, "p1", "p2", "eligible", "longer"),
    "length_rollup": (*OBSERVATION_KEYS, "delta", "y_sum", "y_n"),
}


def _origin() -> sa.Column[str]:
    # The server default fills the existing rows: all of them are traffic.
    return sa.Column("origin", sa.String(16), nullable=False, server_default="traffic")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(_origin())
    for table, keys in ROLLUP_KEYS.items():
        # SQLite cannot alter a primary key: the batch copies the table (recreate).
        with op.batch_alter_table(table, recreate="auto") as batch:
            batch.add_column(_origin())
            batch.drop_constraint(f"pk_{table}", type_="primary")
            batch.create_primary_key(f"pk_{table}", [*keys, "origin"])


def downgrade() -> None:
    # Without the key, a canary's counts would merge with traffic's: the rollups are emptied
    # here and recomputed, as the schema below this revision holds them, from the calls.
    for table in (*ROLLUP_KEYS, "judge_observations"):
        op.execute(sa.text(f"DELETE FROM {table}"))
    for table, keys in ROLLUP_KEYS.items():
        with op.batch_alter_table(table, recreate="auto") as batch:
            batch.drop_constraint(f"pk_{table}", type_="primary")
            batch.drop_column("origin")
            batch.create_primary_key(f"pk_{table}", list(keys))
    for table in reversed(TABLES):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("origin")
    bind = op.get_bind()
    dialect = bind.dialect.name
    for statement in [
        *rebuild_statements(dialect, origin=False),
        *rebuild_moved_statements(dialect, origin=False, rollups=OBSERVATION_ROLLUPS),
    ]:
        bind.execute(statement)
