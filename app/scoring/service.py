"""`POST /v1/score`: plan the reviewers, reserve the session, fan out, store, calibrate."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.auth.keys import Principal
from app.comparisons.panels import PanelJudge, family_of, parse_family_prefixes
from app.comparisons.pool import JudgePool
from app.config import Settings
from app.db import utcnow
from app.errors import (
    DATABASE_ERRORS,
    IdempotencyInProgress,
    JudgesFailed,
    ServiceUnavailable,
    TooManyCalls,
    ValidationProblem,
)
from app.judges.registry import JudgeRegistry, RuntimeJudge
from app.judging.types import Criterion
from app.privacy import TextKeeper, keeper_for
from app.scoring import answers, idempotency, sweeper
from app.scoring.calibration import CalibrationCache
from app.scoring.fanout import ScoreFanOut
from app.scoring.models import Score, ScoreCall, ScoreResponse, ScoreSession, ScoreSessionTag
from app.scoring.panels import ScoringPlan, plan_scoring
from app.scoring.queries import StoredSession
from app.scoring.report import RubricRange
from app.scoring.rubrics import rubric_id, rubric_in, to_rubric
from app.scoring.schemas import RubricIn, ScoreRequest, ScoreSessionRead

_audit_rng = random.SystemRandom()


@dataclass(frozen=True)
class ScoreOutcome:
    """The answer, and whether it was replayed from an earlier request with the same key."""

    session: ScoreSessionRead
    replayed: bool


@dataclass(frozen=True)
class Services:
    """The process-wide resources a score session needs."""

    settings: Settings
    sessionmaker: async_sessionmaker[AsyncSession]
    registry: JudgeRegistry
    pool: JudgePool
    calibrations: CalibrationCache
    # The process's keeper, made in the lifespan under the instance's stored salt.
    text_keeper: TextKeeper | None = None

    @property
    def keeper(self) -> TextKeeper:
        """What is stored of texts (privacy mode keeps only HMACs)."""
        return keeper_for(self.settings, self.text_keeper)


def timeout_of(request: ScoreRequest, settings: Settings) -> float:
    """The request's deadline in seconds: its own, capped by the setting."""
    if request.timeout_s is not None and request.timeout_s > settings.compare_timeout_s:
        raise ValidationProblem(f"/timeout_s: at most {settings.compare_timeout_s} seconds")
    return request.timeout_s or settings.compare_timeout_s


@dataclass(frozen=True)
class Prepared:
    """A request that passed every check: who scores what, on which rubric, by when."""

    rubric: RubricIn
    families: list[str | None]
    plan: ScoringPlan
    judges: dict[str, RuntimeJudge]
    timeout_s: float


async def score(
    request: ScoreRequest, principal: Principal, idempotency_key: str | None, services: Services
) -> ScoreOutcome:
    """Run one score session end to end; every call is stored as it completes."""
    idempotency_key = idempotency.stored_key(idempotency_key, services.keeper)
    digest = idempotency.request_hash(request)
    if idempotency_key:
        replay = await idempotency.find_replay(
            services.sessionmaker,
            principal.key_id,
            idempotency_key,
            services.keeper.token(digest),
            services.settings.sweep_grace_s,
        )
        if replay is not None:
            return ScoreOutcome(replay, replayed=True)
    prepared = await prepare(request, services)
    stored = await reserve(request, principal, idempotency_key, digest, prepared, services)
    try:
        calls, scores, unsaved = await fan_out(request, digest, prepared, stored, services)
    except asyncio.CancelledError:
        # Shutdown cancelled the fan-out: keep what was stored and close the session.
        await asyncio.shield(sweeper.mark_interrupted(stored.session.id, services.sessionmaker))
        raise
    done = StoredSession(stored.session, stored.responses, calls, scores, stored.tags)
    read = await finish(done, unsaved, services)
    if read.status == "failed":
        raise JudgesFailed(
            "no reviewer produced scores; the calls are stored",
            extra={"score_session_id": read.id},
        )
    return ScoreOutcome(read, replayed=False)


async def prepare(request: ScoreRequest, services: Services) -> Prepared:
    """Every check that can fail before anything is stored or any judge is paid."""
    settings = services.settings
    names = services.registry.panel_or_default(request.judges)
    if len(names) > settings.max_panel:
        raise TooManyCalls(f"at most {settings.max_panel} judges per request; use /v1/batches")
    prepared = await plan_session(request, names, services)
    reviewers = len(prepared.plan.reviewers)
    if reviewers > settings.max_sync_calls:
        raise TooManyCalls(
            f"{reviewers} planned judge calls exceed {settings.max_sync_calls}; "
            "use /v1/batches for larger jobs"
        )
    services.pool.admit(reviewers)
    return prepared


async def plan_session(request: ScoreRequest, names: list[str], services: Services) -> Prepared:
    """The request's checks and reviewer plan, without the synchronous size limits (a batch
    item runs in the background, where larger panels are what batches are for)."""
    settings = services.settings
    timeout_s = timeout_of(request, settings)
    prefixes = parse_family_prefixes(settings.family_prefixes)
    families = [family_of(r.model, r.family, prefixes) for r in request.responses]
    plan, judges = await plan_reviewers(request, names, families, services)
    check_call_sizes(request, plan, judges)
    return Prepared(rubric_in(request), families, plan, judges, timeout_s)


async def fan_out(
    request: ScoreRequest,
    digest: str,
    prepared: Prepared,
    stored: StoredSession,
    services: Services,
) -> tuple[list[ScoreCall], list[Score], list[ScoreCall]]:
    """Every reviewer's call, stored as it completes: (calls, scores, calls not stored)."""
    fanout = new_fanout(digest, services)
    calls, scores = await fanout.run(
        stored.session,
        prepared.plan,
        prepared.judges,
        request,
        to_rubric(prepared.rubric),
        to_criteria(request),
        time.monotonic() + prepared.timeout_s,
    )
    return calls, scores, fanout.unsaved


def new_fanout(
    digest: str, services: Services, kind: type[ScoreFanOut] = ScoreFanOut
) -> ScoreFanOut:
    """A fan-out on the shared pool; seeded draws per request when `draw_seed` is set."""
    settings = services.settings
    seed = f"{settings.draw_seed}:{digest}" if settings.draw_seed is not None else None
    return kind(
        services.pool,
        settings.max_request_concurrency,
        services.sessionmaker,
        services.keeper,
        draw_seed=seed,
    )


def to_criteria(request: ScoreRequest) -> str | tuple[Criterion, ...] | None:
    """Criteria as the judging layer takes them."""
    if isinstance(request.criteria, list):
        return tuple(Criterion(c.name, c.weight, c.description) for c in request.criteria)
    return request.criteria


async def plan_reviewers(
    request: ScoreRequest, names: list[str], families: list[str | None], services: Services
) -> tuple[ScoringPlan, dict[str, RuntimeJudge]]:
    """Resolve the panel (422 for an unknown judge) and plan who scores which response."""
    settings, registry = services.settings, services.registry
    prefixes = parse_family_prefixes(settings.family_prefixes)
    async with services.sessionmaker() as session:
        panel = await registry.resolve(session, names)
        defaults = await registry.resolve_known(session, registry.default_panel)
    family = {j.name: family_of(j.model, j.family, prefixes) for j in [*panel, *defaults]}
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


async def reserve(
    request: ScoreRequest,
    principal: Principal,
    idempotency_key: str | None,
    digest: str,
    prepared: Prepared,
    services: Services,
) -> StoredSession:
    """Insert the session as `running` (reserving the key) before any judge is paid."""
    stored = session_rows(
        request, str(uuid.uuid4()), principal.key_id, idempotency_key, digest, prepared, services
    )
    try:
        await insert_session(stored, services.sessionmaker)
    except IntegrityError as exc:  # a concurrent request holds the same key
        raise IdempotencyInProgress(
            "a request with this Idempotency-Key is running", headers={"Retry-After": "1"}
        ) from exc
    return stored


def session_rows(
    request: ScoreRequest,
    session_id: str,
    api_key_id: str,
    idempotency_key: str | None,
    digest: str,
    prepared: Prepared,
    services: Services,
) -> StoredSession:
    """The session (`running`), its responses and tags as rows, not stored yet."""
    settings, keeper = services.settings, services.keeper
    rubric, plan, judges = prepared.rubric, prepared.plan, prepared.judges
    now = utcnow()
    assert rubric.min is not None
    assert rubric.max is not None
    row = ScoreSession(
        id=session_id,
        created_at=now,
        deadline_at=now + timedelta(seconds=prepared.timeout_s),
        status="running",
        api_key_id=api_key_id,
        idempotency_key=idempotency_key,
        # Its HMAC in privacy mode: a plain hash would confirm a guessed request.
        request_hash=keeper.token(digest),
        prompt=keeper.text(request.prompt),
        prompt_hmac=keeper.hmac(request.prompt),
        criteria=keeper.texts_in(request.model_dump(mode="json")["criteria"]),
        rubric=keeper.texts_in(rubric.model_dump(mode="json")),
        rubric_id=rubric_id(rubric),
        rubric_min=rubric.min,
        rubric_max=rubric.max,
        length_target=request.length_target if request.length_normalize else None,
        self_preference=request.self_preference or settings.self_preference,
        self_preference_risk=plan.self_preference_risk,
        timeout_s=prepared.timeout_s,
        simulated=any(j.simulated for j in judges.values()),
        panel={
            "reviewers": [[name, judges[name].version] for name in plan.reviewers],
            "plan": plan.to_json(),
        },
    )
    responses = [
        ScoreResponse(
            session_id=row.id,
            response_index=i,
            text=keeper.text(r.text),
            text_hmac=keeper.hmac(r.text),
            model=r.model,
            family=r.family,
            resolved_family=prepared.families[i],
            length=len(r.text),
        )
        for i, r in enumerate(request.responses)
    ]
    return StoredSession(row, responses, [], [], keeper.tags(request.tags))


async def insert_session(
    stored: StoredSession, sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """Store a new session with its responses and tags (IntegrityError: the id or key is taken)."""
    row = stored.session
    tags = [ScoreSessionTag(session_id=row.id, key=k, value=v) for k, v in stored.tags.items()]
    async with sessionmaker() as session:
        session.add(row)
        await session.flush()  # the session row first: the others reference it
        session.add_all([*stored.responses, *tags])
        await session.commit()


async def finish(
    stored: StoredSession, unsaved: list[ScoreCall], services: Services
) -> ScoreSessionRead:
    """Set the status and the calibration snapshot last, then answer from the stored rows."""
    row = stored.session
    scored = [c for c in stored.calls if c.scores is not None]
    status = (
        "failed" if not scored else "complete" if len(scored) == len(stored.calls) else "partial"
    )
    values: dict[str, Any] = {"status": status, "completed_at": utcnow()}
    if status == "failed":
        values["idempotency_key"] = None  # a failed outcome releases the key
    stored_ok = not unsaved
    try:
        if status != "failed" and stored_ok:
            values["calibration"] = await calibration_snapshot(stored, services)
        async with services.sessionmaker() as session:
            await session.execute(
                update(ScoreSession).where(ScoreSession.id == row.id).values(**values)
            )
            await session.commit()
    except DATABASE_ERRORS:
        stored_ok = False
    for key, value in values.items():
        setattr(row, key, value)
    read = answers.to_read(stored)
    if not stored_ok:
        raise ServiceUnavailable(
            "the reviewers answered but the database is unreachable; the result is not stored",
            headers={"Retry-After": "5"},
            extra={"not_persisted": True, "result": read.model_dump(mode="json")},
        )
    return read


async def calibration_snapshot(stored: StoredSession, services: Services) -> dict[str, Any]:
    """The offsets of the rubric's last refit for the session's reviewers (refitting if due)."""
    row, cache = stored.session, services.calibrations
    cache.note_scores(row.rubric_id, len(stored.scores))
    rubric = RubricRange(row.rubric_id, row.rubric_min, row.rubric_max)
    fit = await cache.current(services.sessionmaker, rubric, services.settings.reviewer_margin)
    return {
        "rubric": row.rubric_id,
        "computed_at": fit.computed_at.isoformat(),
        "reviewers": {
            name: fit.offset_of(name).model_dump(mode="json") for name, _ in row.panel["reviewers"]
        },
    }
