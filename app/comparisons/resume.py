"""A batch item's comparison: run under the id allocated at submission, resumable on redelivery.

A worker killed mid-item leaves the comparison `running` (or swept `interrupted`) with some calls
stored. The next delivery reopens it and replays each judge's protocol over the stored calls, asking
only for the rounds still missing: no (comparison, judge, round) is ever asked twice, and the unique
key on judge calls settles the rare race of two deliveries storing the same round.
"""

from __future__ import annotations

import time
from collections import defaultdict
from datetime import timedelta

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.comparisons import queries
from app.comparisons.fanout import FanOut, PairTexts
from app.comparisons.models import Comparison, ComparisonTag, JudgeCall
from app.comparisons.panels import PanelPlan, Role, family_of, parse_family_prefixes
from app.comparisons.protocols import Order, Protocol, planned_calls
from app.comparisons.schemas import CompareRequest, ComparisonRead
from app.comparisons.service import (
    CallWriter,
    Services,
    finish,
    plan_judges,
    request_hash,
    timeout_of,
    to_criteria,
    to_protocol,
)
from app.db import utcnow
from app.judges.registry import RuntimeJudge
from app.judging.types import PairCallResult

Judges = list[tuple[RuntimeJudge, Role]]


async def run_item_comparison(
    request: CompareRequest, comparison_id: str, api_key_id: str, services: Services
) -> ComparisonRead:
    """Run (or finish running) the comparison `comparison_id`; a finished one is read back."""
    protocol, timeout_s = to_protocol(request), timeout_of(request, services.settings)
    async with services.sessionmaker() as session:
        found = await session.get(Comparison, comparison_id)
        if found is not None and not needs_run(found):
            return await queries.read_comparison(session, found)
        stored = await stored_calls(session, comparison_id) if found is not None else {}
    if found is None:
        comparison, judges = await start(request, comparison_id, api_key_id, timeout_s, services)
    else:
        comparison, judges = await reopen(found, timeout_s, services)
    writer = ResumingWriter(comparison, services.sessionmaker, services.keeper)
    fanout = FanOut(
        services.pool,
        services.settings.max_request_concurrency,
        PairTexts(
            request.prompt,
            request.response_a.text,
            request.response_b.text,
            to_criteria(request),
            request.reference,
        ),
        protocol,
        time.monotonic() + timeout_s,
        writer,
        draw_seed=draw_seed(request, services),
    )
    calls = await fanout.run(judges, stored)
    return await finish(comparison, protocol, judges, calls, request.tags, writer)


def needs_run(comparison: Comparison) -> bool:
    """Whether a delivery must (re)run it: still running, or closed by an interruption."""
    return comparison.status == "running" or comparison.error_kind == "interrupted"


def draw_seed(request: CompareRequest, services: Services) -> str | None:
    """The same reproducible draws as `POST /v1/compare` when seeded (tests, benchmarks)."""
    seed = services.settings.draw_seed
    return f"{seed}:{request_hash(request)}" if seed is not None else None


async def start(
    request: CompareRequest,
    comparison_id: str,
    api_key_id: str,
    timeout_s: float,
    services: Services,
) -> tuple[Comparison, Judges]:
    """Plan the panel and insert the comparison as `running` under its allocated id.

    Two deliveries racing to insert it means two processes hold the item: the loser's
    IntegrityError ends its attempt, and the item's lease decides who carries on.
    """
    names = services.registry.panel_or_default(request.judges)
    plan, judges = await plan_judges(request, names, services)
    comparison = comparison_row(
        request, comparison_id, api_key_id, plan, judges, timeout_s, services
    )
    async with services.sessionmaker() as session:
        session.add(comparison)
        session.add_all(
            ComparisonTag(comparison_id=comparison.id, key=k, value=v)
            for k, v in services.keeper.tags(request.tags).items()
        )
        await session.commit()
    return comparison, judges


async def reopen(
    comparison: Comparison, timeout_s: float, services: Services
) -> tuple[Comparison, Judges]:
    """Mark it running again with a fresh deadline; its panel is the one planned first."""
    deadline_at = utcnow() + timedelta(seconds=timeout_s)
    values = {"status": "running", "error_kind": None, "completed_at": None}
    async with services.sessionmaker() as session:
        # The stored plan, not a new one: the audit draw must not change between deliveries.
        names = [name for name, _version, _role in comparison.panel["judges"]]
        resolved = await services.registry.resolve(session, names)
        await session.execute(
            update(Comparison)
            .where(Comparison.id == comparison.id)
            .values(deadline_at=deadline_at, **values)
        )
        await session.commit()
    comparison.deadline_at = deadline_at
    for key, value in values.items():
        setattr(comparison, key, value)
    roles = {name: role for name, _version, role in comparison.panel["judges"]}
    return comparison, [(judge, roles[judge.name]) for judge in resolved]


async def stored_calls(session: AsyncSession, comparison_id: str) -> dict[str, list[JudgeCall]]:
    """Calls an earlier delivery stored, by judge name."""
    by_judge: dict[str, list[JudgeCall]] = defaultdict(list)
    for call in await session.scalars(
        select(JudgeCall).where(JudgeCall.comparison_id == comparison_id)
    ):
        by_judge[call.judge_name].append(call)
    return by_judge


class ResumingWriter(CallWriter):
    """Stores calls like `POST /v1/compare`; a round another delivery stored first is kept."""

    async def __call__(
        self,
        judge: RuntimeJudge,
        role: Role,
        round_index: int,
        order: Order,
        result: PairCallResult,
    ) -> JudgeCall:
        try:
            return await super().__call__(judge, role, round_index, order, result)
        except IntegrityError:
            async with self.sessionmaker() as session:
                kept = await session.scalar(
                    select(JudgeCall).where(
                        JudgeCall.comparison_id == self.comparison.id,
                        JudgeCall.judge_name == judge.name,
                        JudgeCall.round == round_index,
                    )
                )
            if kept is None:
                raise
            return kept


def comparison_row(
    request: CompareRequest,
    comparison_id: str,
    api_key_id: str,
    plan: PanelPlan,
    judges: Judges,
    timeout_s: float,
    services: Services,
) -> Comparison:
    """The comparison as `service.reserve` stores it, under the given id and without a key."""
    a, b = request.response_a, request.response_b
    keeper, prefixes = services.keeper, parse_family_prefixes(services.settings.family_prefixes)
    protocol: Protocol = to_protocol(request)
    now = utcnow()
    return Comparison(
        id=comparison_id,
        created_at=now,
        deadline_at=now + timedelta(seconds=timeout_s),
        status="running",
        api_key_id=api_key_id,
        idempotency_key=None,
        request_hash=keeper.token(request_hash(request)),
        prompt=keeper.text(request.prompt),
        response_a=keeper.text(a.text),
        response_b=keeper.text(b.text),
        reference=keeper.text(request.reference),
        prompt_hmac=keeper.hmac(request.prompt),
        response_a_hmac=keeper.hmac(a.text),
        response_b_hmac=keeper.hmac(b.text),
        len_a=len(a.text),
        len_b=len(b.text),
        placebo=a.text == b.text,
        model_a=a.model,
        model_b=b.model,
        family_a=family_of(a.model, a.family, prefixes),
        family_b=family_of(b.model, b.family, prefixes),
        criteria=keeper.texts_in(request.model_dump(mode="json")["criteria"]),
        protocol=protocol.kind,
        protocol_params=request.protocol.model_dump(exclude_none=True),
        planned_rounds=planned_calls(protocol),
        self_preference=request.self_preference or services.settings.self_preference,
        timeout_s=timeout_s,
        simulated=any(j.simulated for j, _ in judges),
        self_preference_risk=plan.self_preference_risk,
        panel={
            "judges": [[j.name, j.version, role] for j, role in judges],
            "excluded": [list(e) for e in plan.excluded],
            "conflicted": list(plan.conflicted),
        },
    )
