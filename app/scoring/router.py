"""`POST /v1/score` and the stored score sessions."""

from __future__ import annotations

from fastapi import APIRouter

from app.deps import ReadKey, ScoreKey, SessionDep, SettingsDep
from app.jobs.http import AnsweringDep, IdempotencyKeyHeader, JobsDep
from app.jobs.lifecycle import read_job, run_request
from app.scoring import service
from app.scoring.schemas import ScoreRequest, ScoreSessionRead

router = APIRouter(tags=["scoring"])


@router.post("/v1/score", operation_id="score")
async def create_score_session(
    body: ScoreRequest,
    principal: ScoreKey,
    jobs: JobsDep,
    kind: service.ScoreKindDep,
    answer: AnsweringDep,
    idempotency_key: IdempotencyKeyHeader = None,
) -> ScoreSessionRead:
    """Score responses on a rubric with a panel; raw, calibrated and length-normalized scores."""
    return await answer(run_request(kind, body, principal, idempotency_key, jobs))


@router.get("/v1/score-sessions/{session_id}", operation_id="get_score_session")
async def get_score_session(
    session_id: str,
    _: ReadKey,
    session: SessionDep,
    settings: SettingsDep,
    kind: service.ScoreKindDep,
) -> ScoreSessionRead:
    """One stored score session with every reviewer call and score."""
    return await read_job(kind, session, session_id, settings.sweep_grace_s)
