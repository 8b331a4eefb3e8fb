"""Rubrics: the default one, the judging layer's form, and the id reports fit by."""

from __future__ import annotations

import hashlib
import json

from app.judging.types import DEFAULT_RUBRIC, Rubric, RubricLevel
from app.scoring.schemas import RubricIn, RubricLevelIn, ScoreRequest


def rubric_in(request: ScoreRequest) -> RubricIn:
    """The request's rubric, or the default one (1..5 with a conciseness level)."""
    if request.rubric is not None:
        return request.rubric
    levels = [
        RubricLevelIn(score=lv.score, description=lv.description) for lv in DEFAULT_RUBRIC.levels
    ]
    return RubricIn(min=DEFAULT_RUBRIC.min, max=DEFAULT_RUBRIC.max, levels=levels)


def rubric_id(rubric: RubricIn) -> str:
    """A short hash of the range, the levels and their anchors: reports fit per rubric id."""
    canonical = json.dumps(rubric.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def to_rubric(rubric: RubricIn) -> Rubric:
    """The rubric as the judging layer takes it."""
    assert rubric.min is not None  # both filled by validation
    assert rubric.max is not None
    levels = tuple(RubricLevel(lv.score, lv.description, tuple(lv.anchors)) for lv in rubric.levels)
    return Rubric(min=rubric.min, max=rubric.max, levels=levels)
