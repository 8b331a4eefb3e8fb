"""Reasoning tokens per call (issue 39): of a call's output tokens, those a reasoning model spent
reasoning, on both call tables.

Revision ID: a7c3e9f1b2d4
Revises: f3a9c1e7b5d2
Create Date: 2026-11-29 01:20:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a7c3e9f1b2d4"
down_revision: str | None = "f3a9c1e7b5d2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("judge_calls", "score_calls")


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("reasoning_tokens", sa.Integer(), nullable=True))


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("reasoning_tokens")
