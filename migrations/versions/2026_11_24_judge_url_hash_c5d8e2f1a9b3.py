"""Judge versions hash the whole base_url (JUDGING.md); judges get a revision for hot changes.

Revision ID: c5d8e2f1a9b3
Revises: a7c3e1f2b9d4
Create Date: 2026-11-24 04:30:00.000000
"""

from collections.abc import Sequence

revision: str = "c5d8e2f1a9b3"
down_revision: str | None = "a7c3e1f2b9d4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
