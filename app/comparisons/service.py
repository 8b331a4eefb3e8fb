"""`POST /v1/compare`: plan the panel, reserve the comparison, fan out, store, decide."""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
import time
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import logs, metrics
from app.auth.keys import Principal
from app.comparisons import queries, sweeper
from app.comparisons.fanout import FanOut, PairTexts, outcome_of, winner_of
from app.comparisons.models import Comparison, ComparisonTag, JudgeCall
from app.comparisons.panels import (
    JudgeResult,
    PanelJudge,
    PanelPlan,
    Role,
    family_of,
    panel_verdict,
    parse_family_prefixes,
    plan_panel,
)
from app.comparisons.pool import JudgePool
from app.comparisons.protocols import (
    Order,
    Protocol,
    judge_verdict,
    planned_calls,
)
from app.comparisons.schemas import CompareRequest, ComparisonRead
from app.comparisons.writes import GroupCommit, Write, stage_call
from app.config import Settings
from app.db import utcnow
from app.errors import (
    DATABASE_ERRORS,
    IdempotencyConflict,
    IdempotencyInProgress,
    JudgesFailed,
    ServiceUnavailable,
    TooManyCalls,
    ValidationProblem,
)
from app.judges.registry import JudgeRegistry, RuntimeJudge
from app.judging.types import Criterion, PairCallResult
from app.privacy import KEEP_TEXTS, TextKeeper, keeper_for

IDEMPOTENCY_TTL = timedelta(hours=24)
_audit_rng = random.SystemRandom()


@dataclass(frozen=True)
class CompareOutcome:
    """The answer, and whether it was replayed from an earlier request with the same key."""

    comparison: ComparisonRead
    replayed: bool


@dataclass(frozen=True)
class Services:
    """The process-wide resources a comparison needs."""

    settings: Settings
    sessionmaker: async_sessionmaker[AsyncSession]
    registry: JudgeRegistry
    pool: JudgePool
    # Group commit of calls and verdicts; without it each is its own transaction.
    writes: GroupCommit | None = None
    # The process's keeper, made in the lifespan under the instance's stored salt.
    text_keeper: TextKeeper | None = None

    @property
    def keeper(self) -> TextKeeper:
        """What is stored of texts (privacy mode keeps only HMACs)."""
        return keeper_for(self.settings, self.text_keeper)


def request_hash(request: CompareRequest) -> str:
    """SHA-256 of the canonical JSON of the validated request."""
    canonical = json.dumps(request.model_dump(mode="json"), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def to_protocol(request: CompareRequest) -> Protocol:
    """The protocol the request asks for, with the spec's defaults."""
    spec = request.protocol
    return Protocol(kind=spec.kind, pairs=spec.pairs or 2, max_pairs=spec.max_pairs or 3)


def to_criteria(request: CompareRequest) -> str | tuple[Criterion, ...] | None:
    """Criteria as the judging layer takes them."""
    if isinstance(request.criteria, list):
        return tuple(Criterion(c.name, c.weight, c.description) for c in request.criteria)
    return request.criteria


def timeout_of(request: CompareRequest, settings: Settings) -> float:
    """The request's deadline in seconds: its own, capped by the setting."""
    if request.timeout_s is not None and request.timeout_s > settings.compare_timeout_s:
        raise ValidationProblem(f"/timeout_s: at most {settings.compare_timeout_s} seconds")
    return request.timeout_s or settings.compare_timeout_s


async def compare(
    request: CompareRequest, principal: Principal, idempotency_key: str | None, services: Services
) -> CompareOutcome:
    """Run one comparison end to end; every call is stored as it completes."""
    idempotency_key = stored_key(idempotency_key, services.keeper)
    settings = services.settings
    digest = request_hash(request)
    if idempotency_key:
        stored_digest = services.keeper.token(digest)
        replay = await find_replay(
            services.sessionmaker, principal.key_id, idempotency_key, stored_digest
        )
        if replay is not None:
            return CompareOutcome(replay, replayed=True)
    names = services.registry.panel_or_default(request.judges)
    if len(names) > settings.max_panel:
        raise TooManyCalls(f"at most {settings.max_panel} judges per request; use /v1/batches")
    protocol, timeout_s = to_protocol(request), timeout_of(request, settings)
    async with services.sessionmaker() as session:
        plan, judges = await plan_judges(request, names, services, session)
        planned = planned_calls(protocol) * len(judges)
        if planned > settings.max_sync_calls:
            raise TooManyCalls(
                f"{planned} planned judge calls exceed {settings.max_sync_calls}; "
                "use /v1/batches for larger jobs"
            )
        services.pool.admit(planned)
        policy = request.self_preference or settings.self_preference
        values = comparison_values(
            request,
            principal,
            idempotency_key,
            digest,
            policy,
            plan,
            judges,
            protocol,
            timeout_s,
            services,
        )
        if idempotency_key:
            # The key is taken before any judge is paid; planning and reserving, one commit.
            await insert_comparison(values, services.keeper.tags(request.tags), session)
    comparison = Comparison(**values)
    # Without a key there is nothing to reserve: the row is written while the judges think
    # (one transaction off the answer's path), and each call's write waits for it.
    reserved = (
        None
        if idempotency_key
        else asyncio.create_task(
            insert_alone(values, services.keeper.tags(request.tags), services.sessionmaker)
        )
    )
    logs.bind_comparison(comparison.id, [judge.name for judge, _ in judges])
    texts = PairTexts(
        request.prompt,
        request.response_a.text,
        request.response_b.text,
        to_criteria(request),
        request.reference,
    )
    writer = CallWriter(
        comparison, services.sessionmaker, services.keeper, services.writes, reserved
    )
    fanout = FanOut(
        services.pool,
        settings.max_request_concurrency,
        texts,
        protocol,
        time.monotonic() + timeout_s,
        writer,
        draw_seed=f"{settings.draw_seed}:{digest}" if settings.draw_seed is not None else None,
    )
    try:
        calls = await fanout.run(judges)
    except asyncio.CancelledError:
        # Shutdown cancelled the fan-out: keep what was stored and close the comparison.
        await asyncio.shield(close_interrupted(writer))
        raise
    read = await finish(comparison, protocol, judges, calls, request.tags, writer)
    if read.status == "failed":
        raise JudgesFailed(
            "no judge produced a result; the calls are stored", extra={"comparison_id": read.id}
        )
    return CompareOutcome(read, replayed=False)


def stored_key(idempotency_key: str | None, keeper: TextKeeper) -> str | None:
    """The Idempotency-Key as stored and looked up (its HMAC in privacy mode); an empty header
    is no key, not the key ""."""
    return keeper.token(idempotency_key) if idempotency_key else None


async def find_replay(
    sessionmaker: async_sessionmaker[AsyncSession], key_id: str, key: str, digest: str
) -> ComparisonRead | None:
    """The stored answer for a repeated Idempotency-Key (as stored), or None to run afresh."""
    async with sessionmaker() as session:
        existing = await session.scalar(
            select(Comparison).where(
                Comparison.api_key_id == key_id, Comparison.idempotency_key == key
            )
        )
        if existing is None:
            return None
        if existing.created_at < utcnow() - IDEMPOTENCY_TTL:
            existing.idempotency_key = None  # expired: release the key
            await session.commit()
            return None
        if existing.status == "running":
            left = max(1, int((existing.deadline_at - utcnow()).total_seconds()) + 1)
            raise IdempotencyInProgress(
                "the first request with this key is still running",
                headers={"Retry-After": str(left)},
            )
        if existing.request_hash != digest:
            raise IdempotencyConflict("this Idempotency-Key was used with a different body")
        return await queries.read_comparison(session, existing)


async def plan_judges(
    request: CompareRequest,
    names: list[str],
    services: Services,
    session: AsyncSession | None = None,
) -> tuple[PanelPlan, list[tuple[RuntimeJudge, Role]]]:
    """Resolve the panel and apply the self-preference policy: (plan, [(judge, role)])."""
    if session is None:
        async with services.sessionmaker() as own:
            return await plan_judges(request, names, services, own)
    settings, registry = services.settings, services.registry
    prefixes = parse_family_prefixes(settings.family_prefixes)
    panel, defaults = await registry.resolve_panel(session, names)
    family = {j.name: family_of(j.model, j.family, prefixes) for j in [*panel, *defaults]}
    plan = plan_panel(
        [PanelJudge(j.name, family[j.name]) for j in panel],
        family_a=family_of(request.response_a.model, request.response_a.family, prefixes),
        family_b=family_of(request.response_b.model, request.response_b.family, prefixes),
        policy=request.self_preference or settings.self_preference,
        default_panel=[PanelJudge(j.name, family[j.name]) for j in defaults],
        audit_draw=lambda _name: _audit_rng.random(),
        audit_rate=settings.self_preference_audit_rate,
    )
    by_name = {j.name: j for j in [*panel, *defaults]}
    voters: list[tuple[RuntimeJudge, Role]] = [(by_name[n], "voter") for n in plan.voters]
    return plan, voters + [(by_name[n], "audit") for n in plan.audits]


def comparison_values(
    request: CompareRequest,
    principal: Principal,
    idempotency_key: str | None,
    digest: str,
    policy: str,
    plan: PanelPlan,
    judges: list[tuple[RuntimeJudge, Role]],
    protocol: Protocol,
    timeout_s: float,
    services: Services,
) -> dict[str, Any]:
    """The comparison's row as it is inserted: `running`, no verdict yet."""
    a, b = request.response_a, request.response_b
    keeper, prefixes = services.keeper, parse_family_prefixes(services.settings.family_prefixes)
    now = utcnow()
    values: dict[str, Any] = {
        "id": str(uuid.uuid4()),
        "created_at": now,
        "deadline_at": now + timedelta(seconds=timeout_s),
        "status": "running",
        "api_key_id": principal.key_id,
        "idempotency_key": idempotency_key,
        # Its HMAC in privacy mode: a plain hash would confirm a guessed request.
        "request_hash": keeper.token(digest),
        "prompt": keeper.text(request.prompt),
        "response_a": keeper.text(a.text),
        "response_b": keeper.text(b.text),
        "reference": keeper.text(request.reference),
        "prompt_hmac": keeper.hmac(request.prompt),
        "response_a_hmac": keeper.hmac(a.text),
        "response_b_hmac": keeper.hmac(b.text),
        "len_a": len(a.text),
        "len_b": len(b.text),
        "placebo": a.text == b.text,
        "model_a": a.model,
        "model_b": b.model,
        "family_a": family_of(a.model, a.family, prefixes),
        "family_b": family_of(b.model, b.family, prefixes),
        "criteria": keeper.texts_in(request.model_dump(mode="json")["criteria"]),
        "protocol": protocol.kind,
        "protocol_params": request.protocol.model_dump(exclude_none=True),
        "planned_rounds": planned_calls(protocol),
        "self_preference": policy,
        "timeout_s": timeout_s,
        "simulated": any(j.simulated for j, _ in judges),
        "self_preference_risk": plan.self_preference_risk,
        "panel": {
            "judges": [[j.name, j.version, role] for j, role in judges],
            "excluded": [list(e) for e in plan.excluded],
            "conflicted": list(plan.conflicted),
        },
    }
    return values


async def insert_comparison(
    values: dict[str, Any], tags: dict[str, str], session: AsyncSession
) -> None:
    """Insert and commit the comparison and its tags (409 when its key is taken meanwhile)."""
    # Core INSERTs: the ORM's unit of work for one new row of 30 columns cost more CPU than the
    # statement. The answer is built from a transient `Comparison` holding the same values.
    connection = await session.connection()
    rows = [{"comparison_id": values["id"], "key": k, "value": v} for k, v in tags.items()]
    try:
        await connection.execute(insert(Comparison), [values])
        if rows:
            await connection.execute(insert(ComparisonTag), rows)
        await session.commit()
    except IntegrityError as exc:  # a concurrent request holds the same key
        raise IdempotencyInProgress(
            "a request with this Idempotency-Key is running", headers={"Retry-After": "1"}
        ) from exc


async def insert_alone(
    values: dict[str, Any], tags: dict[str, str], sessionmaker: async_sessionmaker[AsyncSession]
) -> None:
    """`insert_comparison` in a session of its own."""
    async with sessionmaker() as session:
        await insert_comparison(values, tags, session)


class CallWriter:
    """Stores each call as it completes (group-committed when `writes` is given); keeps what it
    could not."""

    def __init__(
        self,
        comparison: Comparison,
        sessionmaker: async_sessionmaker[AsyncSession],
        keeper: TextKeeper = KEEP_TEXTS,
        writes: GroupCommit | None = None,
        reserved: asyncio.Task[None] | None = None,
    ) -> None:
        self.comparison = comparison
        self.sessionmaker = sessionmaker
        self.keeper = keeper
        self.writes = writes
        self.reserved = reserved  # the comparison's insert, when it runs beside the judges
        self.unsaved: list[JudgeCall] = []

    async def comparison_stored(self) -> bool:
        """Whether the comparison's row is in (the calls refer to it); waits for its insert."""
        if self.reserved is None:
            return True
        try:
            await asyncio.shield(self.reserved)
        except DATABASE_ERRORS:
            return False
        return True

    async def __call__(
        self,
        judge: RuntimeJudge,
        role: Role,
        round_index: int,
        order: Order,
        result: PairCallResult,
    ) -> JudgeCall:
        values = call_values(self.comparison, judge, role, round_index, order, result, self.keeper)
        row = JudgeCall(**values)
        if not await self.comparison_stored() or not await self._store(values):
            # The judge answered but the database did not: the answer still carries the call.
            self.unsaved.append(row)
        metrics.record_call(self.comparison, row)
        return row

    async def _store(self, values: dict[str, Any]) -> bool:
        async def add(session: AsyncSession) -> None:
            stage_call(session, values)

        try:
            await commit(add, self.sessionmaker, self.writes)
        except DATABASE_ERRORS:
            return False
        return True


def call_row(
    comparison: Comparison,
    judge: RuntimeJudge,
    role: Role,
    round_index: int,
    order: Order,
    result: PairCallResult,
    keeper: TextKeeper = KEEP_TEXTS,
) -> JudgeCall:
    """The stored form of one call (JUDGING.md "What is recorded")."""
    return JudgeCall(**call_values(comparison, judge, role, round_index, order, result, keeper))


def call_values(
    comparison: Comparison,
    judge: RuntimeJudge,
    role: Role,
    round_index: int,
    order: Order,
    result: PairCallResult,
    keeper: TextKeeper = KEEP_TEXTS,
) -> dict[str, Any]:
    """`call_row`'s columns, as `stage_call` inserts them."""
    first, second = result.first_label, result.second_label
    label_a, label_b = (first, second) if order == "AB" else (second, first)
    second_of_pair = result.label_pair.partition("/")[2]
    return {
        "comparison_id": comparison.id,
        "judge_name": judge.name,
        "judge_version": judge.version,
        "judge_config_hash": judge.config_hash,
        "judge_family": judge.family,
        "role": role,
        "protocol": comparison.protocol,
        "round": round_index,
        "design": round_index < 2 if comparison.protocol != "single" else round_index == 0,
        "display_order": order,
        "label_pair": result.label_pair,
        "label_a": label_a,
        "label_b": label_b,
        "first_slot_second_label": bool(first) and first == second_of_pair,
        "template_hash": result.template_hash,
        "nonces": list(result.nonces),
        "anonymized_replacements": result.anonymized_replacements,
        "provider_model": result.provider_model,
        "raw_output": keeper.text(result.raw_output),
        "raw_output_hmac": keeper.hmac(result.raw_output),
        "pick": result.pick,
        "mapped_winner": winner_of(result.pick, order),
        "confidence": result.confidence,
        "confidence_source": result.confidence_source,
        "latency_ms": result.latency_ms,
        "started_at": result.started_at,
        "finished_at": result.finished_at,
        "tokens_in": result.tokens_in,
        "tokens_out": result.tokens_out,
        "cost_usd": result.cost_usd,
        "retries": result.retries,
        "error_kind": result.error_kind,
        "error": keeper.text(result.error),  # a provider's text may quote the request
    }


async def finish(
    comparison: Comparison,
    protocol: Protocol,
    judges: list[tuple[RuntimeJudge, Role]],
    calls: dict[str, list[JudgeCall]],
    tags: dict[str, str],
    writer: CallWriter,
) -> ComparisonRead:
    """Decide per judge and for the panel, and write the verdict and status last."""
    values = verdict_values(protocol, judges, calls)
    metrics.record_comparison(comparison, values["status"], calls)
    for key, value in values.items():
        setattr(comparison, key, value)
    read = queries.to_read(comparison, [c for name in calls for c in calls[name]], tags)
    stored = await writer.comparison_stored() and await write_verdict(
        comparison.id, values, writer.sessionmaker, writer.writes
    )
    if not stored or writer.unsaved:
        raise ServiceUnavailable(
            "the judges answered but the database is unreachable; the result is not stored",
            headers={"Retry-After": "5"},
            extra={"not_persisted": True, "result": read.model_dump(mode="json")},
        )
    return read


async def commit(
    write: Write,
    sessionmaker: async_sessionmaker[AsyncSession],
    writes: GroupCommit | None = None,
) -> None:
    """Commit one write: group-committed with others, or in a transaction of its own."""
    if writes is not None:
        await writes.run(write)
        return
    async with sessionmaker() as session:
        await write(session)
        await session.commit()


async def write_verdict(
    comparison_id: str,
    values: dict[str, Any],
    sessionmaker: async_sessionmaker[AsyncSession],
    writes: GroupCommit | None = None,
) -> bool:
    """Store the verdict; False when the database is unreachable."""

    async def update_comparison(session: AsyncSession) -> None:
        # A Core UPDATE on the session's connection: the session holds no Comparison to keep in
        # step, so the ORM's autoflush and bulk-update bookkeeping would be pure cost.
        connection = await session.connection()
        await connection.execute(
            update(Comparison).where(Comparison.id == comparison_id).values(**values)
        )

    try:
        await commit(update_comparison, sessionmaker, writes)
    except DATABASE_ERRORS:
        return False
    return True


def verdict_values(
    protocol: Protocol, judges: list[tuple[RuntimeJudge, Role]], calls: dict[str, list[JudgeCall]]
) -> dict[str, Any]:
    """The comparison's final columns: status, panel verdict, per-judge results."""
    results = {
        judge.name: judge_result(protocol, judge.name, role, calls[judge.name])
        for judge, role in judges
    }
    verdict = panel_verdict(list(results.values()))
    complete = all(r.winner is not None for r in results.values())
    status = "failed" if verdict is None else "complete" if complete else "partial"
    values: dict[str, Any] = {
        "status": status,
        "completed_at": utcnow(),
        "winner": verdict.winner if verdict else None,
        "confidence": verdict.confidence if verdict else None,
        "agreement": verdict.agreement if verdict else None,
        "position_consistent": verdict.position_consistent if verdict else None,
        "bias_detected": verdict.bias_detected if verdict else None,
        "judge_results": {
            name: queries.result_json(
                protocol, calls[name], judge_verdict(protocol, [outcome_of(c) for c in calls[name]])
            )
            for name in results
        },
    }
    if status == "failed":
        values["idempotency_key"] = None  # a failed outcome releases the key
    return values


async def close_interrupted(writer: CallWriter) -> None:
    """`mark_interrupted` for the comparison of `writer`, once (and if) its row is in."""
    if await writer.comparison_stored():
        await mark_interrupted(writer.comparison.id, writer.sessionmaker, writer.writes)


async def mark_interrupted(
    comparison_id: str,
    sessionmaker: async_sessionmaker[AsyncSession],
    writes: GroupCommit | None = None,
) -> None:
    """Close a comparison whose fan-out was cancelled; the sweeper's rule, applied at once."""
    if writes is not None:
        await writes.wait_idle()  # calls already handed over are stored, then counted
    async with sessionmaker() as session:
        await sweeper.close_interrupted(session, Comparison.id == comparison_id)
        await session.commit()


def judge_result(protocol: Protocol, name: str, role: Role, calls: list[JudgeCall]) -> JudgeResult:
    """One judge's verdict as the panel sees it."""
    verdict = judge_verdict(protocol, [outcome_of(c) for c in calls])
    if verdict is None:
        return JudgeResult(name=name, winner=None, role=role)
    return JudgeResult(
        name=name,
        winner=verdict.winner,
        confidence=verdict.confidence,
        position_consistent=verdict.position_consistent,
        bias_detected=verdict.bias_detected,
        role=role,
    )
