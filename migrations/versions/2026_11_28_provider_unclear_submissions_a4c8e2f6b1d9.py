"""How often a provider request was sent in a submission whose outcome stayed unknown (a create
that timed out or answered 500, a killed submitter, an answer fairpair could not store): the
third such submission fails the request instead of paying for another job (issue 36).

Revision ID: a4c8e2f6b1d9
Revises: f5b2d8a1c7e3
Create Date: 2026-11-28 09:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a4c8e2f6b1d9"
down_revision: str | None = "f5b2d8a1c7e3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("provider_requests") as batch:
        batch.add_column(
            sa.Column("unclear_submissions", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("provider_requests") as batch:
        batch.drop_column("unclear_submissions")
