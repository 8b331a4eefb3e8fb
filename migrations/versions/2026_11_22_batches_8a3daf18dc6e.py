"""Batches and batch items (the queue's source of truth).

Revision ID: 8a3daf18dc6e
Revises: 46bf1687ed44
Create Date: 2026-11-22 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8a3daf18dc6e"
down_revision: str | None = "46bf1687ed44"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "batches",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("cancelled_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("api_key_id", sa.String(length=32), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("item_count", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batches")),
        sa.UniqueConstraint(
            "api_key_id", "idempotency_key", name=op.f("uq_batches_api_key_id_idempotency_key")
        ),
    )
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.create_index("ix_batches_created_at_id", ["created_at", "id"], unique=False)

    op.create_table(
        "batch_items",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("batch_id", sa.String(length=36), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("item_id", sa.String(length=200), nullable=True),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("target_id", sa.String(length=36), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.Text(), nullable=True),
        sa.Column("encrypted", sa.Boolean(), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("lease_owner", sa.String(length=100), nullable=True),
        sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("error_kind", sa.String(length=40), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["batch_id"],
            ["batches.id"],
            name=op.f("fk_batch_items_batch_id_batches"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_batch_items")),
        sa.UniqueConstraint("batch_id", "item_id", name=op.f("uq_batch_items_batch_id_item_id")),
        sa.UniqueConstraint("batch_id", "position", name=op.f("uq_batch_items_batch_id_position")),
    )
    with op.batch_alter_table("batch_items", schema=None) as batch_op:
        batch_op.create_index(
            "ix_batch_items_batch_id_status", ["batch_id", "status"], unique=False
        )
        batch_op.create_index(
            "ix_batch_items_status_enqueued_at", ["status", "enqueued_at"], unique=False
        )
        batch_op.create_index(
            "ix_batch_items_status_lease_expires_at", ["status", "lease_expires_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("batch_items", schema=None) as batch_op:
        batch_op.drop_index("ix_batch_items_status_lease_expires_at")
        batch_op.drop_index("ix_batch_items_status_enqueued_at")
        batch_op.drop_index("ix_batch_items_batch_id_status")

    op.drop_table("batch_items")
    with op.batch_alter_table("batches", schema=None) as batch_op:
        batch_op.drop_index("ix_batches_created_at_id")

    op.drop_table("batches")
