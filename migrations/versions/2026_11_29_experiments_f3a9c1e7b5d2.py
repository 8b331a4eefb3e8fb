"""Experiments (issue 41): named A/B runs of comparisons that stop once decided.

Revision ID: f3a9c1e7b5d2
Revises: e9b3d7f1a5c2
Create Date: 2026-11-29 01:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "f3a9c1e7b5d2"
down_revision: str | None = "e9b3d7f1a5c2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSONB on PostgreSQL, JSON text on SQLite (matches app.db.JSONType).
JSON_TYPE = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "experiments",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("tag_value", sa.String(256), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("api_key_id", sa.String(32), nullable=False),
        sa.Column("baseline", sa.String(200), nullable=False),
        sa.Column("candidate", sa.String(200), nullable=False),
        sa.Column("judges", JSON_TYPE, nullable=True),
        sa.Column("protocol", JSON_TYPE, nullable=False),
        sa.Column("alpha", sa.Float(), nullable=False),
        sa.Column("margin", sa.Float(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=False),
        sa.Column("batch_id", sa.String(36), nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("decision", sa.String(20), nullable=True),
        sa.Column("decided_at", TIME, nullable=True),
        sa.Column("decided_after", sa.Integer(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("experiments")
