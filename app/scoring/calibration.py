"""Reviewer offsets for answers: the last refit per rubric, cached in process.

A refit runs the report's model (`app.scoring.report.rubric_fit`) over the rubric's scores of
the last `WINDOW` (the report's default window, so answers and the default report agree). It
happens, before an answer is built, when the rubric has no fit yet, when this process stored
`refit_after_scores` scores of the rubric since the last one, or when the fit is older than
`refit_after` (which also picks up scores stored by other replicas). Refits of one rubric are
serialized; concurrent requests wait for the running one and share its result.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import utcnow
from app.scoring.queries import ScoringFilters
from app.scoring.report import RubricRange, rubric_fit
from app.scoring.schemas import OffsetRead, ReviewerRead

WINDOW = timedelta(days=30)
REFIT_AFTER_SCORES = 200
REFIT_AFTER = timedelta(minutes=10)


@dataclass(frozen=True)
class Calibration:
    """The offsets of one rubric's last refit."""

    rubric: str
    computed_at: datetime
    reviewers: dict[str, ReviewerRead]

    def offset_of(self, reviewer: str) -> OffsetRead:
        """A reviewer's offset; `insufficient_data` for a reviewer the fit has not seen."""
        entry = self.reviewers.get(reviewer)
        if entry is None:
            return OffsetRead(
                offset=None,
                ci95=None,
                classification=None,
                tier="insufficient",
                reason="insufficient_data",
            )
        return OffsetRead.model_validate(entry.model_dump(include=set(OffsetRead.model_fields)))


@dataclass
class CalibrationCache:
    """The last refit of each rubric, and the scores stored since."""

    refit_after_scores: int = REFIT_AFTER_SCORES
    refit_after: timedelta = REFIT_AFTER
    _fits: dict[str, Calibration] = field(default_factory=dict)
    _new_scores: Counter[str] = field(default_factory=Counter)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    def note_scores(self, rubric: str, count: int) -> None:
        """Count scores this process stored for a rubric."""
        self._new_scores[rubric] += count

    def _stale(self, rubric: str) -> bool:
        fit = self._fits.get(rubric)
        return (
            fit is None
            or self._new_scores[rubric] >= self.refit_after_scores
            or utcnow() - fit.computed_at >= self.refit_after
        )

    async def current(
        self,
        sessionmaker: async_sessionmaker[AsyncSession],
        rubric: RubricRange,
        margin: float | None,
    ) -> Calibration:
        """The rubric's offsets, refitted first when the policy above says so."""
        async with self._locks.setdefault(rubric.id, asyncio.Lock()):
            if self._stale(rubric.id):
                self._new_scores[rubric.id] = 0
                self._fits[rubric.id] = await refit(sessionmaker, rubric, margin)
        return self._fits[rubric.id]


async def refit(
    sessionmaker: async_sessionmaker[AsyncSession], rubric: RubricRange, margin: float | None
) -> Calibration:
    """Fit the rubric's reviewer model over the last `WINDOW` of scores."""
    now = utcnow()
    async with sessionmaker() as session:
        fit = await rubric_fit(session, ScoringFilters(since=now - WINDOW), rubric, margin)
    return Calibration(rubric.id, now, {entry.reviewer: entry for entry in fit.reviewers})
