"""`POST /v1/score` and the stored score sessions."""

from __future__ import annotations

from fastapi import APIRouter

from app.deps import ReadKey, ScoreKey, SessionDep, SettingsDep
from app.jobs.http import AnsweringDep, IdempotencyKeyHeader, JobsDep
from app.jobs.lifecycle import read_job
from app.scoring import service
from app.scoring.calibration import CalibrationsDep
from app.scoring.schemas import ScoreRequest, ScoreSessionRead

router = APIRouter(tags=["scoring"])


@router.post("/v1/score", operation_id="score")
async def create_score_session(
    body: ScoreRequest,
    principal: ScoreKey,
    jobs: JobsDep,
    calibrations: CalibrationsDep,
    answer: AnsweringDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> ScoreSessionRead:
    """Score responses on a rubric with a panel; raw, calibrated and length-normalized scores."""
    return await answer(service.score(body, principal, idempotency_key, jobs, calibrations))


@router.get("/v1/score-sessions/{session_id}", operation_id="get_score_session")
async def get_score_session(
    session_id: str,
    _: ReadKey,
    session: SessionDep,
    settings: SettingsDep,
    calibrations: CalibrationsDep,
) -> ScoreSessionRead:
    """One stored score session with every reviewer call and score."""
    kind = service.ScoreKind(calibrations)
    return await read_job(kind, session, session_id, settings.sweep_grace_s)
