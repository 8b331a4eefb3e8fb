"""Score sessions: sessions, their tags and responses, reviewer calls, and every score.

Revision ID: 21e28b02be57
Revises: 8a3daf18dc6e
Create Date: 2026-11-22 13:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "21e28b02be57"
# Branches from 46bf1687ed44 in the plan; chained after the batches migration while both are
# uncommitted, so that the tree keeps a single head (`upgrade head` refuses two).
down_revision: str | None = "8a3daf18dc6e"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# JSONB on PostgreSQL, JSON text on SQLite (matches app.db.JSONType).
JSON_TYPE = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
# SQLite only auto-increments an INTEGER PRIMARY KEY (matches app.scoring.models.BigIntId).
BIG_ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "score_sessions",
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
        sa.Column("prompt_hmac", sa.String(length=64), nullable=True),
        sa.Column("criteria", JSON_TYPE, nullable=True),
        sa.Column("rubric", JSON_TYPE, nullable=False),
        sa.Column("rubric_id", sa.String(length=16), nullable=False),
        sa.Column("rubric_min", sa.Float(), nullable=False),
        sa.Column("rubric_max", sa.Float(), nullable=False),
        sa.Column("length_target", sa.Integer(), nullable=True),
        sa.Column("self_preference", sa.String(length=16), nullable=False),
        sa.Column("self_preference_risk", sa.Boolean(), nullable=False),
        sa.Column("timeout_s", sa.Float(), nullable=False),
        sa.Column("simulated", sa.Boolean(), nullable=False),
        sa.Column("panel", JSON_TYPE, nullable=False),
        sa.Column("calibration", JSON_TYPE, nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_sessions")),
        sa.UniqueConstraint(
            "api_key_id",
            "idempotency_key",
            name=op.f("uq_score_sessions_api_key_id_idempotency_key"),
        ),
    )
    with op.batch_alter_table("score_sessions", schema=None) as batch_op:
        batch_op.create_index("ix_score_sessions_created_at_id", ["created_at", "id"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_score_sessions_rubric_id"), ["rubric_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_score_sessions_status"), ["status"], unique=False)

    op.create_table(
        "score_session_tags",
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("value", sa.String(length=256), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["score_sessions.id"],
            name=op.f("fk_score_session_tags_session_id_score_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "key", name=op.f("pk_score_session_tags")),
    )
    with op.batch_alter_table("score_session_tags", schema=None) as batch_op:
        batch_op.create_index("ix_score_session_tags_key_value", ["key", "value"], unique=False)

    op.create_table(
        "score_responses",
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("response_index", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("text_hmac", sa.String(length=64), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("family", sa.String(length=100), nullable=True),
        sa.Column("resolved_family", sa.String(length=100), nullable=True),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["score_sessions.id"],
            name=op.f("fk_score_responses_session_id_score_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "response_index", name=op.f("pk_score_responses")),
    )

    op.create_table(
        "score_calls",
        sa.Column("id", BIG_ID, autoincrement=True, nullable=False),
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("judge_name", sa.String(length=100), nullable=False),
        sa.Column("judge_version", sa.Integer(), nullable=False),
        sa.Column("judge_config_hash", sa.String(length=64), nullable=False),
        sa.Column("judge_family", sa.String(length=100), nullable=True),
        sa.Column("rubric_id", sa.String(length=16), nullable=False),
        sa.Column("display_order", JSON_TYPE, nullable=False),
        sa.Column("labels", JSON_TYPE, nullable=False),
        sa.Column("scores", JSON_TYPE, nullable=True),
        sa.Column("template_hash", sa.String(length=64), nullable=False),
        sa.Column("nonces", JSON_TYPE, nullable=False),
        sa.Column("anonymized_replacements", sa.Integer(), nullable=False),
        sa.Column("provider_model", sa.String(length=200), nullable=True),
        sa.Column("raw_output", sa.Text(), nullable=True),
        sa.Column("raw_output_hmac", sa.String(length=64), nullable=True),
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
            ["session_id"],
            ["score_sessions.id"],
            name=op.f("fk_score_calls_session_id_score_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_score_calls")),
        sa.UniqueConstraint(
            "session_id", "judge_name", name=op.f("uq_score_calls_session_id_judge_name")
        ),
    )
    with op.batch_alter_table("score_calls", schema=None) as batch_op:
        batch_op.create_index(
            "ix_score_calls_judge_started", ["judge_name", "started_at"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_score_calls_session_id"), ["session_id"], unique=False)

    op.create_table(
        "scores",
        sa.Column("session_id", sa.String(length=36), nullable=False),
        sa.Column("response_index", sa.Integer(), nullable=False),
        sa.Column("reviewer", sa.String(length=100), nullable=False),
        sa.Column("judge_version", sa.Integer(), nullable=False),
        sa.Column("call_id", BIG_ID, nullable=False),
        sa.Column("rubric_id", sa.String(length=16), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=16), nullable=False),
        sa.Column("score", sa.Float(), nullable=False),
        sa.Column("length", sa.Integer(), nullable=False),
        sa.Column("counted", sa.Boolean(), nullable=False),
        sa.Column("scored_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["call_id"],
            ["score_calls.id"],
            name=op.f("fk_scores_call_id_score_calls"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["session_id"],
            ["score_sessions.id"],
            name=op.f("fk_scores_session_id_score_sessions"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("session_id", "response_index", "reviewer", name=op.f("pk_scores")),
    )
    with op.batch_alter_table("scores", schema=None) as batch_op:
        batch_op.create_index("ix_scores_call_id", ["call_id"], unique=False)
        batch_op.create_index(
            "ix_scores_rubric_scored_at", ["rubric_id", "scored_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("scores", schema=None) as batch_op:
        batch_op.drop_index("ix_scores_rubric_scored_at")
        batch_op.drop_index("ix_scores_call_id")

    op.drop_table("scores")
    with op.batch_alter_table("score_calls", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_score_calls_session_id"))
        batch_op.drop_index("ix_score_calls_judge_started")

    op.drop_table("score_calls")
    op.drop_table("score_responses")
    with op.batch_alter_table("score_session_tags", schema=None) as batch_op:
        batch_op.drop_index("ix_score_session_tags_key_value")

    op.drop_table("score_session_tags")
    with op.batch_alter_table("score_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_score_sessions_status"))
        batch_op.drop_index(batch_op.f("ix_score_sessions_rubric_id"))
        batch_op.drop_index("ix_score_sessions_created_at_id")

    op.drop_table("score_sessions")
