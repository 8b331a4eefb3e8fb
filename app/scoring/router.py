"""`POST /v1/score` and the stored score sessions."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Response

from app.deps import InFlightDep, ReadKey, ScoreKey, SessionDep, SettingsDep
from app.jobs.lifecycle import JobsDep, mark_answer, outlive_client, read_job
from app.scoring import service
from app.scoring.calibration import CalibrationsDep
from app.scoring.schemas import ScoreRequest, ScoreSessionRead

router = APIRouter(tags=["scoring"])


@router.post("/v1/score", operation_id="score")
async def create_score_session(
    body: ScoreRequest,
    principal: ScoreKey,
    response: Response,
    jobs: JobsDep,
    calibrations: CalibrationsDep,
    in_flight: InFlightDep,
    idempotency_key: Annotated[str | None, Header(max_length=255)] = None,
) -> ScoreSessionRead:
    """Score responses on a rubric with a panel; raw, calibrated and length-normalized scores."""
    work = service.score(body, principal, idempotency_key, jobs, calibrations)
    outcome = await outlive_client(work, in_flight)
    mark_answer(response.headers, outcome, outcome.answer.simulated)
    return outcome.answer


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
