"""Judge versions hash the whole base_url (JUDGING.md); judges get a revision for hot changes.

Every stored hash is recomputed in place: versions keep their numbers, and calls keep pointing at
their version, so no new version and no change in any report appears. A row whose configuration
no longer validates keeps its hash (the registry marks such a judge unavailable).

Revision ID: c5d8e2f1a9b3
Revises: a7c3e1f2b9d4
Create Date: 2026-11-24 04:30:00.000000
"""

from collections.abc import Callable, Sequence

import sqlalchemy as sa
from alembic import op
from pydantic import ValidationError

from app.judges.schemas import JudgeFields
from app.judges.service import to_judge_config
from app.judging.types import JudgeConfig
from app.judging.versioning import judge_config_hash, legacy_judge_config_hash

revision: str = "c5d8e2f1a9b3"
down_revision: str | None = "a7c3e1f2b9d4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

versions = sa.table(
    "judge_versions",
    sa.column("id", sa.Integer),
    sa.column("judge_id", sa.Integer),
    sa.column("version", sa.Integer),
    sa.column("config", sa.JSON),
    sa.column("config_hash", sa.String),
)
judges = sa.table("judges", sa.column("id", sa.Integer), sa.column("name", sa.String))
CALL_TABLES = [
    sa.table(
        name,
        sa.column("judge_name", sa.String),
        sa.column("judge_version", sa.Integer),
        sa.column("judge_config_hash", sa.String),
    )
    for name in ("judge_calls", "score_calls")
]


def upgrade() -> None:
    op.add_column("judges", sa.Column("revision", sa.Integer(), nullable=False, server_default="0"))
    rehash(judge_config_hash)


def downgrade() -> None:
    rehash(legacy_judge_config_hash)
    op.drop_column("judges", "revision")


def rehash(hash_of: Callable[[JudgeConfig], str]) -> None:
    """Recompute every version's hash with `hash_of`, and its calls' copies of it."""
    bind = op.get_bind()
    rows = bind.execute(
        sa.select(versions.c.id, judges.c.name, versions.c.version, versions.c.config).join(
            judges, judges.c.id == versions.c.judge_id
        )
    ).all()
    for version_id, name, number, config in rows:
        try:
            fields = JudgeFields.model_validate(config)
        except ValidationError:
            continue
        digest = hash_of(to_judge_config(name, fields, api_key=None))
        bind.execute(
            versions.update().where(versions.c.id == version_id).values(config_hash=digest)
        )
        for calls in CALL_TABLES:
            bind.execute(
                calls.update()
                .where(calls.c.judge_name == name, calls.c.judge_version == number)
                .values(judge_config_hash=digest)
            )
