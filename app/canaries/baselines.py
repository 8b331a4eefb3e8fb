"""What an admin decides about drift: which run is a judge's baseline, and that a flag was seen.

A judge's baseline is the first run of its judge version unless an admin pins another settled
run of that version; a pin holds until the judge's version changes (its first run then starts
the new baseline). Drift, once a run flags it, stays set until an admin acknowledges it or pins
a baseline: acknowledging says "seen", and a later run that still differs from the baseline
flags again; pinning the latest run accepts its behaviour as the new normal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.canaries import runs
from app.canaries.models import Canary, CanaryJudge, CanaryRun
from app.canaries.schemas import BaselinePin, DriftAcknowledgement
from app.errors import Conflict, NotFound, ValidationProblem


async def pin(session: AsyncSession, canary: Canary, body: BaselinePin, min_effect: float) -> None:
    """Make a settled run the baseline of its judges (or of `body.judges`) and clear their
    drift flags; 404 for no such run, 409 while it runs, 422 for a judge it did not run or a
    run of an older judge version than the judge's latest run."""
    await runs.settle_all(session, min_effect, canary.id)
    run = await session.scalar(
        select(CanaryRun).where(CanaryRun.canary_id == canary.id, CanaryRun.number == body.run)
    )
    if run is None:
        raise NotFound(f"canary '{canary.name}' has no run {body.run}")
    if run.finished_at is None or run.figures is None:
        raise Conflict(f"run {body.run} has not finished: pin it once it has")
    judges = body.judges or [judge for judge in run.judges if judge in run.figures]
    states = await _states(session, canary, judges)
    for i, judge in enumerate(judges):
        if judge not in run.figures:
            raise ValidationProblem(f"/judges/{i}: run {body.run} did not run '{judge}'")
        version = run.figures[judge].get("version")
        latest = await _latest_version(session, canary, states[judge])
        if version != latest:
            raise ValidationProblem(
                f"/run: run {body.run} judged '{judge}' at version {version}, its latest run at "
                f"version {latest}: a baseline is a run of the judge's current version"
            )
        await _set(session, canary, judge, baseline_run=body.run, baseline_version=version)
    await session.commit()


async def acknowledge(session: AsyncSession, canary: Canary, body: DriftAcknowledgement) -> None:
    """Clear the drift flag of the canary's judges (or of `body.judges`)."""
    judges = body.judges or canary.judges
    await _states(session, canary, judges)
    for judge in judges:
        await _set(session, canary, judge)
    await session.commit()


async def _states(
    session: AsyncSession, canary: Canary, judges: Sequence[str]
) -> dict[str, CanaryJudge]:
    """The canary's state of each judge; 422 for a judge that is not the canary's."""
    found = {
        state.judge: state
        for state in await session.scalars(
            select(CanaryJudge).where(
                CanaryJudge.canary_id == canary.id, CanaryJudge.judge.in_(judges)
            )
        )
    }
    for i, judge in enumerate(judges):
        if judge not in found:
            raise ValidationProblem(f"/judges/{i}: '{judge}' is not one of the canary's judges")
    return found


async def _latest_version(session: AsyncSession, canary: Canary, state: CanaryJudge) -> Any:
    """The judge version of the judge's latest settled run of the canary."""
    figures = await session.scalar(
        select(CanaryRun.figures).where(
            CanaryRun.canary_id == canary.id, CanaryRun.number == state.last_run
        )
    )
    return ((figures or {}).get(state.judge) or {}).get("version")


async def _set(session: AsyncSession, canary: Canary, judge: str, **baseline: Any) -> None:
    """Clear the judge's drift flag; with `baseline`, pin it too."""
    values: dict[str, Any] = {"drift_run": None}
    if baseline:
        values |= {**baseline, "baseline_pinned": True}
    await session.execute(
        update(CanaryJudge)
        .where(CanaryJudge.canary_id == canary.id, CanaryJudge.judge == judge)
        .values(**values)
    )
