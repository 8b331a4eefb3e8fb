"""`bias_detected` is null under `single` (issue 37): one display order shows nothing to detect,
so the stored `false` of earlier `single` comparisons becomes null, and a list filtered by
`bias_detected=false` no longer counts them as checked and clean.

Revision ID: a4c8e2f6b1d9
Revises: f5b2d8a1c7e3
Create Date: 2026-11-28 12:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "a4c8e2f6b1d9"
down_revision: str | None = "f5b2d8a1c7e3"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.execute(
        "UPDATE comparisons SET bias_detected = NULL "
        "WHERE protocol = 'single' AND bias_detected IS NOT NULL"
    )


def downgrade() -> None:
    # Before, a single comparison with a verdict said `false`; one without a verdict, null.
    op.execute(
        "UPDATE comparisons SET bias_detected = false "
        "WHERE protocol = 'single' AND winner IS NOT NULL AND bias_detected IS NULL"
    )
