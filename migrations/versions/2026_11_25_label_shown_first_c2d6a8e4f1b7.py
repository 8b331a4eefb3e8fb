"""Labels may say which response the labeler saw first (`shown_first`, A or B): the humans' own
first-slot rate counts only labels whose display order is known. Existing labels: unknown.

Revision ID: c2d6a8e4f1b7
Revises: a7c1e5d9b3f2
Create Date: 2026-11-25 07:05:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c2d6a8e4f1b7"
down_revision: str | None = "a7c1e5d9b3f2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("labels") as batch:
        batch.add_column(sa.Column("shown_first", sa.String(1), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("labels") as batch:
        batch.drop_column("shown_first")
