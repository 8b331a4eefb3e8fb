"""Whether a filter names a judge (and a version of it) that exists: one check for every list,
report and page that filters by judge, so that a typo is a 422 everywhere instead of an empty
answer that reads like a judge without calls.

A judge is *known* when it is configured (the `judges` table, enabled or not) or has stored calls
of the kinds the caller reads: a judge deleted since keeps its history. A version is known when
that judge has it configured or has calls stored under it. A version number belongs to one judge
(each judge counts its own), so `judge_version` without `judge` is refused as meaningless.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import ColumnElement, exists, literal, select, union_all
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import ValidationProblem
from app.jobs.models import StoredCall
from app.judges.models import Judge, JudgeVersion


async def check_known_judge(
    session: AsyncSession,
    judge: str | None,
    version: int | None,
    calls: Sequence[type[StoredCall]],
) -> None:
    """422 (pointing at `/judge` or `/judge_version`) unless the filter names a known judge and
    version; `calls` are the call tables whose history counts. Each lookup starts from an index
    on the judge's name (a version absent from a scoring history reads that judge's calls)."""
    if judge is None:
        if version is not None:
            raise ValidationProblem("/judge_version: a version belongs to one judge; name `judge`")
        return
    named = [Judge.name == judge]
    if not await _any_exists(session, named, *([c.judge_name == judge] for c in calls)):
        raise ValidationProblem(
            f"/judge: no judge named {judge!r} is configured or has stored calls"
        )
    if version is None:
        return
    configured = [*named, JudgeVersion.judge_id == Judge.id, JudgeVersion.version == version]
    called = ([c.judge_name == judge, c.judge_version == version] for c in calls)
    if not await _any_exists(session, configured, *called):
        raise ValidationProblem(
            f"/judge_version: judge {judge!r} has no version {version}, configured or called"
        )


async def _any_exists(session: AsyncSession, *wheres: list[ColumnElement[bool]]) -> bool:
    """Whether any of the conditions holds for some row: one round trip."""
    found = union_all(*(select(literal(1)).where(exists().where(*where)) for where in wheres))
    return bool((await session.execute(select(exists(found.subquery())))).scalar_one())
