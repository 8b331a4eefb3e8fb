"""Calibration labels: humans' gold verdicts on stored comparisons.

Revision ID: 0e20bd8bf9dc
Revises: 21e28b02be57
Create Date: 2026-11-22 14:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0e20bd8bf9dc"
down_revision: str | None = "21e28b02be57"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "labels",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("comparison_id", sa.String(length=36), nullable=False),
        sa.Column("labeler", sa.String(length=200), nullable=False),
        sa.Column("winner", sa.String(length=4), nullable=False),
        sa.Column("from_queue", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["comparison_id"],
            ["comparisons.id"],
            name=op.f("fk_labels_comparison_id_comparisons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_labels")),
        sa.UniqueConstraint(
            "comparison_id", "labeler", name=op.f("uq_labels_comparison_id_labeler")
        ),
    )


def downgrade() -> None:
    # The table has no index of its own to drop first; its constraints go with it.
    op.drop_table("labels")
