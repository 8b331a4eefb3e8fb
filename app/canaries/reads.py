"""The API's view of canaries and their runs; a read settles the runs that have finished."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.canaries import runs, service, stats
from app.canaries.models import Canary, CanaryJudge, CanaryRun
from app.canaries.schemas import (
    CanaryDriftRead,
    CanaryJudgeRead,
    CanaryRead,
    CanaryRunRead,
    JudgeRunRead,
)
from app.errors import ValidationProblem
from app.jobs.models import JobStatus
from app.params import decode_name_cursor, encode_name_cursor
from app.rows import from_row


async def canary_read(session: AsyncSession, canary: Canary, min_effect: float) -> CanaryRead:
    """A canary and its latest run (settled first when its items all finished)."""
    await runs.settle_all(session, min_effect, canary.id)
    latest = await session.scalar(
        select(CanaryRun)
        .where(CanaryRun.canary_id == canary.id)
        .order_by(CanaryRun.number.desc())
        .limit(1)
    )
    golds = await service.gold_counts(session, [canary.id])
    states = {
        state.judge: state
        for state in await session.scalars(
            select(CanaryJudge).where(CanaryJudge.canary_id == canary.id)
        )
    }
    return from_row(
        CanaryRead,
        canary,
        gold_count=golds.get(canary.id, 0),
        last_run=run_read(latest) if latest is not None else None,
        judge_states=[judge_state(states[j]) for j in canary.judges if j in states],
    )


async def runs_page(
    session: AsyncSession, canary: Canary, min_effect: float, *, limit: int, cursor: str | None
) -> tuple[list[CanaryRun], str | None]:
    """A page of the canary's runs, newest first (settled first when finished)."""
    query = (
        select(CanaryRun)
        .where(CanaryRun.canary_id == canary.id)
        .order_by(CanaryRun.number.desc())
        .limit(limit + 1)
    )
    if cursor:
        before = decode_name_cursor(cursor, "r")
        if not before.isdigit() or len(before) > 9:
            raise ValidationProblem("/cursor: not a valid cursor")
        query = query.where(CanaryRun.number < int(before))
    await runs.settle_all(session, min_effect, canary.id)
    rows = list(await session.scalars(query))
    page = rows[:limit]
    more = len(rows) > limit
    return page, encode_name_cursor("r", str(page[-1].number)) if more else None


def run_read(run: CanaryRun) -> CanaryRunRead:
    """A run; per judge its figures and paired tests once settled."""
    figures = run.figures or {}
    return CanaryRunRead(
        number=run.number,
        trigger=run.trigger,
        judges=run.judges,
        status=JobStatus.COMPLETE if run.finished_at is not None else JobStatus.RUNNING,
        created_at=run.created_at,
        finished_at=run.finished_at,
        batch_id=run.batch_id,
        results=[judge_read(judge, figures[judge]) for judge in run.judges if judge in figures],
    )


def judge_read(judge: str, entry: dict[str, Any]) -> JudgeRunRead:
    """One judge's stored figures, as the API shows them (the per-item results stay stored),
    each rate with its tier: withheld below the tier's lower bound."""
    drift = entry.get("drift")
    baseline = entry.get("baseline_drift")
    # Runs settled before baselines existed have no `flagged`: their flag is the previous run's.
    flagged = entry["flagged"] if "flagged" in entry else (drift["drift"] if drift else None)
    return JudgeRunRead(
        judge=judge,
        figures=tiered(entry["summary"]),
        previous_run=entry.get("previous_run"),
        items_compared=drift["n_items"] if drift else 0,
        verdict_agreement=drift["verdict_agreement"] if drift else None,
        tests=drift["tests"] if drift else [],
        drift=flagged,
        version=entry.get("version"),
        baseline_run=entry.get("baseline_run"),
        baseline_items_compared=baseline["n_items"] if baseline else 0,
        baseline_tests=baseline["tests"] if baseline else [],
    )


def tiered(summary: dict[str, Any]) -> dict[str, Any]:
    """A run's stored figures with each rate's tier; an `insufficient` one has its value and CI
    withheld (`reason: insufficient_data`), its counts kept. Call accuracy counts labelled
    items (its CI's clusters), not calls."""
    figures = dict(summary)
    for name in stats.FIGURE_UNITS:
        rate = dict(figures[name])
        n = summary["n_labelled_items"] if name == "call_accuracy" else rate["n"]
        rate["tier"] = stats.figure_tier(name, n)
        if rate["tier"] == "insufficient":
            rate |= {"value": None, "ci95": None, "reason": "insufficient_data"}
        figures[name] = rate
    return figures


def judge_state(state: CanaryJudge) -> CanaryJudgeRead:
    """Where a judge of the canary stands: its baseline and its drift flag."""
    return from_row(
        CanaryJudgeRead, state, drift=sticky_drift(state), drift_since_run=state.drift_run
    )


def sticky_drift(state: CanaryJudge) -> bool | None:
    """Set from the run that flagged drift until acknowledged; null while no run of the judge
    had another to compare with."""
    if state.drift_run is not None:
        return True
    return None if state.last_drift is None else False


async def latest_drift(session: AsyncSession) -> dict[str, list[CanaryDriftRead]]:
    """Per judge, its latest settled run of each canary (by canary name): what the bias report
    and the judge's dashboard page show; one run read per (canary, judge)."""
    rows = await session.execute(
        select(CanaryJudge, Canary.name, CanaryRun)
        .join(Canary, Canary.id == CanaryJudge.canary_id)
        .join(
            CanaryRun,
            (CanaryRun.canary_id == CanaryJudge.canary_id)
            & (CanaryRun.number == CanaryJudge.last_run),
        )
        .order_by(CanaryJudge.judge, Canary.name)
    )
    by_judge: dict[str, list[CanaryDriftRead]] = {}
    for state, name, run in rows:
        assert run.finished_at is not None
        assert run.figures is not None
        read = judge_read(state.judge, run.figures[state.judge])
        tests = [*read.tests, *read.baseline_tests]
        by_judge.setdefault(state.judge, []).append(
            CanaryDriftRead(
                canary=name,
                run=run.number,
                trigger=run.trigger,
                finished_at=run.finished_at,
                previous_run=read.previous_run,
                drift=sticky_drift(state),
                drifted=list(dict.fromkeys(t.name for t in tests if t.significant)),
                run_drift=read.drift,
                drift_since_run=state.drift_run,
                baseline_run=state.baseline_run,
                baseline_pinned=state.baseline_pinned,
                call_accuracy=read.figures.call_accuracy,
                position_consistency=read.figures.position_consistency,
                first_pick_rate=read.figures.first_pick_rate,
            )
        )
    return by_judge
