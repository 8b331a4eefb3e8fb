"""Observation rollups: the report's pairs, length classes and (Δlen, y) frequencies per hour;
call counts per hour and comparison tag.

`judge_observations` keeps, per row, what it held before the fold that last changed it
(`prev_*`), so that the fold can move the row's count from its old keys to its new ones in
`observation_rollup` and `length_rollup`. Both are built here from the existing observations.
A partial index finds the conflicted observations that self-preference starts from.

Revision ID: b4e8d2c6f1a7
Revises: e1f2a3b4c5d6
Create Date: 2026-11-25 01:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from app.ledger.fold import OBSERVATION_ROLLUPS, rebuild_moved_statements

revision: str = "b4e8d2c6f1a7"
down_revision: str | None = "e1f2a3b4c5d6"
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
PREVIOUS: dict[str, sa.types.TypeEngine[object]] = {
    "prev_y_sum": sa.BigInteger(),
    "prev_version": sa.Integer(),
    "prev_p1": sa.String(length=8),
    "prev_p2": sa.String(length=8),
    "prev_first_hour": sa.BigInteger(),
    "prev_last_hour": sa.BigInteger(),
}


def _head() -> list[sa.Column[object]]:
    return [
        sa.Column("judge", sa.String(length=100), nullable=False),
        sa.Column("first_hour", sa.BigInteger(), nullable=False),
        sa.Column("last_hour", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("protocol", sa.String(length=16), nullable=False),
    ]


def _keys(table: str, *rest: str) -> sa.PrimaryKeyConstraint:
    names = ("judge", "first_hour", "last_hour", "version", "protocol", *rest)
    return sa.PrimaryKeyConstraint(*names, name=op.f(f"pk_{table}"))


def upgrade() -> None:
    op.add_column(
        "judge_observations",
        sa.Column("prev_y_n", sa.BigInteger(), server_default=sa.text("0"), nullable=False),
    )
    for name, kind in PREVIOUS.items():
        op.add_column("judge_observations", sa.Column(name, kind, nullable=True))
    conflicted = sa.text("side IS NOT NULL")
    op.create_index(
        "ix_judge_observations_conflicted",
        "judge_observations",
        ["first_at"],
        postgresql_where=conflicted,
        sqlite_where=conflicted,
    )
    op.create_table(
        "observation_rollup",
        *_head(),
        sa.Column("p1", sa.String(length=8), nullable=False),
        sa.Column("p2", sa.String(length=8), nullable=False),
        sa.Column("eligible", sa.Boolean(), nullable=False),
        sa.Column("longer", sa.Boolean(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        _keys("observation_rollup", "p1", "p2", "eligible", "longer"),
    )
    op.create_table(
        "length_rollup",
        *_head(),
        sa.Column("delta", sa.Integer(), nullable=False),
        sa.Column("y_sum", sa.BigInteger(), nullable=False),
        sa.Column("y_n", sa.BigInteger(), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False),
        _keys("length_rollup", "delta", "y_sum", "y_n"),
    )
    op.create_table(
        "call_tag_rollup",
        sa.Column("tag_key", sa.String(length=64), nullable=False),
        sa.Column("tag_value", sa.String(length=256), nullable=False),
        sa.Column("judge", sa.String(length=100), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("placebo", sa.Boolean(), nullable=False),
        sa.Column("protocol", sa.String(length=16), nullable=False),
        sa.Column("error_kind", sa.String(length=32), nullable=False),
        sa.Column("label_pair", sa.String(length=64), nullable=False),
        sa.Column("hour", sa.BigInteger(), nullable=False),
        *[sa.Column(name, sa.BigInteger(), nullable=False) for name in COUNTS],
        sa.PrimaryKeyConstraint(
            "tag_key",
            "tag_value",
            "judge",
            "version",
            "placebo",
            "protocol",
            "error_kind",
            "label_pair",
            "hour",
            name=op.f("pk_call_tag_rollup"),
        ),
    )
    # Existing observations and calls are counted once; from here on every fold does its own.
    bind = op.get_bind()
    for statement in rebuild_moved_statements(
        bind.dialect.name, origin=False, rollups=OBSERVATION_ROLLUPS
    ):
        bind.execute(statement)


def downgrade() -> None:
    op.drop_table("call_tag_rollup")
    op.drop_table("length_rollup")
    op.drop_table("observation_rollup")
    op.drop_index("ix_judge_observations_conflicted", table_name="judge_observations")
    for name in ("prev_y_n", *PREVIOUS):
        op.drop_column("judge_observations", name)
