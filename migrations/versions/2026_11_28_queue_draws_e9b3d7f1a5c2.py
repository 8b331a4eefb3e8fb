"""Queue draws (issue 37): the comparisons `GET /v1/labeling-queue` offered to each key, so that
a label's `from_queue` is a draw the server made rather than whatever the client says.

Revision ID: e9b3d7f1a5c2
Revises: b2e6d4a8f1c3
Create Date: 2026-11-28 14:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e9b3d7f1a5c2"
down_revision: str | None = "b2e6d4a8f1c3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "queue_draws",
        sa.Column("key_id", sa.String(32), primary_key=True),
        sa.Column(
            "comparison_id",
            sa.String(36),
            sa.ForeignKey("comparisons.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("drawn_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_queue_draws_drawn_at", "queue_draws", ["drawn_at"])


def downgrade() -> None:
    op.drop_index("ix_queue_draws_drawn_at", table_name="queue_draws")
    op.drop_table("queue_draws")
