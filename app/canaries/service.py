"""Create, list and read canaries: a canary's items are copied from stored comparisons once."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any, NamedTuple

from sqlalchemy import Integer, String, func, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.keys import Principal
from app.canaries.models import Canary, CanaryItem, CanaryJudge
from app.canaries.schemas import CanaryCreate
from app.config import Settings
from app.db import UTCDateTime, utcnow
from app.errors import Conflict, NotFound, ValidationProblem
from app.judges.models import Judge
from app.ledger.gold import gold_labels
from app.ledger.models import Comparison, ComparisonTag
from app.params import decode_name_cursor, encode_name_cursor, parse_age
from app.privacy import TextKeeper

PRIVACY_REFUSAL = (
    "canaries re-run stored texts, and in privacy mode (FAIRPAIR_PRIVACY=hash) only their "
    "HMACs are stored: there is nothing to re-run"
)
_FINISHED = ("complete", "partial")


def check_texts_kept(settings: Settings) -> None:
    """Canaries need the texts: refused (422, saying why) in privacy mode."""
    if settings.privacy == "hash":
        raise ValidationProblem(PRIVACY_REFUSAL)


async def create(
    session: AsyncSession,
    body: CanaryCreate,
    principal: Principal,
    settings: Settings,
    keeper: TextKeeper,
) -> Canary:
    """Copy the selected comparisons (with their gold labels now) into a new canary."""
    check_texts_kept(settings)
    interval_s = _interval_seconds(body.interval)
    await _check_judges(session, body.judges)
    if await session.scalar(select(Canary.id).where(Canary.name == body.name)) is not None:
        raise Conflict(f"a canary named '{body.name}' exists")
    sources = await _select_sources(session, body, settings, keeper)
    golds = await _golds(session, [c.id for c in sources])
    canary = Canary(
        id=str(uuid.uuid4()),
        name=body.name,
        created_at=utcnow(),
        api_key_id=principal.key_id,
        judges=list(dict.fromkeys(body.judges)),
        interval_s=interval_s,
        selector=_selector(body),
        item_count=len(sources),
    )
    states = await _judge_states(session, canary)
    session.add(canary)
    session.add_all(_item(canary.id, i, c, golds.get(c.id)) for i, c in enumerate(sources))
    session.add_all(states)
    try:
        await session.commit()
    except IntegrityError as exc:
        await session.rollback()
        raise Conflict(f"a canary named '{body.name}' exists") from exc
    return canary


def _interval_seconds(interval: str | None) -> float | None:
    if interval is None:
        return None
    try:
        seconds = parse_age(interval).total_seconds()
    except ValueError as exc:
        raise ValidationProblem(f"/interval: {exc}") from exc
    if seconds < 60:
        raise ValidationProblem("/interval: at least 1m")
    return seconds


def _selector(body: CanaryCreate) -> dict[str, Any]:
    if body.tag is not None:
        return {"tag": body.tag, "limit": body.limit}
    # The count, not the ids: a canary's list entry stays small (its items name their sources).
    return {"comparison_ids": len(set(body.comparison_ids or []))}


async def _check_judges(session: AsyncSession, names: Sequence[str]) -> None:
    known = set(
        await session.scalars(select(Judge.name).where(Judge.name.in_(names), Judge.enabled))
    )
    for i, name in enumerate(names):
        if name not in known:
            raise ValidationProblem(f"/judges/{i}: unknown or retired judge '{name}'")


async def _select_sources(
    session: AsyncSession, body: CanaryCreate, settings: Settings, keeper: TextKeeper
) -> list[Comparison]:
    """The comparisons to copy: finished traffic with texts, by id (in the order given) or the
    newest `limit` with the tag; at most a batch's worth (a run is one batch)."""
    usable = (
        Comparison.origin == "traffic",
        Comparison.status.in_(_FINISHED),
        Comparison.response_a.is_not(None),
    )
    if body.comparison_ids is not None:
        ids = list(dict.fromkeys(body.comparison_ids))
        if len(ids) > settings.max_batch_items:
            raise ValidationProblem(f"/comparison_ids: at most {settings.max_batch_items}")
        query = select(Comparison).where(Comparison.id.in_(ids), *usable)
        by_id = {c.id: c for c in await session.scalars(query)}
        for i, comparison_id in enumerate(ids):
            if comparison_id not in by_id:
                raise ValidationProblem(
                    f"/comparison_ids/{i}: no finished traffic comparison '{comparison_id}'"
                )
        return [by_id[i] for i in ids]
    assert body.tag is not None
    key, sep, value = body.tag.partition(":")
    if not sep or not key:
        raise ValidationProblem("/tag: expected key:value")
    limit = min(body.limit, settings.max_batch_items)
    tagged = select(ComparisonTag.comparison_id).where(
        ComparisonTag.key == key, ComparisonTag.value == keeper.token(value)
    )
    newest_first = (
        select(Comparison)
        .where(Comparison.id.in_(tagged), *usable)
        .order_by(Comparison.created_at.desc(), Comparison.id)
        .limit(limit)
    )
    newest = list(await session.scalars(newest_first))
    if not newest:
        raise ValidationProblem(f"/tag: no finished traffic comparison is tagged '{body.tag}'")
    return newest[::-1]  # oldest first, as stored


async def _golds(session: AsyncSession, ids: list[str]) -> dict[str, str]:
    """The gold label of each comparison that has one (disputed ones have none)."""
    gold = gold_labels()
    rows = await session.execute(
        select(gold.c.comparison_id, gold.c.gold).where(
            gold.c.comparison_id.in_(ids), gold.c.gold.is_not(None)
        )
    )
    return {row[0]: row[1] for row in rows}


def _item(canary_id: str, position: int, source: Comparison, gold: str | None) -> CanaryItem:
    return CanaryItem(
        canary_id=canary_id,
        position=position,
        source_id=source.id,
        # Texts are kept outside privacy mode (refused above): `or ""` only satisfies the types.
        prompt=source.prompt or "",
        response_a=source.response_a or "",
        response_b=source.response_b or "",
        reference=source.reference,
        criteria=source.criteria,
        model_a=source.model_a,
        model_b=source.model_b,
        family_a=source.family_a,
        family_b=source.family_b,
        gold=gold,
    )


async def _judge_states(session: AsyncSession, canary: Canary) -> list[CanaryJudge]:
    """What the canary sees of its judges now: later changes trigger runs, these do not."""
    versions = await current_versions(session, canary.judges)
    states = []
    for judge in canary.judges:
        seen = await latest_model(session, judge)
        states.append(
            CanaryJudge(
                canary_id=canary.id,
                judge=judge,
                version=versions.get(judge),
                provider_model=seen.model,
                model_seen_at=seen.at,
                model_version=seen.version,
            )
        )
    return states


# The models of a judge's calls, a few index probes each (a loose scan of
# `ix_judge_calls_judge_model_started`), and the newest of them by its last call, with that
# call's judge version: a judge whose provider reports no model costs one probe, however many
# calls it has.
NEWEST_MODEL = text(
    """
WITH RECURSIVE models(model) AS (
  SELECT (SELECT provider_model FROM judge_calls
          WHERE judge_name = :judge AND provider_model IS NOT NULL
          ORDER BY provider_model LIMIT 1)
  UNION ALL
  SELECT (SELECT provider_model FROM judge_calls
          WHERE judge_name = :judge AND provider_model > m.model
          ORDER BY provider_model LIMIT 1)
  FROM models m WHERE m.model IS NOT NULL
)
SELECT model,
  (SELECT max(started_at) FROM judge_calls
   WHERE judge_name = :judge AND provider_model = m.model) AS last_at,
  (SELECT judge_version FROM judge_calls
   WHERE judge_name = :judge AND provider_model = m.model
   ORDER BY started_at DESC LIMIT 1) AS version
FROM models m WHERE model IS NOT NULL
ORDER BY last_at DESC LIMIT 1
"""
).columns(model=String(), last_at=UTCDateTime(), version=Integer())


class SeenModel(NamedTuple):
    """The provider model of a judge's newest call that reported one: when, at which version."""

    model: str | None
    at: datetime | None
    version: int | None


async def current_versions(session: AsyncSession, judges: Sequence[str]) -> dict[str, int]:
    """The current version of each of these judges (by name)."""
    rows = await session.execute(
        select(Judge.name, Judge.current_version).where(Judge.name.in_(judges))
    )
    return {row[0]: row[1] for row in rows}


async def latest_model(session: AsyncSession, judge: str) -> SeenModel:
    """The provider model of the judge's newest call that reported one (None: none did)."""
    row = (await session.execute(NEWEST_MODEL, {"judge": judge})).first()
    return SeenModel(*row) if row is not None else SeenModel(None, None, None)


async def get(session: AsyncSession, name: str) -> Canary:
    """The canary by name; 404 when there is none."""
    canary = await session.scalar(select(Canary).where(Canary.name == name))
    if canary is None:
        raise NotFound(f"no canary named '{name}'")
    return canary


async def gold_counts(session: AsyncSession, canary_ids: Sequence[str]) -> dict[str, int]:
    """Per canary: its items with a gold label."""
    rows = await session.execute(
        select(CanaryItem.canary_id, func.count())
        .where(CanaryItem.canary_id.in_(canary_ids), CanaryItem.gold.is_not(None))
        .group_by(CanaryItem.canary_id)
    )
    return {row[0]: row[1] for row in rows}


async def list_page(
    session: AsyncSession, *, limit: int, cursor: str | None
) -> tuple[list[Canary], str | None]:
    """A page of canaries by name, and the next page's cursor (None at the end)."""
    query = select(Canary).order_by(Canary.name).limit(limit + 1)
    if cursor:
        query = query.where(Canary.name > decode_name_cursor(cursor, "c"))
    rows = list(await session.scalars(query))
    page = rows[:limit]
    return page, encode_name_cursor("c", page[-1].name) if len(rows) > limit else None
