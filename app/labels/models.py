"""Calibration labels: a human's gold verdict on a stored comparison.

The tables live in `app.ledger.gold`, below the leaderboard that also reads the gold labels;
their names here stay for the label feature's own modules.
"""

from __future__ import annotations

from app.ledger.gold import Label, QueueDraw

__all__ = ["Label", "QueueDraw"]
