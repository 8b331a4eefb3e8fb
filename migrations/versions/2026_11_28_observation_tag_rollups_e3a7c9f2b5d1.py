"""The observation rollups per comparison tag (issue 20): a report filtered by one tag read every
observation of its window from `judge_observations` (2.0 s of the judge + tag report at 10M
calls); it now sums these as the untagged report sums `observation_rollup` and `length_rollup`.
Filled from the stored observations.

Revision ID: e3a7c9f2b5d1
Revises: d8f1b3e5a9c2
Create Date: 2026-11-28 00:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import TAG_ROLLUPS, refill_statements

revision: str = "e3a7c9f2b5d1"
down_revision: str | None = "d8f1b3e5a9c2"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEYS: dict[str, dict[str, sa.types.TypeEngine[object]]] = {
    "observation_tag_rollup": {
        "p1": sa.String(length=8),
        "p2": sa.String(length=8),
        "eligible": sa.Boolean(),
        "longer": sa.Boolean(),
    },
    "length_tag_rollup": {"delta": sa.Integer(), "y_sum": sa.BigInteger(), "y_n": sa.BigInteger()},
}
HEAD: dict[str, sa.types.TypeEngine[object]] = {
    "tag_key": sa.String(length=64),
    "tag_value": sa.String(length=256),
    "judge": sa.String(length=100),
    "first_hour": sa.BigInteger(),
    "last_hour": sa.BigInteger(),
    "version": sa.Integer(),
    "protocol": sa.String(length=16),
    "origin": sa.String(length=16),
}


def upgrade() -> None:
    for table, own in KEYS.items():
        keys = {**HEAD, **own}
        op.create_table(
            table,
            *(sa.Column(name, kind, nullable=False) for name, kind in keys.items()),
            sa.Column("n", sa.BigInteger(), nullable=False),
            sa.PrimaryKeyConstraint(*keys, name=op.f(f"pk_{table}")),
        )
    for statement in refill_statements(op.get_bind().dialect.name, TAG_ROLLUPS):
        op.execute(statement)


def downgrade() -> None:
    for table in reversed(KEYS):
        op.drop_table(table)
