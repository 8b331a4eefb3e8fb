"""`POST /v1/compare` as a kind of job: the kernel (`app.jobs`) runs the lifecycle; this module
plans the panel, names the comparison's columns, runs each judge's protocol over the calls already
stored, and decides the verdict."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any

import structlog
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app import logs, metrics
from app.comparisons import queries
from app.comparisons.fanout import ClientOf, FanOut, PairTexts, outcome_of, winner_of
from app.comparisons.panels import panel_verdict, stored_result
from app.comparisons.protocols import Order, Protocol, judge_verdict, planned_calls
from app.comparisons.schemas import CompareRequest, ComparisonRead, ProtocolIn
from app.db import Base
from app.deps import from_state
from app.jobs.callcache import caching_clients
from app.jobs.closing import JobTables
from app.jobs.kind import Job, Run, Services
from app.jobs.models import JobStatus, record_values
from app.jobs.panels import (
    PanelJudge,
    PanelPlan,
    Role,
    family_of,
    parse_family_prefixes,
    plan_panel,
)
from app.jobs.writes import StagedCall
from app.judges.registry import RuntimeJudge
from app.judging.types import Criterion, PairCallResult
from app.ledger import experiments, fold
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from app.privacy import KEEP_TEXTS, TextKeeper

_audit_rng = random.SystemRandom()
log = structlog.get_logger()
Judges = list[tuple[RuntimeJudge, Role]]
StoredCalls = dict[str, list[JudgeCall]]


@dataclass(frozen=True)
class ComparisonPlan:
    """Who judges (voters, then audits) and how: the protocol of every judge."""

    protocol: Protocol
    panel: PanelPlan | None  # None for a reopened comparison: its row holds the stored panel
    judges: Judges


def protocol_of(spec: ProtocolIn) -> Protocol:
    """A protocol as asked for (or stored), with the spec's defaults."""
    return Protocol(kind=spec.kind, pairs=spec.pairs or 2, max_pairs=spec.max_pairs or 3)


def to_criteria(request: CompareRequest) -> str | tuple[Criterion, ...] | None:
    """Criteria as the judging layer takes them."""
    if isinstance(request.criteria, list):
        return tuple(Criterion(c.name, c.weight, c.description) for c in request.criteria)
    return request.criteria


async def conclude_interrupted(session: AsyncSession, comparison_ids: Sequence[str]) -> None:
    """The verdict of interrupted comparisons from the judges that finished (the kernel keeps
    their status `partial`): a judge whose pair agreed keeps its winner."""
    comparisons = await session.scalars(select(Comparison).where(Comparison.id.in_(comparison_ids)))
    calls: dict[str, StoredCalls] = defaultdict(lambda: defaultdict(list))
    for call in await session.scalars(
        select(JudgeCall).where(JudgeCall.comparison_id.in_(comparison_ids))
    ):
        calls[call.comparison_id][call.judge_name].append(call)
    for row in list(comparisons):
        panel = [(name, role) for name, _version, role in row.panel["judges"]]
        protocol = protocol_of(
            ProtocolIn.model_validate({"kind": row.protocol, **row.protocol_params})
        )
        try:
            values = verdict_values(protocol, panel, calls[row.id])
        except ValueError:
            # Calls with a gap (a round lost to a database blip, a later one stored): no verdict
            # to keep, and one such row must not stop the sweep closing every other job.
            log.warning("interrupted_without_verdict", comparison_id=row.id)
            continue
        del values["status"]  # interrupted: the kernel's rule decides it
        await session.execute(update(Comparison).where(Comparison.id == row.id).values(**values))


class PairCalls:
    """Pair calls in the write path: plain INSERTs, with nothing hanging off them. The folder
    folds a comparison's calls into the report's rollups once it stopped running
    (`app.ledger.folder`)."""

    table = JudgeCall
    children = None


# A comparison as the kernel runs it.
ComparisonJob = Job[CompareRequest, ComparisonPlan, Comparison]


class CompareKind:
    """A comparison: one pairwise protocol per judge over two responses (a `Kind[CompareRequest,
    ComparisonPlan, Comparison, StoredCalls, StoredCalls, ComparisonRead]`)."""

    tables = JobTables.of(
        Comparison,
        JudgeCall,
        ComparisonTag,
        answered=JudgeCall.pick.is_not(None),
        conclude_partial=conclude_interrupted,
    )
    sink = PairCalls()
    noun = "comparison"
    failed_detail = "no judge produced a result; the calls are stored"
    id_field = "comparison_id"

    async def plan(
        self, request: CompareRequest, names: list[str], services: Services, session: AsyncSession
    ) -> ComparisonPlan:
        if request.experiment is not None:
            a, b = request.response_a.model, request.response_b.model
            await experiments.check_member(session, request.experiment, a, b)
        panel, judges = await plan_judges(request, names, services, session)
        return ComparisonPlan(protocol_of(request.protocol), panel, judges)

    def planned_calls(self, plan: ComparisonPlan) -> int:
        return planned_calls(plan.protocol) * len(plan.judges)

    def row_values(
        self, request: CompareRequest, plan: ComparisonPlan, services: Services
    ) -> dict[str, Any]:
        return comparison_values(request, plan, services)

    def dependents(
        self, request: CompareRequest, job_id: str, plan: ComparisonPlan, services: Services
    ) -> dict[type[Base], list[dict[str, Any]]]:
        return {}

    async def reopen(
        self, session: AsyncSession, row: Comparison, request: CompareRequest, services: Services
    ) -> tuple[ComparisonPlan, StoredCalls]:
        # It runs again: out of the rollups until it stops again and is folded anew.
        await fold.unfold(session, Comparison.id == row.id)
        names = [name for name, _version, _role in row.panel["judges"]]
        resolved = await services.registry.resolve(session, names)
        roles = {name: role for name, _version, role in row.panel["judges"]}
        judges: Judges = [(judge, roles[judge.name]) for judge in resolved]
        # The stored panel, not a new plan: the audit draw must not change between deliveries.
        return ComparisonPlan(protocol_of(request.protocol), None, judges), await stored_calls(
            session, row.id
        )

    async def run(self, job: ComparisonJob, stored: StoredCalls | None, run: Run) -> StoredCalls:
        request = job.request
        logs.bind_comparison(job.row.id, [judge.name for judge, _ in job.plan.judges])
        texts = PairTexts(
            request.prompt,
            request.response_a.text,
            request.response_b.text,
            to_criteria(request),
            request.reference,
        )
        persist = PairPersist(job.row, run)
        fanout = FanOut(run.slots, texts, job.plan.protocol, persist, clients_of(job.row, run))
        return await fanout.run(job.plan.judges, stored)

    def verdict(self, job: ComparisonJob, calls: StoredCalls) -> dict[str, Any]:
        panel = [(judge.name, role) for judge, role in job.plan.judges]
        values = verdict_values(job.plan.protocol, panel, calls)
        metrics.record_comparison(job.row, values["status"], calls)
        return values

    async def snapshot(
        self, job: ComparisonJob, calls: StoredCalls, services: Services
    ) -> dict[str, Any]:
        return {}

    def answer(self, job: ComparisonJob, calls: StoredCalls) -> ComparisonRead:
        flat = [call for name in calls for call in calls[name]]
        return queries.to_read(job.row, flat, job.request.tags)

    async def read(self, session: AsyncSession, row: Comparison) -> ComparisonRead:
        return await queries.read_comparison(session, row)


# The process's comparison kind, made once in the lifespan like every kind.
CompareKindDep = Annotated[CompareKind, from_state("compare_kind")]


def clients_of(comparison: Comparison, run: Run) -> ClientOf:
    """The clients a comparison's calls go through: with the judge-call cache for judges that
    have it, except on drift canaries and card probes (origin `canary`), which measure the judge
    as it answers now."""
    if comparison.origin == "canary":
        return run.client_of
    return caching_clients(run, JudgeCall)


class PairPersist:
    """Stores each call of one comparison the moment it completes (`FanOut`'s `persist`)."""

    def __init__(self, comparison: Comparison, run: Run) -> None:
        self.comparison = comparison
        self.run = run

    async def __call__(
        self,
        judge: RuntimeJudge,
        role: Role,
        round_index: int,
        order: Order,
        result: PairCallResult,
    ) -> JudgeCall:
        values = call_values(
            self.comparison, judge, role, round_index, order, result, self.run.keeper
        )
        try:
            await self.run.writer.store(StagedCall(values))
        except IntegrityError:
            # Another delivery of the same batch item stored this round first: keep its call.
            kept = await kept_call(self.run, self.comparison.id, judge.name, round_index)
            if kept is None:
                raise
            return kept
        row = JudgeCall(**values)
        metrics.record_call(self.comparison, row)
        return row


async def kept_call(run: Run, comparison_id: str, judge: str, round_index: int) -> JudgeCall | None:
    """The call of (comparison, judge, round) another delivery stored, if any."""
    async with run.sessionmaker() as session:
        return await session.scalar(
            select(JudgeCall).where(
                JudgeCall.comparison_id == comparison_id,
                JudgeCall.judge_name == judge,
                JudgeCall.round == round_index,
            )
        )


async def stored_calls(session: AsyncSession, comparison_id: str) -> StoredCalls:
    """Calls an earlier delivery stored, by judge name."""
    by_judge: StoredCalls = defaultdict(list)
    for call in await session.scalars(
        select(JudgeCall).where(JudgeCall.comparison_id == comparison_id)
    ):
        by_judge[call.judge_name].append(call)
    return by_judge


async def plan_judges(
    request: CompareRequest, names: list[str], services: Services, session: AsyncSession
) -> tuple[PanelPlan, Judges]:
    """Resolve the panel and apply the self-preference policy: (plan, [(judge, role)])."""
    settings, registry = services.settings, services.registry
    prefixes = parse_family_prefixes(settings.family_prefixes)
    panel, defaults = await registry.resolve_panel(session, names)
    # The judge's family as its calls store it (`RuntimeJudge.family`), so the two cannot differ.
    plan = plan_panel(
        [PanelJudge(j.name, j.family) for j in panel],
        family_a=family_of(request.response_a.model, request.response_a.family, prefixes),
        family_b=family_of(request.response_b.model, request.response_b.family, prefixes),
        policy=request.self_preference or settings.self_preference,
        default_panel=[PanelJudge(j.name, j.family) for j in defaults],
        audit_draw=lambda _name: _audit_rng.random(),
        audit_rate=settings.self_preference_audit_rate,
    )
    by_name = {j.name: j for j in [*panel, *defaults]}
    voters: list[tuple[RuntimeJudge, Role]] = [(by_name[n], "voter") for n in plan.voters]
    return plan, voters + [(by_name[n], "audit") for n in plan.audits]


def comparison_values(
    request: CompareRequest, plan: ComparisonPlan, services: Services
) -> dict[str, Any]:
    """The comparison's own columns as it is inserted (the kernel adds the job's)."""
    a, b = request.response_a, request.response_b
    keeper, prefixes = services.keeper, parse_family_prefixes(services.settings.family_prefixes)
    assert plan.panel is not None
    return {
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
        "protocol": plan.protocol.kind,
        "protocol_params": request.protocol.model_dump(exclude_none=True),
        "planned_rounds": planned_calls(plan.protocol),
        "self_preference": request.self_preference or services.settings.self_preference,
        "simulated": any(j.simulated for j, _ in plan.judges),
        "self_preference_risk": plan.panel.self_preference_risk,
        "panel": {
            "judges": [[j.name, j.version, role] for j, role in plan.judges],
            "excluded": [list(e) for e in plan.panel.excluded],
            "conflicted": list(plan.panel.conflicted),
        },
    }


def call_values(
    comparison: Comparison,
    judge: RuntimeJudge,
    role: Role,
    round_index: int,
    order: Order,
    result: PairCallResult,
    keeper: TextKeeper = KEEP_TEXTS,
) -> dict[str, Any]:
    """The stored form of one call (JUDGING.md "What is recorded"), as the write path inserts
    it."""
    first, second = result.first_label, result.second_label
    label_a, label_b = (first, second) if order == "AB" else (second, first)
    second_of_pair = result.label_pair.partition("/")[2]
    return {
        **record_values(judge, result, keeper),
        "comparison_id": comparison.id,
        "role": role,
        "protocol": comparison.protocol,
        "round": round_index,
        "design": round_index < 2 if comparison.protocol != "single" else round_index == 0,
        "display_order": order,
        "label_pair": result.label_pair,
        "label_a": label_a,
        "label_b": label_b,
        "first_slot_second_label": bool(first) and first == second_of_pair,
        "pick": result.pick,
        "mapped_winner": winner_of(result.pick, order),
        "confidence": result.confidence,
        "confidence_source": result.confidence_source,
    }


def verdict_values(
    protocol: Protocol, panel: Sequence[tuple[str, Role]], calls: Mapping[str, Sequence[JudgeCall]]
) -> dict[str, Any]:
    """The comparison's final columns: status, panel verdict, per-judge results."""
    stored = {name: stored_verdict(protocol, calls.get(name, ())) for name, _role in panel}
    results = [stored_result(name, role, stored[name]) for name, role in panel]
    verdict = panel_verdict(results)
    complete = all(r.winner is not None for r in results)
    status = (
        JobStatus.FAILED
        if verdict is None
        else JobStatus.COMPLETE
        if complete
        else JobStatus.PARTIAL
    )
    return {
        "status": status,
        "winner": verdict.winner if verdict else None,
        "confidence": verdict.confidence if verdict else None,
        "agreement": verdict.agreement if verdict else None,
        "position_consistent": verdict.position_consistent if verdict else None,
        "bias_detected": verdict.bias_detected if verdict else None,
        "judge_results": stored,
    }


def stored_verdict(protocol: Protocol, calls: Sequence[JudgeCall]) -> dict[str, Any] | None:
    """One judge's result as stored with the comparison (None: no result)."""
    return queries.result_json(calls, judge_verdict(protocol, [outcome_of(c) for c in calls]))
