"""Provider-mode batches: a batch's mode, its jobs at the providers' batch APIs and the planned
calls sent through them by custom_id. Existing batches: `live`.

Revision ID: b7d3f9a2c6e1
Revises: e5f7a9c1b3d2
Create Date: 2026-11-27 06:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "b7d3f9a2c6e1"
down_revision: str | None = "e5f7a9c1b3d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIME = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("batches") as batch:
        batch.add_column(sa.Column("mode", sa.String(8), nullable=False, server_default="live"))
    op.create_table(
        "provider_jobs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column(
            "batch_id",
            sa.String(36),
            sa.ForeignKey("batches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("judge_name", sa.String(100), nullable=False),
        sa.Column("provider", sa.String(16), nullable=False),
        sa.Column("external_id", sa.String(200), nullable=True),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("provider_state", sa.String(32), nullable=True),
        sa.Column("request_count", sa.Integer(), nullable=False),
        sa.Column("succeeded", sa.Integer(), nullable=False),
        sa.Column("failed", sa.Integer(), nullable=False),
        sa.Column("input_file_id", sa.String(200), nullable=True),
        sa.Column("output_file_id", sa.String(200), nullable=True),
        sa.Column("error_file_id", sa.String(200), nullable=True),
        sa.Column("created_at", TIME, nullable=False),
        sa.Column("submitted_at", TIME, nullable=True),
        sa.Column("ended_at", TIME, nullable=True),
        sa.Column("expires_at", TIME, nullable=True),
        sa.Column("next_poll_at", TIME, nullable=False),
        sa.Column("polls", sa.Integer(), nullable=False),
        sa.Column("cancel_requested", sa.Boolean(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
    )
    op.create_index("ix_provider_jobs_batch_id", "provider_jobs", ["batch_id"])
    op.create_index(
        "ix_provider_jobs_state_next_poll_at", "provider_jobs", ["state", "next_poll_at"]
    )
    op.create_table(
        "provider_requests",
        sa.Column("custom_id", sa.String(64), primary_key=True),
        sa.Column(
            "batch_id",
            sa.String(36),
            sa.ForeignKey("batches.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "item_id",
            sa.String(36),
            sa.ForeignKey("batch_items.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("judge_name", sa.String(100), nullable=False),
        sa.Column("request_key", sa.String(64), nullable=False),
        sa.Column(
            "job_id",
            sa.String(36),
            sa.ForeignKey("provider_jobs.id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("state", sa.String(16), nullable=False),
        sa.Column("body", sa.Text(), nullable=True),
        sa.Column("result", sa.Text(), nullable=True),
        sa.Column("encrypted", sa.Boolean(), nullable=False),
        sa.Column("job_failures", sa.Integer(), nullable=False),
        sa.Column("created_at", TIME, nullable=False),
        sa.UniqueConstraint("item_id", "judge_name", "request_key"),
    )
    op.create_index(
        "ix_provider_requests_batch_id_judge_name_state",
        "provider_requests",
        ["batch_id", "judge_name", "state"],
    )
    op.create_index("ix_provider_requests_job_id", "provider_requests", ["job_id"])
    op.create_index(
        "ix_provider_requests_state_batch_id", "provider_requests", ["state", "batch_id"]
    )


def downgrade() -> None:
    op.drop_index("ix_provider_requests_state_batch_id", "provider_requests")
    op.drop_index("ix_provider_requests_job_id", "provider_requests")
    op.drop_index("ix_provider_requests_batch_id_judge_name_state", "provider_requests")
    op.drop_table("provider_requests")
    op.drop_index("ix_provider_jobs_state_next_poll_at", "provider_jobs")
    op.drop_index("ix_provider_jobs_batch_id", "provider_jobs")
    op.drop_table("provider_jobs")
    with op.batch_alter_table("batches") as batch:
        batch.drop_column("mode")
