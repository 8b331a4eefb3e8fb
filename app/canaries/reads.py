"""The API's view of canaries and their runs; a read settles the runs that have finished."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.canaries import runs, service
from app.canaries.models import Canary, CanaryJudge, CanaryRun
from app.canaries.schemas import CanaryDriftRead, CanaryRead, CanaryRunRead, JudgeRunRead
from app.errors import ValidationProblem
from app.params import decode_name_cursor, encode_name_cursor


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
    return CanaryRead(
        name=canary.name,
        created_at=canary.created_at,
        judges=canary.judges,
        interval_s=canary.interval_s,
        selector=canary.selector,
        item_count=canary.item_count,
        gold_count=golds.get(canary.id, 0),
        last_run=run_read(latest) if latest is not None else None,
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
        status="complete" if run.finished_at is not None else "running",
        created_at=run.created_at,
        finished_at=run.finished_at,
        batch_id=run.batch_id,
        results=[judge_read(judge, figures[judge]) for judge in run.judges if judge in figures],
    )


def judge_read(judge: str, entry: dict[str, Any]) -> JudgeRunRead:
    """One judge's stored figures, as the API shows them (the per-item results stay stored)."""
    drift = entry.get("drift")
    return JudgeRunRead(
        judge=judge,
        figures=entry["summary"],
        previous_run=entry.get("previous_run"),
        items_compared=drift["n_items"] if drift else 0,
        verdict_agreement=drift["verdict_agreement"] if drift else None,
        tests=drift["tests"] if drift else [],
        drift=drift["drift"] if drift else None,
    )


async def latest_drift(session: AsyncSession) -> dict[str, list[CanaryDriftRead]]:
    """Per judge, its latest settled run of each canary (by canary name): what the bias report
    and the judge's dashboard page show; one run read per (canary, judge)."""
    rows = await session.execute(
        select(CanaryJudge.judge, Canary.name, CanaryRun)
        .join(Canary, Canary.id == CanaryJudge.canary_id)
        .join(
            CanaryRun,
            (CanaryRun.canary_id == CanaryJudge.canary_id)
            & (CanaryRun.number == CanaryJudge.last_run),
        )
        .order_by(CanaryJudge.judge, Canary.name)
    )
    by_judge: dict[str, list[CanaryDriftRead]] = {}
    for judge, name, run in rows:
        assert run.finished_at is not None
        assert run.figures is not None
        read = judge_read(judge, run.figures[judge])
        by_judge.setdefault(judge, []).append(
            CanaryDriftRead(
                canary=name,
                run=run.number,
                trigger=run.trigger,
                finished_at=run.finished_at,
                previous_run=read.previous_run,
                drift=read.drift,
                drifted=[t.name for t in read.tests if t.significant],
                call_accuracy=read.figures.call_accuracy,
                position_consistency=read.figures.position_consistency,
                first_pick_rate=read.figures.first_pick_rate,
            )
        )
    return by_judge
