"""Initial schema: judges and versions, API keys, comparisons, tags, judge calls.

Revision ID: 46bf1687ed44
Revises:
Create Date: 2026-11-22 00:37:29.562824
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "46bf1687ed44"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSONB on PostgreSQL, JSON text on SQLite (matches app.db.JSONType).
JSON_TYPE = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(length=32), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("secret_sha256", sa.String(length=64), nullable=False),
        sa.Column("scopes", JSON_TYPE, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_api_keys")),
        sa.UniqueConstraint("name", name=op.f("uq_api_keys_name")),
    )
    op.create_table(
        "comparisons",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("completed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("deadline_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("error_kind", sa.String(length=32), nullable=True),
        sa.Column("api_key_id", sa.String(length=32), nullable=False),
        sa.Column("idempotency_key", sa.String(length=255), nullable=True),
        sa.Column("request_hash", sa.String(length=64), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=True),
        sa.Column("response_a", sa.Text(), nullable=True),
        sa.Column("response_b", sa.Text(), nullable=True),
        sa.Column("reference", sa.Text(), nullable=True),
        sa.Column("prompt_hmac", sa.String(length=64), nullable=True),
        sa.Column("response_a_hmac", sa.String(length=64), nullable=True),
        sa.Column("response_b_hmac", sa.String(length=64), nullable=True),
        sa.Column("len_a", sa.Integer(), nullable=False),
        sa.Column("len_b", sa.Integer(), nullable=False),
        sa.Column("placebo", sa.Boolean(), nullable=False),
        sa.Column("model_a", sa.String(length=200), nullable=True),
        sa.Column("model_b", sa.String(length=200), nullable=True),
        sa.Column("family_a", sa.String(length=100), nullable=True),
        sa.Column("family_b", sa.String(length=100), nullable=True),
        sa.Column("criteria", JSON_TYPE, nullable=True),
        sa.Column("protocol", sa.String(length=16), nullable=False),
        sa.Column("protocol_params", JSON_TYPE, nullable=False),
        sa.Column("planned_rounds", sa.Integer(), nullable=False),
        sa.Column("self_preference", sa.String(length=16), nullable=False),
        sa.Column("timeout_s", sa.Float(), nullable=False),
        sa.Column("winner", sa.String(length=4), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("position_consistent", sa.Boolean(), nullable=True),
        sa.Column("bias_detected", sa.Boolean(), nullable=True),
        sa.Column("agreement", sa.Float(), nullable=True),
        sa.Column("self_preference_risk", sa.Boolean(), nullable=False),
        sa.Column("simulated", sa.Boolean(), nullable=False),
        sa.Column("panel", JSON_TYPE, nullable=False),
        sa.Column("judge_results", JSON_TYPE, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_comparisons")),
        sa.UniqueConstraint(
            "api_key_id", "idempotency_key", name=op.f("uq_comparisons_api_key_id_idempotency_key")
        ),
    )
    with op.batch_alter_table("comparisons", schema=None) as batch_op:
        batch_op.create_index("ix_comparisons_created_at_id", ["created_at", "id"], unique=False)
        batch_op.create_index(batch_op.f("ix_comparisons_status"), ["status"], unique=False)

    op.create_table(
        "judges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("current_version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judges")),
        sa.UniqueConstraint("name", name=op.f("uq_judges_name")),
    )
    op.create_table(
        "comparison_tags",
        sa.Column("comparison_id", sa.String(length=36), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=256), nullable=False),
        sa.ForeignKeyConstraint(
            ["comparison_id"],
            ["comparisons.id"],
            name=op.f("fk_comparison_tags_comparison_id_comparisons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("comparison_id", "key", name=op.f("pk_comparison_tags")),
    )
    with op.batch_alter_table("comparison_tags", schema=None) as batch_op:
        batch_op.create_index("ix_comparison_tags_key_value", ["key", "value"], unique=False)

    op.create_table(
        "judge_calls",
        sa.Column(
            "id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            autoincrement=True,
            nullable=False,
        ),
        sa.Column("comparison_id", sa.String(length=36), nullable=False),
        sa.Column("judge_name", sa.String(length=100), nullable=False),
        sa.Column("judge_version", sa.Integer(), nullable=False),
        sa.Column("judge_config_hash", sa.String(length=64), nullable=False),
        sa.Column("judge_family", sa.String(length=100), nullable=True),
        sa.Column("role", sa.String(length=8), nullable=False),
        sa.Column("protocol", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("design", sa.Boolean(), nullable=False),
        sa.Column("display_order", sa.String(length=2), nullable=False),
        sa.Column("label_pair", sa.String(length=64), nullable=False),
        sa.Column("label_a", sa.String(length=16), nullable=False),
        sa.Column("label_b", sa.String(length=16), nullable=False),
        sa.Column("first_slot_second_label", sa.Boolean(), nullable=False),
        sa.Column("template_hash", sa.String(length=64), nullable=False),
        sa.Column("nonces", JSON_TYPE, nullable=False),
        sa.Column("anonymized_replacements", sa.Integer(), nullable=False),
        sa.Column("provider_model", sa.String(length=200), nullable=True),
        sa.Column("raw_output", sa.Text(), nullable=True),
        sa.Column("raw_output_hmac", sa.String(length=64), nullable=True),
        sa.Column("pick", sa.String(length=8), nullable=True),
        sa.Column("mapped_winner", sa.String(length=4), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("confidence_source", sa.String(length=16), nullable=True),
        sa.Column("latency_ms", sa.Float(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("tokens_in", sa.Integer(), nullable=True),
        sa.Column("tokens_out", sa.Integer(), nullable=True),
        sa.Column("cost_usd", sa.Float(), nullable=True),
        sa.Column("retries", sa.Integer(), nullable=False),
        sa.Column("error_kind", sa.String(length=32), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(
            ["comparison_id"],
            ["comparisons.id"],
            name=op.f("fk_judge_calls_comparison_id_comparisons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_calls")),
        sa.UniqueConstraint(
            "comparison_id",
            "judge_name",
            "round",
            name=op.f("uq_judge_calls_comparison_id_judge_name_round"),
        ),
    )
    with op.batch_alter_table("judge_calls", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_judge_calls_comparison_id"), ["comparison_id"], unique=False
        )
        batch_op.create_index(
            "ix_judge_calls_judge_started", ["judge_name", "started_at"], unique=False
        )
        batch_op.create_index(
            "ix_judge_calls_judge_version", ["judge_name", "judge_version"], unique=False
        )
        batch_op.create_index("ix_judge_calls_started_at", ["started_at"], unique=False)

    op.create_table(
        "judge_versions",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("judge_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("config", JSON_TYPE, nullable=False),
        sa.Column("config_hash", sa.String(length=64), nullable=False),
        sa.Column("api_key_ciphertext", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["judge_id"],
            ["judges.id"],
            name=op.f("fk_judge_versions_judge_id_judges"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_versions")),
        sa.UniqueConstraint("judge_id", "version", name=op.f("uq_judge_versions_judge_id_version")),
    )
    with op.batch_alter_table("judge_versions", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_judge_versions_judge_id"), ["judge_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("judge_versions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_judge_versions_judge_id"))

    op.drop_table("judge_versions")
    with op.batch_alter_table("judge_calls", schema=None) as batch_op:
        batch_op.drop_index("ix_judge_calls_started_at")
        batch_op.drop_index("ix_judge_calls_judge_version")
        batch_op.drop_index("ix_judge_calls_judge_started")
        batch_op.drop_index(batch_op.f("ix_judge_calls_comparison_id"))

    op.drop_table("judge_calls")
    with op.batch_alter_table("comparison_tags", schema=None) as batch_op:
        batch_op.drop_index("ix_comparison_tags_key_value")

    op.drop_table("comparison_tags")
    op.drop_table("judges")
    with op.batch_alter_table("comparisons", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_comparisons_status"))
        batch_op.drop_index("ix_comparisons_created_at_id")

    op.drop_table("comparisons")
    op.drop_table("api_keys")
