"""Comparisons folded into the report's rollups by the folder once they stopped running, instead
of their calls as they were written (issue 20): a `folded` flag and a partial index of the ones
not folded yet. Every comparison that stopped running was folded call by call: it is marked
folded. One still running (or waiting on a provider) leaves the rollups until the folder folds
it whole.

Revision ID: c5e2a8f4d7b9
Revises: b7d3f9a2c6e1
Create Date: 2026-11-27 18:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import OBSERVATION_ROLLUPS, fold_statements, unfold_statements
from app.ledger.models import Comparison, JudgeCall

revision: str = "c5e2a8f4d7b9"
down_revision: str | None = "b7d3f9a2c6e1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

UNFINISHED = ("running", "waiting")


def upgrade() -> None:
    with op.batch_alter_table("comparisons") as batch:
        batch.add_column(
            sa.Column("folded", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    comparisons = sa.table("comparisons", sa.column("id"), sa.column("status"))
    unfinished = sa.select(comparisons.c.id).where(comparisons.c.status.in_(UNFINISHED))
    # `current=False`: the schema here has no cached calls and no token sums (issue 39).
    dialect = op.get_bind().dialect.name
    for statement in unfold_statements(dialect, unfinished, OBSERVATION_ROLLUPS, current=False):
        op.execute(statement)
    op.execute(
        sa.text("UPDATE comparisons SET folded = true WHERE status NOT IN ('running', 'waiting')")
    )
    op.create_index(
        "ix_comparisons_unfolded",
        "comparisons",
        ["id"],
        postgresql_where=sa.text("NOT folded"),
        sqlite_where=sa.text("NOT folded"),
    )


def downgrade() -> None:
    # The rollups then count every stored call again, as the write path folded them.
    op.drop_index("ix_comparisons_unfolded", table_name="comparisons")
    unfolded = JudgeCall.comparison_id.in_(sa.select(Comparison.id).where(~Comparison.folded))
    dialect = op.get_bind().dialect.name
    for statement in fold_statements(dialect, unfolded, OBSERVATION_ROLLUPS, current=False):
        op.execute(statement)
    with op.batch_alter_table("comparisons") as batch:
        batch.drop_column("folded")
