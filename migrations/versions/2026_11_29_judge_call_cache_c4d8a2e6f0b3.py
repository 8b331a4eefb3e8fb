"""The judge-call cache (issue 39): on both call tables, the key of the request a call answered
(set when its judge caches) and, on an answer served from the cache, the id of the stored call it
repeats; an index on judge_calls for the look-up.

Revision ID: c4d8a2e6f0b3
Revises: a7c3e9f1b2d4
Create Date: 2026-11-29 03:40:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "c4d8a2e6f0b3"
down_revision: str | None = "a7c3e9f1b2d4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("judge_calls", "score_calls")
CALL_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    for table in TABLES:
        op.add_column(table, sa.Column("request_key", sa.String(64), nullable=True))
        op.add_column(table, sa.Column("cached_from", CALL_ID, nullable=True))
    keyed = sa.text("request_key IS NOT NULL")
    op.create_index(
        "ix_judge_calls_request_key",
        "judge_calls",
        ["judge_config_hash", "request_key"],
        postgresql_where=keyed,
        sqlite_where=keyed,
    )


def downgrade() -> None:
    op.drop_index("ix_judge_calls_request_key", table_name="judge_calls")
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("cached_from")
            batch.drop_column("request_key")
