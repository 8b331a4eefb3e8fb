"""Dashboard sessions: the cookie holds a session id, never the API key.

Revision ID: e1f2a3b4c5d6
Revises: d7e4a1b2c3f6
Create Date: 2026-11-24 04:30:00.000000
"""

from collections.abc import Sequence

revision: str = "e1f2a3b4c5d6"
down_revision: str | None = "d7e4a1b2c3f6"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
