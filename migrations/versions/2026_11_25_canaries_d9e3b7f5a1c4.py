"""Drift canaries: `canaries`, their frozen `canary_items`, what each saw of its judges
(`canary_judges`) and their `canary_runs` (a due run is claimed once: unique per due key).

Revision ID: d9e3b7f5a1c4
Revises: c2d6a8e4f1b7
Create Date: 2026-11-25 07:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "d9e3b7f5a1c4"
down_revision: str | None = "c2d6a8e4f1b7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSONB on PostgreSQL, JSON text on SQLite (matches app.db.JSONType).
JSON_TYPE = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TIME = sa.DateTime(timezone=True)


def _canary_fk() -> sa.ForeignKey:
    return sa.ForeignKey("canaries.id", ondelete="CASCADE")


def upgrade() -> None:
    op.create_table(
        "canaries",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(64), nullable=False, unique=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("api_key_id", sa.String(64), nullable=False),
        sa.Column("judges", JSON_TYPE, nullable=False),
        sa.Column("interval_s", sa.Float(), nullable=True),
        sa.Column("selector", JSON_TYPE, nullable=False),
        sa.Column("item_count", sa.Integer(), nullable=False),
    )
    op.create_table(
        "canary_items",
        sa.Column("canary_id", sa.String(36), _canary_fk(), primary_key=True),
        sa.Column("position", sa.Integer(), primary_key=True),
        sa.Column("source_id", sa.String(36), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("response_a", sa.Text(), nullable=False),
        sa.Column("response_b", sa.Text(), nullable=False),
        sa.Column("reference", sa.Text(), nullable=True),
        sa.Column("criteria", JSON_TYPE, nullable=True),
        sa.Column("model_a", sa.String(200), nullable=True),
        sa.Column("model_b", sa.String(200), nullable=True),
        sa.Column("family_a", sa.String(100), nullable=True),
        sa.Column("family_b", sa.String(100), nullable=True),
        sa.Column("gold", sa.String(4), nullable=True),
    )
    op.create_table(
        "canary_judges",
        sa.Column("canary_id", sa.String(36), _canary_fk(), primary_key=True),
        sa.Column("judge", sa.String(100), primary_key=True),
        sa.Column("version", sa.Integer(), nullable=True),
        sa.Column("provider_model", sa.String(200), nullable=True),
        sa.Column("model_seen_at", TIME, nullable=True),
        sa.Column("model_version", sa.Integer(), nullable=True),
        sa.Column("last_run", sa.Integer(), nullable=True),
        sa.Column("last_drift", sa.Boolean(), nullable=True),
    )
    op.create_table(
        "canary_runs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("canary_id", sa.String(36), _canary_fk(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("trigger", sa.String(16), nullable=False),
        sa.Column("due_key", sa.String(400), nullable=False),
        sa.Column("judges", JSON_TYPE, nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("batch_id", sa.String(36), nullable=False),
        sa.Column("finished_at", TIME, nullable=True),
        sa.Column("figures", JSON_TYPE, nullable=True),
        sa.Column("item_results", JSON_TYPE, nullable=True),
        sa.UniqueConstraint("canary_id", "due_key", name="uq_canary_runs_canary_id_due_key"),
        sa.UniqueConstraint("canary_id", "number", name="uq_canary_runs_canary_id_number"),
    )


def downgrade() -> None:
    for table in ("canary_runs", "canary_judges", "canary_items", "canaries"):
        op.drop_table(table)
