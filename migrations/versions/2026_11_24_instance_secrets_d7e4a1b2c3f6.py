"""The privacy-mode HMAC salt, derived once and stored so that it never rotates.

Revision ID: d7e4a1b2c3f6
Revises: c5d8e2f1a9b3
Create Date: 2026-11-24 04:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "d7e4a1b2c3f6"
down_revision: str | None = "c5d8e2f1a9b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Rows are made by the first process that starts (app/keyring/service.py), not here: the
    # salt is encrypted under FAIRPAIR_SECRET_KEY, which a migration run need not have.
    op.create_table(
        "instance_secrets",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("ciphertext", sa.Text(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_instance_secrets")),
    )


def downgrade() -> None:
    # The salt goes with the table; an upgrade after this stores it again from the secret key
    # in use then (the same salt unless the key was rotated in between).
    op.drop_table("instance_secrets")
