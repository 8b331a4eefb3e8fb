"""Report rollups: call counts per hour and one observation per (judge, comparison).

Revision ID: a7c3e1f2b9d4
Revises: 0e20bd8bf9dc
Create Date: 2026-11-22 23:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import rebuild_statements

revision: str = "a7c3e1f2b9d4"
down_revision: str | None = "0e20bd8bf9dc"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COUNTS = (
    "calls",
    "failed",
    "design",
    "parsed",
    "ties",
    "design_parsed",
    "decisive",
    "first",
    "design_ties",
    "second_label",
)


def upgrade() -> None:
    op.create_table(
        "call_rollup",
        sa.Column("judge", sa.String(length=100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("placebo", sa.Boolean(), nullable=False),
        sa.Column("protocol", sa.String(length=16), nullable=False),
        sa.Column("error_kind", sa.String(length=32), nullable=False),
        sa.Column("label_pair", sa.String(length=64), nullable=False),
        sa.Column("hour", sa.BigInteger(), nullable=False),
        *[sa.Column(name, sa.BigInteger(), nullable=False) for name in COUNTS],
        sa.PrimaryKeyConstraint(
            "judge",
            "version",
            "placebo",
            "protocol",
            "error_kind",
            "label_pair",
            "hour",
            name=op.f("pk_call_rollup"),
        ),
    )
    op.create_table(
        "judge_observations",
        sa.Column("judge", sa.String(length=100), nullable=False),
        sa.Column("comparison_id", sa.String(length=36), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("protocol", sa.String(length=16), nullable=False),
        sa.Column("p1", sa.String(length=8), nullable=True),
        sa.Column("p2", sa.String(length=8), nullable=True),
        *[
            sa.Column(name, sa.BigInteger(), nullable=False)
            for name in ("y_sum", "y_n", "n_dec", "n_a")
        ],
        sa.Column("delta", sa.Integer(), nullable=False),
        sa.Column("shorter", sa.Integer(), nullable=False),
        sa.Column("side", sa.String(length=1), nullable=True),
        sa.Column("neutral", sa.Integer(), nullable=False),
        sa.Column("first_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("first_hour", sa.BigInteger(), nullable=False),
        sa.Column("last_hour", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["comparison_id"],
            ["comparisons.id"],
            name=op.f("fk_judge_observations_comparison_id_comparisons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("judge", "comparison_id", name=op.f("pk_judge_observations")),
    )
    op.create_index(
        op.f("ix_judge_observations_comparison_id"), "judge_observations", ["comparison_id"]
    )
    op.create_index(op.f("ix_judge_observations_first_at"), "judge_observations", ["first_at"])
    long_span = sa.text("last_hour > first_hour + 1")
    op.create_index(
        "ix_judge_observations_long",
        "judge_observations",
        ["first_at"],
        postgresql_where=long_span,
        sqlite_where=long_span,
    )
    # Existing calls are folded in once; from here on every write folds its own.
    bind = op.get_bind()
    for statement in rebuild_statements(bind.dialect.name, origin=False):
        bind.execute(statement)


def downgrade() -> None:
    op.drop_index("ix_judge_observations_long", table_name="judge_observations")
    op.drop_index(op.f("ix_judge_observations_first_at"), table_name="judge_observations")
    op.drop_index(op.f("ix_judge_observations_comparison_id"), table_name="judge_observations")
    op.drop_table("judge_observations")
    op.drop_table("call_rollup")
