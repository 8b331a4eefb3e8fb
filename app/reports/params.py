"""The bias report's filters from its query parameters: for its route, the dashboard and the CLI,
so that they validate alike.

The comparisons' origin defaults to `traffic`: a drift canary's runs re-judge frozen items, and
counted with the callers' traffic they would count those items again; `canary` reads only them,
`all` both.

A judge, version or rubric the filters name must exist (`check_known_names`; the judge rule is
the kernel's, `app/jobs/known.py`): any other name is a typo, and a 422 says so instead of an
empty report that reads like a judge without bias.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import cast, get_args

from sqlalchemy import exists, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.comparisons.protocols import ProtocolKind
from app.db import utcnow
from app.errors import ValidationProblem
from app.jobs.known import check_known_judge
from app.ledger.callscope import Bucket, Origin, ReportFilters
from app.ledger.models import JudgeCall
from app.params import as_utc, check_order, check_version, parse_moment, parse_tag_filters
from app.privacy import TextKeeper
from app.scoring.models import ScoreCall, ScoreSession

DEFAULT_WINDOW = timedelta(days=30)
PROTOCOLS: tuple[str, ...] = get_args(ProtocolKind)
BUCKETS: tuple[str, ...] = get_args(Bucket)
ORIGINS: tuple[str, ...] = get_args(Origin)
Moment = datetime | str | None


def moment_of(value: Moment, name: str, now: datetime) -> datetime | None:
    """A time filter in UTC, given as a datetime or as the text the API and the CLI take."""
    if value is None:
        return None
    if isinstance(value, str):
        return parse_moment(value, name, now=now)
    return as_utc(value, name)


def check_choice(name: str, value: str | None, choices: tuple[str, ...]) -> None:
    """422 for a value outside the closed list."""
    if value is not None and value not in choices:
        raise ValidationProblem(f"/{name}: unknown {name} {value!r}; one of {', '.join(choices)}")


def report_filters(
    judge: str | None,
    judge_version: int | None,
    since: Moment,
    until: Moment,
    tag: list[str] | None,
    protocol: str | None,
    bucket: str,
    rubric: str | None = None,
    *,
    keeper: TextKeeper,
    origin: str = "traffic",
) -> ReportFilters:
    """Validated filters; without `since`, the 30 days before `until` (or now). Times are
    datetimes or text (ISO 8601, or an age before now like `7d`)."""
    check_choice("protocol", protocol, PROTOCOLS)
    check_choice("bucket", bucket, BUCKETS)
    check_choice("origin", origin, ORIGINS)
    check_version(judge_version)
    now = utcnow()
    end = moment_of(until, "until", now)
    # `until` is past EARLIEST (`as_utc`): the default window cannot overflow.
    start = moment_of(since, "since", now) or (end or now) - DEFAULT_WINDOW
    check_order(start, end)
    return ReportFilters(
        since=start,
        until=end,
        judge=judge,
        judge_version=judge_version,
        tags=tuple(parse_tag_filters(tag or [], keeper)),
        protocol=protocol,
        bucket=cast(Bucket, bucket),  # checked against BUCKETS above
        rubric=rubric,
        origin=cast(Origin, origin),  # checked against ORIGINS above
    )


async def check_known_names(session: AsyncSession, filters: ReportFilters) -> None:
    """422 for a judge, version or rubric the filters name and nothing has: a judge or version
    configured or with stored calls (pairwise or scoring, `check_known_judge`), a rubric some
    score request used."""
    await check_known_judge(session, filters.judge, filters.judge_version, (JudgeCall, ScoreCall))
    if filters.rubric is None:
        return
    used = select(exists().where(ScoreSession.rubric_id == filters.rubric))
    if not (await session.execute(used)).scalar_one():
        raise ValidationProblem(f"/rubric: no score request used rubric {filters.rubric!r}")
