"""`bias_detected` is null under `single` (issue 37): one display order shows nothing to detect,
so the stored `false` of earlier `single` comparisons becomes null, and a list filtered by
`bias_detected=false` no longer counts them as checked and clean.

Revision ID: c7d1e5a9b3f2
Revises: a4c8e2f6b1d9
Create Date: 2026-11-28 12:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "c7d1e5a9b3f2"
down_revision: str | None = "a4c8e2f6b1d9"
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
