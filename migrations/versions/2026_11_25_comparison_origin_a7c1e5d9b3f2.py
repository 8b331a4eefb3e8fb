"""Comparisons and batch items carry an `origin`: `traffic` (a caller's request) or `canary` (a
drift canary's run). Existing rows are traffic.

Revision ID: a7c1e5d9b3f2
Revises: f3a9c7e2d1b5
Create Date: 2026-11-25 07:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7c1e5d9b3f2"
down_revision: str | None = "f3a9c7e2d1b5"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("comparisons", "batch_items")


def upgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.add_column(
                sa.Column("origin", sa.String(16), nullable=False, server_default="traffic")
            )


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("origin")
