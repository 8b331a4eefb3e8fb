"""`POST /v1/score` and the stored score sessions."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Header, Request, Response
from sqlalchemy import select

from app.deps import ReadKey, ScoreKey, SessionDep
from app.errors import NotFound
from app.scoring import answers, queries, service, sweeper
from app.scoring.calibration import CalibrationCache
from app.scoring.models import ScoreSession
from app.scoring.schemas import ScoreRequest, ScoreSessionRead

router = APIRouter(tags=["scoring"])


def calibrations(request: Request) -> CalibrationCache:
    """The app's cache of reviewer offsets, created on first use."""
    state = request.app.state
    cache: CalibrationCache | None = getattr(state, "score_calibrations", None)
    if cache is None:
        cache = state.score_calibrations = CalibrationCache()
    return cache


@router.post("/v1/score", operation_id="score")
async def create_score_session(
    body: ScoreRequest,
    principal: ScoreKey,
    request: Request,
    response: Response,
    idempotency_key: Annotated[str | None, Header(max_length=255)] = None,
) -> ScoreSessionRead:
    """Score responses on a rubric with a panel; raw, calibrated and length-normalized scores."""
    services = service.Services(
        request.state.settings,
        request.state.sessionmaker,
        request.state.registry,
        request.state.pool,
        calibrations(request),
        text_keeper=request.state.keeper,
    )
    task = asyncio.create_task(service.score(body, principal, idempotency_key, services))
    # The session outlives a disconnected client; shutdown drains what is in flight.
    in_flight: set[asyncio.Task[Any]] = request.state.in_flight
    in_flight.add(task)
    task.add_done_callback(in_flight.discard)
    outcome = await asyncio.shield(task)
    if outcome.replayed:
        response.headers["Idempotent-Replayed"] = "true"
    if outcome.session.simulated:
        response.headers["Fairpair-Simulated"] = "true"
    return outcome.session


@router.get("/v1/score-sessions/{session_id}", operation_id="get_score_session")
async def get_score_session(
    session_id: str, _: ReadKey, session: SessionDep, request: Request
) -> ScoreSessionRead:
    """One stored score session with every reviewer call and score."""
    row = await session.scalar(select(ScoreSession).where(ScoreSession.id == session_id))
    if row is None:
        raise NotFound(f"no score session with id '{session_id}'")
    await sweeper.close_if_interrupted(session, row, request.state.settings.sweep_grace_s)
    return answers.to_read(await queries.load_session(session, row))
