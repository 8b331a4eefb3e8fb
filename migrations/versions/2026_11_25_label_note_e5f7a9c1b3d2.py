"""Labels may carry the labeler's optional note (the dashboard's labeling page asks for one).
Existing labels: none.

Revision ID: e5f7a9c1b3d2
Revises: d9e3b7f5a1c4
Create Date: 2026-11-25 08:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e5f7a9c1b3d2"
down_revision: str | None = "d9e3b7f5a1c4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("labels") as batch:
        batch.add_column(sa.Column("note", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("labels") as batch:
        batch.drop_column("note")
