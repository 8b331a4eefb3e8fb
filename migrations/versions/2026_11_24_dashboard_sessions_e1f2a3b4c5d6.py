"""Dashboard sessions: the cookie holds a session id, never the API key.

Revision ID: e1f2a3b4c5d6
Revises: d7e4a1b2c3f6
Create Date: 2026-11-24 04:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "e1f2a3b4c5d6"
down_revision: str | None = "d7e4a1b2c3f6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "dashboard_sessions",
        sa.Column("token_sha256", sa.String(length=64), nullable=False),
        sa.Column("key_id", sa.String(length=32), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_keys.id"],
            name=op.f("fk_dashboard_sessions_key_id_api_keys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("token_sha256", name=op.f("pk_dashboard_sessions")),
    )
    op.create_index(
        op.f("ix_dashboard_sessions_key_id"), "dashboard_sessions", ["key_id"], unique=False
    )
    op.create_index(
        op.f("ix_dashboard_sessions_expires_at"), "dashboard_sessions", ["expires_at"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_dashboard_sessions_expires_at"), table_name="dashboard_sessions")
    op.drop_index(op.f("ix_dashboard_sessions_key_id"), table_name="dashboard_sessions")
    op.drop_table("dashboard_sessions")
