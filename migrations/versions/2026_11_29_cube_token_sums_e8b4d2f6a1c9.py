"""Token sums in the call cubes (issue 39): `tokens_in`, `tokens_out` and `reasoning_tokens` per
cube row of `call_rollup` and `call_tag_rollup`, so that the bias report shows them per judge;
both cubes are recomputed from the calls of folded comparisons to fill them.

Revision ID: e8b4d2f6a1c9
Revises: c4d8a2e6f0b3
Create Date: 2026-11-29 04:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import rebuild_cube_statements

revision: str = "e8b4d2f6a1c9"
down_revision: str | None = "c4d8a2e6f0b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("call_rollup", "call_tag_rollup")
SUMS = ("tokens_in", "tokens_out", "reasoning_tokens")


def upgrade() -> None:
    for table in TABLES:
        for name in SUMS:
            op.add_column(
                table, sa.Column(name, sa.BigInteger(), nullable=False, server_default="0")
            )
    for statement in rebuild_cube_statements(op.get_bind().dialect.name):
        op.execute(statement)


def downgrade() -> None:
    for table in TABLES:
        with op.batch_alter_table(table) as batch:
            for name in SUMS:
                batch.drop_column(name)
