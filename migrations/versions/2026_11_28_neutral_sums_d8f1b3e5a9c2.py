"""The neutral judges' sums on conflicted observations (issue 20): self-preference reads them from
the conflicted observation instead of looking the neutral judges' observations up, which took
most of the bias report's time at 10M calls. Written for every folded comparison.

Revision ID: d8f1b3e5a9c2
Revises: c5e2a8f4d7b9
Create Date: 2026-11-28 00:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import fold_neutral_sums

revision: str = "d8f1b3e5a9c2"
down_revision: str | None = "c5e2a8f4d7b9"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("judge_observations") as batch:
        batch.add_column(sa.Column("neutral_dec", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("neutral_a", sa.BigInteger(), nullable=True))
        batch.add_column(sa.Column("neutral_first_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("neutral_last_at", sa.DateTime(timezone=True), nullable=True))
    # Every stored observation is of a folded comparison (unfolding deletes them).
    op.execute(fold_neutral_sums(sa.true()))


def downgrade() -> None:
    with op.batch_alter_table("judge_observations") as batch:
        for name in ("neutral_last_at", "neutral_first_at", "neutral_a", "neutral_dec"):
            batch.drop_column(name)
