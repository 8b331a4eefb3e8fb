"""An index on judge calls by (judge, provider model, time): the bias report finds the models a
judge's provider reported in a window, per bucket, by walking it (`app.reports.provider_models`)
instead of reading every call of the window.

Built concurrently on PostgreSQL: judge calls keep being written while it builds (about 45 s per
10M calls).

Revision ID: f3a9c7e2d1b5
Revises: b4e8d2c6f1a7
Create Date: 2026-11-25 04:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "f3a9c7e2d1b5"
down_revision: str | None = "b4e8d2c6f1a7"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ix_judge_calls_judge_model_started"
COLUMNS = ["judge_name", "provider_model", "started_at"]


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.create_index(
                NAME, "judge_calls", COLUMNS, postgresql_concurrently=True, if_not_exists=True
            )
    else:
        op.create_index(NAME, "judge_calls", COLUMNS, if_not_exists=True)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        with op.get_context().autocommit_block():
            op.drop_index(NAME, "judge_calls", postgresql_concurrently=True, if_exists=True)
    else:
        op.drop_index(NAME, "judge_calls", if_exists=True)
