"""`POST /v1/score` as a kind of job: the kernel (`app.jobs`) runs the lifecycle; this module
plans the reviewers, names the session's columns, asks the reviewers without a stored call, and
snapshots the calibration the answer used."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Annotated, Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Base
from app.deps import from_state
from app.errors import ValidationProblem
from app.jobs.closing import JobTables
from app.jobs.kind import Job, Run, Services
from app.jobs.models import JobStatus
from app.jobs.panels import PanelJudge, family_of, parse_family_prefixes
from app.judges.registry import RuntimeJudge
from app.judging.types import Criterion
from app.scoring import answers, queries
from app.scoring.calibration import CalibrationCache
from app.scoring.fanout import ScoreCalls, ScoreFanOut
from app.scoring.models import Score, ScoreCall, ScoreResponse, ScoreSession, ScoreSessionTag
from app.scoring.panels import ScoringPlan, plan_scoring
from app.scoring.queries import StoredSession
from app.scoring.report import RubricRange
from app.scoring.rubrics import rubric_id, rubric_in, to_rubric
from app.scoring.schemas import RubricIn, ScoreRequest, ScoreSessionRead

_audit_rng = random.SystemRandom()


@dataclass(frozen=True)
class SessionPlan:
    """Who scores what, on which rubric; the responses' resolved families."""

    rubric: RubricIn
    families: list[str | None]
    plan: ScoringPlan
    judges: dict[str, RuntimeJudge]


@dataclass(frozen=True)
class Reopened:
    """What an earlier delivery stored of a session."""

    responses: list[ScoreResponse]
    calls: list[ScoreCall]
    scores: list[Score]


# A score session as the kernel runs it.
ScoreJob = Job[ScoreRequest, SessionPlan, ScoreSession]


class ScoreKind:
    """A score session: each reviewer scores the responses shown to it, in one call (a
    `Kind[ScoreRequest, SessionPlan, ScoreSession, Reopened, StoredSession, ScoreSessionRead]`)."""

    # A failed call's scores are JSON null, which is not SQL NULL: its error says it failed.
    answered = ScoreCall.scores.is_not(None) & ScoreCall.error_kind.is_(None)
    tables = JobTables.of(ScoreSession, ScoreCall, ScoreSessionTag, answered=answered)
    sink = ScoreCalls()
    noun = "score session"
    failed_detail = "no reviewer produced scores; the calls are stored"
    id_field = "score_session_id"

    def __init__(self, calibrations: CalibrationCache) -> None:
        self.calibrations = calibrations  # the process's cache of reviewer offsets

    async def plan(
        self, request: ScoreRequest, names: list[str], services: Services, session: AsyncSession
    ) -> SessionPlan:
        prefixes = parse_family_prefixes(services.settings.family_prefixes)
        families = [family_of(r.model, r.family, prefixes) for r in request.responses]
        plan, judges = await plan_reviewers(request, names, families, services, session)
        check_call_sizes(request, plan, judges)
        return SessionPlan(rubric_in(request), families, plan, judges)

    def planned_calls(self, plan: SessionPlan) -> int:
        return len(plan.plan.reviewers)

    def row_values(
        self, request: ScoreRequest, plan: SessionPlan, services: Services
    ) -> dict[str, Any]:
        keeper, rubric, judges = services.keeper, plan.rubric, plan.judges
        assert rubric.min is not None
        assert rubric.max is not None
        return {
            "prompt": keeper.text(request.prompt),
            "prompt_hmac": keeper.hmac(request.prompt),
            "criteria": keeper.texts_in(request.model_dump(mode="json")["criteria"]),
            "rubric": keeper.texts_in(rubric.model_dump(mode="json")),
            "rubric_id": rubric_id(rubric),
            "rubric_min": rubric.min,
            "rubric_max": rubric.max,
            "length_target": request.length_target if request.length_normalize else None,
            "self_preference": request.self_preference or services.settings.self_preference,
            "self_preference_risk": plan.plan.self_preference_risk,
            "simulated": any(j.simulated for j in judges.values()),
            "panel": {
                "reviewers": [[name, judges[name].version] for name in plan.plan.reviewers],
                "plan": plan.plan.to_json(),
            },
        }

    def dependents(
        self, request: ScoreRequest, job_id: str, plan: SessionPlan, services: Services
    ) -> dict[type[Base], list[dict[str, Any]]]:
        keeper = services.keeper
        responses = [
            {
                "session_id": job_id,
                "response_index": i,
                "text": keeper.text(r.text),
                "text_hmac": keeper.hmac(r.text),
                "model": r.model,
                "family": r.family,
                "resolved_family": plan.families[i],
                "length": len(r.text),
            }
            for i, r in enumerate(request.responses)
        ]
        return {ScoreResponse: responses}

    async def reopen(
        self, session: AsyncSession, row: ScoreSession, request: ScoreRequest, services: Services
    ) -> tuple[SessionPlan, Reopened]:
        # The stored plan, not a new one: audit draws must not change between deliveries, and
        # the reviewers already stored must be the ones the plan asks.
        stored = await queries.load_session(session, row)
        names = [name for name, _version in row.panel["reviewers"]]
        resolved = await services.registry.resolve(session, names)
        families = [response.resolved_family for response in stored.responses]
        plan = ScoringPlan.from_json(row.panel["plan"])
        judges = {judge.name: judge for judge in resolved}
        reopened = Reopened(stored.responses, stored.calls, stored.scores)
        return SessionPlan(rubric_in(request), families, plan, judges), reopened

    async def run(self, job: ScoreJob, stored: Reopened | None, run: Run) -> StoredSession:
        request = job.request
        plan = job.plan
        asked = {call.judge_name for call in stored.calls} if stored else set()
        calls, scores = await ScoreFanOut(run).reviews(
            job.row,
            plan.plan,
            plan.judges,
            request,
            to_rubric(plan.rubric),
            to_criteria(request),
            [name for name in plan.plan.reviewers if name not in asked],
        )
        if stored is None:
            responses = [ScoreResponse(**row) for row in job.dependents[ScoreResponse]]
            return StoredSession(job.row, responses, calls, scores, job.tags)
        return StoredSession(
            job.row,
            stored.responses,
            [*stored.calls, *calls],
            [*stored.scores, *scores],
            job.tags,
        )

    def verdict(self, job: ScoreJob, calls: StoredSession) -> dict[str, Any]:
        made = calls.calls
        scored = [c for c in made if c.scores is not None]
        if not scored:
            return {"status": JobStatus.FAILED}
        return {"status": JobStatus.COMPLETE if len(scored) == len(made) else JobStatus.PARTIAL}

    async def snapshot(
        self, job: ScoreJob, calls: StoredSession, services: Services
    ) -> dict[str, Any]:
        return {
            "calibration": await calibration_snapshot(
                job.row, len(calls.scores), self.calibrations, services
            )
        }

    def answer(self, job: ScoreJob, calls: StoredSession) -> ScoreSessionRead:
        return answers.to_read(calls)

    async def read(self, session: AsyncSession, row: ScoreSession) -> ScoreSessionRead:
        return answers.to_read(await queries.load_session(session, row))


# The process's score kind, made once in the lifespan (it holds the reviewer offsets' cache).
ScoreKindDep = Annotated[ScoreKind, from_state("score_kind")]


def to_criteria(request: ScoreRequest) -> str | tuple[Criterion, ...] | None:
    """Criteria as the judging layer takes them."""
    if isinstance(request.criteria, list):
        return tuple(Criterion(c.name, c.weight, c.description) for c in request.criteria)
    return request.criteria


async def plan_reviewers(
    request: ScoreRequest,
    names: list[str],
    families: list[str | None],
    services: Services,
    session: AsyncSession,
) -> tuple[ScoringPlan, dict[str, RuntimeJudge]]:
    """Resolve the panel (422 for an unknown judge) and plan who scores which response."""
    settings, registry = services.settings, services.registry
    panel = await registry.resolve(session, names)
    defaults = await registry.resolve_known(session, registry.default_panel)
    family = {j.name: j.family for j in [*panel, *defaults]}  # resolved once, by the registry
    draws: dict[str, float] = {}  # one audit draw per reviewer and session
    plan = plan_scoring(
        [PanelJudge(j.name, family[j.name]) for j in panel],
        families,
        policy=request.self_preference or settings.self_preference,
        default_panel=[PanelJudge(j.name, family[j.name]) for j in defaults],
        audit_draw=lambda name: draws.setdefault(name, _audit_rng.random()),
        audit_rate=settings.self_preference_audit_rate,
    )
    by_name = {j.name: j for j in [*panel, *defaults]}
    return plan, {name: by_name[name] for name in plan.reviewers}


def check_call_sizes(
    request: ScoreRequest, plan: ScoringPlan, judges: dict[str, RuntimeJudge]
) -> None:
    """422 before any call when a reviewer's shown responses exceed its per-call limit."""
    for name in plan.reviewers:
        total = sum(len(request.responses[i].text) for i in plan.shown_to(name))
        limit = judges[name].client.config.max_score_chars
        if total > limit:
            raise ValidationProblem(
                f"/responses: the responses shown to '{name}' total {total} characters; "
                f"one scoring call allows {limit}",
                extra={"errors": [{"pointer": "/responses", "message": "too long for one call"}]},
            )


async def calibration_snapshot(
    row: ScoreSession, new_scores: int, cache: CalibrationCache, services: Services
) -> dict[str, Any]:
    """The offsets of the rubric's last refit for the session's reviewers (refitting if due)."""
    cache.note_scores(row.rubric_id, new_scores)
    rubric = RubricRange(row.rubric_id, row.rubric_min, row.rubric_max)
    fit = await cache.current(services.sessionmaker, rubric, services.settings.reviewer_margin)
    return {
        "rubric": row.rubric_id,
        "computed_at": fit.computed_at.isoformat(),
        "reviewers": {
            name: fit.offset_of(name).model_dump(mode="json") for name, _ in row.panel["reviewers"]
        },
    }
