"""Drift canaries keep a baseline run per judge and a drift flag that stays set (issue 37): each
run is compared with its judge's baseline (the first run of the judge version, or one an admin
pinned) as well as with the previous run, and `drift_run` holds the run that flagged drift until
an admin acknowledges it or pins a baseline. A judge whose latest run flagged drift keeps the
flag; baselines start with each judge's next settled run.

Revision ID: b2e6d4a8f1c3
Revises: c7d1e5a9b3f2
Create Date: 2026-11-28 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b2e6d4a8f1c3"
down_revision: str | None = "c7d1e5a9b3f2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("canary_judges") as batch:
        batch.add_column(sa.Column("baseline_run", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("baseline_version", sa.Integer(), nullable=True))
        batch.add_column(
            sa.Column("baseline_pinned", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch.add_column(sa.Column("drift_run", sa.Integer(), nullable=True))
    op.execute(sa.text("UPDATE canary_judges SET drift_run = last_run WHERE last_drift"))


def downgrade() -> None:
    with op.batch_alter_table("canary_judges") as batch:
        batch.drop_column("drift_run")
        batch.drop_column("baseline_pinned")
        batch.drop_column("baseline_version")
        batch.drop_column("baseline_run")
