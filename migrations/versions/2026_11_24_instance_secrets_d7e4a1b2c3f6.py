"""The privacy-mode HMAC salt, derived once and stored so that it never rotates.

Revision ID: d7e4a1b2c3f6
Revises: c5d8e2f1a9b3
Create Date: 2026-11-24 04:30:00.000000
"""

from collections.abc import Sequence

revision: str = "d7e4a1b2c3f6"
down_revision: str | None = "c5d8e2f1a9b3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass
