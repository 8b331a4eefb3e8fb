"""Run a judge's card battery as tagged compare items of a batch, and read the card back.

A run is an ordinary batch of `compare` items (swap protocol, the one judge), stored with origin
`canary` so the report and the leaderboard leave the probes out; every comparison carries the
card's tags, which are all the card needs: no table of its own.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from dataclasses import asdict
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.batches.models import Batch, BatchItem
from app.batches.queue import ItemQueue
from app.batches.schemas import BatchItemIn
from app.batches.service import item_rows
from app.cards import probes, stats
from app.cards.schemas import Card, CardRead, CardRunStarted, ProbeChange, ProbeFigure
from app.comparisons.schemas import CompareRequest
from app.config import Settings
from app.db import utcnow
from app.errors import ValidationProblem
from app.jobs.kind import Services
from app.jobs.models import JobStatus
from app.judges.models import Judge, JudgeVersion
from app.judges.service import get_judge
from app.judging.types import prices_known
from app.ledger.models import Comparison, ComparisonTag, JudgeCall

RUN, JUDGE, VERSION = "fairpair:card-run", "fairpair:card-judge", "fairpair:card-version"
PROBE, ITEM, WRONG = "fairpair:probe", "fairpair:probe-item", "fairpair:probe-wrong"
ITEMS = "fairpair:card-items"
# The stated cost's token estimate per call: the template's own text, then four characters a
# token for the probe's texts, and a short JSON verdict out.
TEMPLATE_TOKENS, OUT_TOKENS = 350, 60
_UNFINISHED = (JobStatus.RUNNING, JobStatus.WAITING)


PRIVACY_REFUSAL = (
    "the judge card reads its probes back from comparison tags, which privacy mode "
    "(FAIRPAIR_PRIVACY=hash) stores as HMACs: not available in privacy mode"
)


def check_tags_kept(settings: Settings) -> None:
    """422, saying why, in privacy mode."""
    if settings.privacy == "hash":
        raise ValidationProblem(PRIVACY_REFUSAL)


def planned(settings: Settings, simulated: bool) -> list[probes.Probe]:
    """The battery of the settings' seed and size."""
    return probes.battery(settings.card_seed, settings.card_probes_per_family, simulated)


def stated_cost(battery: list[probes.Probe], config: dict[str, Any]) -> tuple[int, float | None]:
    """The calls (both display orders of each probe) and their estimated price in USD (None:
    the judge has no prices, and an unpriced run is not free)."""
    price_in = float(config.get("price_in_per_mtok") or 0.0)
    price_out = float(config.get("price_out_per_mtok") or 0.0)
    calls = 2 * len(battery)
    if not prices_known(str(config.get("provider")), price_in, price_out):
        return calls, None
    tokens_in = sum(
        2 * (TEMPLATE_TOKENS + (len(p.prompt) + len(p.response_a) + len(p.response_b)) // 4)
        for p in battery
    )
    cost = (tokens_in * price_in + calls * OUT_TOKENS * price_out) / 1_000_000
    return calls, round(cost, 6)


def _request(probe: probes.Probe, judge: str, version: int, run_id: str, items: int) -> BatchItemIn:
    tags = {
        RUN: run_id,
        ITEMS: str(items),
        JUDGE: judge,
        VERSION: str(version),
        PROBE: probe.family,
        ITEM: probe.item,
        WRONG: probe.wrong,
    }
    request = CompareRequest(
        prompt=probe.prompt,
        response_a=probe.response_a,
        response_b=probe.response_b,
        judges=[judge],
        protocol={"kind": "swap"},
        tags=tags,
        self_preference="allow",
    )
    return BatchItemIn(item_id=probe.item, compare=request)


async def start(
    services: Services, queue: ItemQueue, session: AsyncSession, name: str, key_id: str
) -> CardRunStarted:
    """Queue the battery for the judge's current version; its stated cost comes back at once."""
    judge, version = await get_judge(session, name)  # an unknown name is 404 in any mode
    check_tags_kept(services.settings)
    if not judge.enabled:
        raise ValidationProblem(f"judge '{name}' is retired (enabled: false)")
    started = await queue_battery(services, queue, name, version, key_id, None)
    assert started is not None  # no idempotency key: nothing to lose a claim to
    return started


async def queue_battery(
    services: Services,
    queue: ItemQueue,
    name: str,
    version: JudgeVersion,
    key_id: str,
    claim: str | None,
) -> CardRunStarted | None:
    """Store the battery of the judge version as one batch and send its items. `claim`, when
    given, is the batch's idempotency key under `key_id`: a second claim of the same key (by
    any process) stores and sends nothing and answers None."""
    battery = planned(services.settings, version.config.get("provider") == "sim")
    calls, cost = stated_cost(battery, version.config)
    run_id = str(uuid.uuid4())
    requests = [_request(p, name, version.version, run_id, len(battery)) for p in battery]
    batch = Batch(
        id=str(uuid.uuid4()),
        created_at=utcnow(),
        api_key_id=key_id,
        idempotency_key=claim,
        request_hash=hashlib.sha256(run_id.encode()).hexdigest(),
        item_count=len(requests),
    )
    rows = item_rows(batch.id, requests, services.settings, services.keeper)
    async with services.sessionmaker() as writer:
        writer.add(batch)
        try:
            await writer.flush()
        except IntegrityError:  # the claim's key is taken: another process queued this run
            await writer.rollback()
            return None
        await writer.execute(insert(BatchItem), [{**r, "origin": "canary"} for r in rows])
        await writer.commit()
    await queue.enqueue([row["id"] for row in rows])
    return CardRunStarted(
        run_id=run_id,
        judge=name,
        version=version.version,
        batch_id=batch.id,
        items=len(requests),
        calls=calls,
        stated_cost_usd=cost,
    )


# Reading the card


def tag(key: str) -> Any:
    return aliased(ComparisonTag, name=key.replace(":", "_").replace("-", "_"))


async def latest_run(session: AsyncSession, name: str, version: int) -> str | None:
    """The id of the judge version's newest battery run, or None."""
    run, judge, ver = tag(RUN), tag(JUDGE), tag(VERSION)
    query = (
        select(run.value)
        .select_from(run)
        .join(Comparison, Comparison.id == run.comparison_id)
        .join(judge, (judge.comparison_id == run.comparison_id) & (judge.key == JUDGE))
        .join(ver, (ver.comparison_id == run.comparison_id) & (ver.key == VERSION))
        .where(run.key == RUN, judge.value == name, ver.value == str(version))
        .order_by(Comparison.created_at.desc())
        .limit(1)
    )
    return await session.scalar(query)


async def _previous_version(session: AsyncSession, name: str, version: int) -> int | None:
    """The newest earlier version of the judge that has a card run."""
    judge, ver = tag(JUDGE), tag(VERSION)
    values = await session.scalars(
        select(ver.value)
        .select_from(ver)
        .join(judge, (judge.comparison_id == ver.comparison_id) & (judge.key == JUDGE))
        .where(ver.key == VERSION, judge.value == name)
        .distinct()
    )
    earlier = [int(v) for v in values if v.isdigit() and int(v) < version]
    return max(earlier) if earlier else None


async def _run_calls(
    session: AsyncSession, run_id: str, name: str
) -> tuple[list[stats.ProbeCall], list[str | None], datetime | None]:
    """The run's design calls as probe calls, the provider-reported models and the start."""
    run, probe, item, wrong = tag(RUN), tag(PROBE), tag(ITEM), tag(WRONG)
    rows = await session.execute(
        select(
            item.value,
            probe.value,
            wrong.value,
            JudgeCall.round,
            JudgeCall.mapped_winner,
            JudgeCall.pick,
            JudgeCall.provider_model,
            JudgeCall.started_at,
        )
        .select_from(run)
        .join(JudgeCall, JudgeCall.comparison_id == run.comparison_id)
        .join(probe, (probe.comparison_id == run.comparison_id) & (probe.key == PROBE))
        .join(item, (item.comparison_id == run.comparison_id) & (item.key == ITEM))
        .join(wrong, (wrong.comparison_id == run.comparison_id) & (wrong.key == WRONG))
        .where(run.key == RUN, run.value == run_id, JudgeCall.design, JudgeCall.judge_name == name)
    )
    calls, models, started = [], [], []
    for it, family, side, rnd, winner, pick, model, at in rows:
        calls.append(stats.ProbeCall(it, family, rnd, side, winner, pick))
        models.append(model)
        started.append(at)
    return calls, models, min(started) if started else None


async def progress(session: AsyncSession, run_id: str) -> tuple[int, int]:
    """The run's items and the finished ones among them (an item's comparison is stored once
    a worker starts it)."""
    run, items = tag(RUN), tag(ITEMS)
    total, done = (
        await session.execute(
            select(
                func.max(items.value),
                func.count().filter(Comparison.status.not_in(_UNFINISHED)),
            )
            .select_from(run)
            .join(Comparison, Comparison.id == run.comparison_id)
            .join(items, (items.comparison_id == run.comparison_id) & (items.key == ITEMS))
            .where(run.key == RUN, run.value == run_id)
        )
    ).one()
    return int(total or 0), int(done)


async def read(
    session: AsyncSession, settings: Settings, name: str, version: int | None
) -> CardRead:
    """The card of the judge's version (its current one by default), from the stored calls."""
    judge, current = await get_judge(session, name)
    check_tags_kept(settings)
    wanted = current.version if version is None else version
    if not 1 <= wanted <= judge.current_version:
        raise ValidationProblem(
            f"version: judge '{name}' has versions 1 to {judge.current_version}"
        )
    run_id = await latest_run(session, name, wanted)
    if run_id is None:
        reason = f"no card run for version {wanted}: POST /v1/judges/{name}/card runs one"
        return CardRead(judge=name, version=wanted, card=None, reason=reason)
    calls, models, run_at = await _run_calls(session, run_id, name)
    total, done = await progress(session, run_id)
    previous = await _previous_version(session, name, wanted)
    changes: list[stats.Change] = []
    if previous is not None:
        before_run = await latest_run(session, name, previous)
        if before_run is not None:
            before, _, _ = await _run_calls(session, before_run, name)
            changes = stats.changes(before, calls)
    card = Card(
        run_id=run_id,
        version=wanted,
        complete=total > 0 and done == total,
        items=total,
        items_done=done,
        run_at=run_at,
        provider_models=[m for m, _ in Counter(m for m in models if m).most_common()],
        figures=[ProbeFigure(**asdict(f)) for f in stats.figures(calls)],
        previous_version=previous,
        changes=[ProbeChange(**asdict(c)) for c in changes],
    )
    return CardRead(judge=name, version=wanted, card=card)


async def padding_marks(
    session: AsyncSession, settings: Settings, names: list[str]
) -> dict[str, stats.Mark]:
    """The padding probe's mark on each judge's current version, for the judges whose latest
    card of that version finished (none in privacy mode, where cards cannot be read back). The
    bias report's `length_bias` reads it."""
    if settings.privacy == "hash" or not names:
        return {}
    versions = await session.execute(
        select(Judge.name, Judge.current_version).where(Judge.name.in_(names))
    )
    marks: dict[str, stats.Mark] = {}
    for name, version in versions.all():
        run_id = await latest_run(session, name, version)
        if run_id is None:
            continue
        total, done = await progress(session, run_id)
        if total == 0 or done < total:
            continue
        calls, _, _ = await _run_calls(session, run_id, name)
        padding = [c for c in calls if c.family == "padding"]
        if padding:
            marks[name] = stats.figure("padding", padding).mark
    return marks
