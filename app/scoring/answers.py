"""The answer of a score session, built from its stored rows (the same for POST, GET and replay).

Per response: the counted raw scores by reviewer (never rewritten), the calibrated scores
raw − β_reviewer with the offsets the session was answered with (not clipped to the rubric;
null for a reviewer without an offset), the length-normalized raw scores when asked, and the
mean of each over the reviewers that have one. Audit scores are shown apart and count nowhere.

Under `exclude` (or after a failed call) responses are scored by different reviewers, so their
`raw_mean`s mix harsh and generous reviewers differently; `shared_raw_mean` is the mean over the
session's `shared_reviewers` (counted on every response) and compares across responses.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import datetime

from app.rows import from_row
from app.scoring.models import Score, ScoreCall, ScoreResponse, ScoreSession
from app.scoring.panels import ScoringPlan
from app.scoring.queries import StoredSession
from app.scoring.schemas import (
    CalibrationRead,
    ExcludedReviewerRead,
    OffsetRead,
    ResponseScores,
    ReviewerEntry,
    RubricLevelIn,
    RubricRead,
    ScoreCallRead,
    ScoreSessionRead,
    ShownRead,
)
from app.scoring.stats import calibrated_score, length_normalized_score


def mean(values: Sequence[float]) -> float | None:
    """Exactly rounded mean (independent of order); None for no values."""
    return math.fsum(values) / len(values) if values else None


def call_read(call: ScoreCall) -> ScoreCallRead:
    """One call as the API shows it: responses in shown order with labels and scores."""
    shown = [
        ShownRead(
            position=k + 1,
            response=index,
            label=call.labels[k] if k < len(call.labels) else None,
            score=call.scores[k] if call.scores is not None else None,
        )
        for k, index in enumerate(call.display_order)
    ]
    return from_row(ScoreCallRead, call, shown=shown, cached=call.cached_from is not None)


def response_scores(
    session: ScoreSession,
    response: ScoreResponse,
    scores: Sequence[Score],
    offsets: Mapping[str, float | None] | None,
    excluded: Sequence[str],
    shared: Sequence[str],
) -> ResponseScores:
    """One response's scores and means (`shared`: the reviewers counted on every response)."""
    raw = {s.reviewer: s.score for s in sorted(scores, key=lambda s: s.reviewer) if s.counted}
    calibrated: dict[str, float | None] = {}
    for name, score in raw.items():
        offset = offsets.get(name) if offsets is not None else None
        calibrated[name] = None if offset is None else calibrated_score(score, offset)
    target = session.length_target
    normalized = (
        {
            name: length_normalized_score(score, response.length, session.rubric_min, target)
            for name, score in raw.items()
        }
        if target is not None
        else None
    )
    return ResponseScores(
        index=response.response_index,
        model=response.model,
        family=response.resolved_family,
        length=response.length,
        raw=raw,
        calibrated=calibrated,
        length_normalized=normalized,
        audit={s.reviewer: s.score for s in scores if not s.counted},
        excluded=list(excluded),
        raw_mean=mean(list(raw.values())),
        shared_raw_mean=mean([raw[name] for name in shared]),
        calibrated_mean=mean([v for v in calibrated.values() if v is not None]),
        length_normalized_mean=mean(list(normalized.values())) if normalized else None,
    )


def shared_reviewers(
    responses: Sequence[ScoreResponse], by_response: Mapping[int, Sequence[Score]]
) -> list[str]:
    """The reviewers with a counted score on every response, sorted: the one reviewer set over
    which the responses' means compare."""
    counted = [
        {s.reviewer for s in by_response.get(r.response_index, []) if s.counted} for r in responses
    ]
    return sorted(set.intersection(*counted)) if counted else []


def to_read(stored: StoredSession) -> ScoreSessionRead:
    """The pinned answer shape of a score session."""
    session = stored.session
    plan = ScoringPlan.from_json(session.panel["plan"])
    snapshot = session.calibration
    offsets: dict[str, OffsetRead] = {
        name: OffsetRead.model_validate(entry)
        for name, entry in (snapshot["reviewers"] if snapshot else {}).items()
    }
    by_response: dict[int, list[Score]] = {}
    for score in stored.scores:
        by_response.setdefault(score.response_index, []).append(score)
    calls = {call.judge_name: call for call in stored.calls}
    shared = shared_reviewers(stored.responses, by_response)
    responses = [
        response_scores(
            session,
            response,
            by_response.get(response.response_index, []),
            {name: o.offset for name, o in offsets.items()} if snapshot else None,
            plan.responses[response.response_index].excluded,
            shared,
        )
        for response in stored.responses
    ]
    reviewers = [
        ReviewerEntry(
            reviewer=name,
            version=version,
            responses=plan.shown_to(name),
            call=call_read(calls[name]) if name in calls else None,
            calibration=offsets.get(name),
        )
        for name, version in session.panel["reviewers"]
    ]
    return ScoreSessionRead(
        id=session.id,
        status=session.status,
        simulated=session.simulated,
        self_preference_risk=session.self_preference_risk,
        rubric=RubricRead(
            id=session.rubric_id,
            min=session.rubric_min,
            max=session.rubric_max,
            levels=[RubricLevelIn.model_validate(level) for level in session.rubric["levels"]],
        ),
        length_target=session.length_target,
        responses=responses,
        reviewers=reviewers,
        excluded=[
            ExcludedReviewerRead(judge=name, reason="self_preference") for name in plan.excluded
        ],
        conflicted=list(plan.conflicted),
        shared_reviewers=list(shared),
        calibration=(
            CalibrationRead(
                rubric=snapshot["rubric"],
                computed_at=datetime.fromisoformat(snapshot["computed_at"]),
            )
            if snapshot
            else None
        ),
        error_kind=session.error_kind,
        tags=dict(sorted(stored.tags.items())),
        created_at=session.created_at,
        completed_at=session.completed_at,
    )
