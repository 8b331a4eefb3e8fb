"""Calibration labels: store a human's verdict; draw a random sample to label."""

from __future__ import annotations

import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Insert, delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.keys import Principal
from app.db import utcnow, values_of
from app.errors import Conflict, Forbidden, NotFound, ValidationProblem
from app.jobs.known import check_known_judge
from app.jobs.models import JobStatus
from app.labels import queries
from app.labels.models import Label, QueueDraw
from app.labels.schemas import (
    GoldRead,
    LabelIn,
    LabelingQueue,
    LabelRead,
    QueueItem,
    QueueLengths,
    TextsWithheld,
)
from app.ledger.models import Comparison, JudgeCall

# The largest integer every JSON reader keeps exactly (a double's 53-bit mantissa): a seed a
# JavaScript client rounds would draw another sample.
MAX_SEED = 2**53 - 1


# Who labels when auth is off: the one user on loopback, on the API and the labeling page alike.
LABELER_WITHOUT_AUTH = "dashboard"
# How long a queue draw lets a label say `from_queue`: a labeling session, with room to spare.
DRAW_TTL = timedelta(days=7)


def labeler_name(principal: Principal) -> str:
    """Who labels: the key's id (never its secret), or the one user when auth is off."""
    return principal.key_id or LABELER_WITHOUT_AUTH


def labeler_of(principal: Principal, given: str | None) -> str:
    """Who a label from this key is by: the key itself (its id), unless it may name others (the
    `admin` scope, or auth off); 403 for a `label` key that names someone else."""
    own = labeler_name(principal)
    if given is None or given == own:
        return own
    if principal.key_id and "admin" not in principal.scopes:
        raise Forbidden(
            f"/labeler: a key labels as itself ('{own}'); naming another labeler takes the"
            " admin scope"
        )
    return given


async def record_draws(session: AsyncSession, key_id: str, comparison_ids: Sequence[str]) -> None:
    """Remember what the queue offered this key (and forget draws past DRAW_TTL)."""
    now = utcnow()
    await session.execute(delete(QueueDraw).where(QueueDraw.drawn_at < now - DRAW_TTL))
    if comparison_ids:
        insert = (
            postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
        )
        rows = [{"key_id": key_id, "comparison_id": c, "drawn_at": now} for c in comparison_ids]
        statement = insert(QueueDraw).values(rows)
        await session.execute(
            statement.on_conflict_do_update(
                index_elements=[QueueDraw.key_id, QueueDraw.comparison_id],
                set_={"drawn_at": statement.excluded.drawn_at},
            )
        )
    await session.commit()


async def check_drawn(session: AsyncSession, key_id: str, comparison_id: str) -> None:
    """422 unless the queue offered `comparison_id` to this key within DRAW_TTL."""
    drawn = await session.scalar(
        select(QueueDraw.drawn_at).where(
            QueueDraw.key_id == key_id, QueueDraw.comparison_id == comparison_id
        )
    )
    if drawn is None or drawn < utcnow() - DRAW_TTL:
        raise ValidationProblem(
            f"/from_queue: comparison '{comparison_id}' was not offered to this key by"
            " GET /v1/labeling-queue in the last 7 days"
        )


async def label_from_api(
    session: AsyncSession, principal: Principal, comparison_id: str, body: LabelIn
) -> tuple[LabelRead, bool]:
    """`POST /v1/comparisons/{id}/labels`: the labeler bound to the key, `from_queue` to a draw
    the server made, then `create_label`."""
    labeler = labeler_of(principal, body.labeler)
    if body.from_queue:
        await check_drawn(session, principal.key_id, comparison_id)
    return await create_label(session, comparison_id, body.model_copy(update={"labeler": labeler}))


def upsert(
    session: AsyncSession, comparison_id: str, body: LabelIn, note: str | None = None
) -> Insert:
    """INSERT the label, or replace the labeler's earlier one (keeping its `created_at`)."""
    insert = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    now = utcnow()
    statement = insert(Label).values(
        **body.model_dump(include={"labeler", "winner", "from_queue", "shown_first"}),
        comparison_id=comparison_id,
        note=note,
        created_at=now,
        updated_at=now,
    )
    return statement.on_conflict_do_update(
        index_elements=[Label.comparison_id, Label.labeler],
        set_={
            "winner": statement.excluded.winner,
            "from_queue": statement.excluded.from_queue,
            # The new label's own display order, unknown (NULL) when its client did not say.
            "shown_first": statement.excluded.shown_first,
            # The old label's note spoke of the old label.
            "note": statement.excluded.note,
            "updated_at": statement.excluded.updated_at,
        },
    ).returning(Label.created_at, Label.updated_at)


def gold_read(row: Any) -> GoldRead:
    """A `queries.gold_labels` row as the API shows it."""
    return GoldRead(
        winner=row.gold,
        disputed=row.gold is None,
        labelers=row.labelers,
        votes={"A": row.votes_a, "B": row.votes_b, "tie": row.votes_tie},
    )


async def create_label(
    session: AsyncSession, comparison_id: str, body: LabelIn, note: str | None = None
) -> tuple[LabelRead, bool]:
    """Store the label (with the labeler's note, which only the dashboard's labeling page asks
    for); also whether it is new (rather than replacing the labeler's last)."""
    comparison = await session.get(Comparison, comparison_id)
    if comparison is None:
        raise NotFound(f"no comparison with id '{comparison_id}'")
    refusal = label_refusal(comparison)
    if refusal is not None:
        raise Conflict(refusal)
    try:
        stored = (await session.execute(upsert(session, comparison_id, body, note))).one()
    except IntegrityError as exc:  # the comparison was purged in between
        raise NotFound(f"no comparison with id '{comparison_id}'") from exc
    gold = await queries.gold_of(session, comparison_id)
    await session.commit()
    label = LabelRead(
        comparison_id=comparison_id,
        **values_of(body, "labeler", "winner", "from_queue", "shown_first"),
        **values_of(stored, "created_at", "updated_at"),
        gold=gold_read(gold),
    )
    return label, stored.created_at == stored.updated_at


def label_refusal(comparison: Comparison) -> str | None:
    """Why the comparison takes no label (409), or None: a gold label must be a human verdict
    on a real choice that some judge's verdict can be held against."""
    if comparison.origin == "canary":
        return (
            f"comparison '{comparison.id}' is a drift canary's re-run of a frozen item: label "
            "the traffic comparison it copies (canary items take their gold from it)"
        )
    if comparison.placebo:
        return (
            f"comparison '{comparison.id}' is a placebo (both responses are the same text): "
            "there is no better response to label"
        )
    if comparison.status == JobStatus.FAILED:
        return (
            f"comparison '{comparison.id}' failed (no judge produced a result): there is no "
            "verdict to hold a label against"
        )
    return None


def texts_withheld(comparison: Comparison) -> TextsWithheld | None:
    """Why a comparison's texts cannot be shown: privacy mode kept only their HMACs, or a
    texts-only purge removed them; None when they are there."""
    if comparison.response_a is not None:
        return None
    return "privacy" if comparison.response_a_hmac is not None else "purged"


def queue_item(comparison: Comparison, tags: dict[str, str]) -> QueueItem:
    """What a labeler is shown of a comparison: in privacy mode, what identifies it (id, tags,
    lengths) and why its texts are missing; criteria then hold HMACs, so they are left out."""
    shown = ("id", "prompt", "response_a", "response_b", "reference", "criteria", "created_at")
    withheld = texts_withheld(comparison)
    values = values_of(comparison, *shown)
    if withheld == "privacy":
        values["criteria"] = None
    return QueueItem(
        **values,
        tags=tags,
        texts_withheld=withheld,
        lengths=QueueLengths(a=comparison.len_a, b=comparison.len_b),
    )


async def labeling_queue(
    session: AsyncSession, judge: str | None, n: int, seed: int | None, key_id: str | None = None
) -> LabelingQueue:
    """A uniform random sample (without replacement) of `n` unlabelled complete comparisons;
    the same seed draws the same sample while the candidates stay the same. The draw is
    recorded for `key_id` (the API's caller), whose labels of it may then say `from_queue`."""
    await check_known_judge(session, judge, None, (JudgeCall,))
    seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
    available = await queries.count_candidates(session, judge)
    positions = random.Random(seed).sample(range(available), min(n, available))
    comparisons = await queries.candidates_at(session, judge, positions)
    tags = await queries.tags_of(session, [c.id for c in comparisons])
    if key_id is not None:
        await record_draws(session, key_id, [c.id for c in comparisons])
    return LabelingQueue(
        items=[queue_item(c, tags[c.id]) for c in comparisons],
        next_cursor=None,
        seed=seed,
        available=available,
    )


# The dashboard's labeling page (issue 23)


@dataclass(frozen=True)
class LabelerProgress:
    """What the labeling page shows at its top."""

    labelled: int  # comparisons this labeler labelled
    left: int  # comparisons still to be shown to this labeler (unlabelled, or labelled once)
    agreeing: int  # pairs (my label, another's on the same item) with the same winner
    pairs: int


async def next_item(
    session: AsyncSession,
    labeler: str,
    overlap: float,
    rng: random.Random,
    skipped: Sequence[str] = (),
) -> Comparison | None:
    """A uniform draw for `labeler`: with probability `overlap` from the items someone else
    labelled exactly once, else from the unlabelled ones (each from the other when empty);
    never an item this labeler labelled, nor one in `skipped`. None when nothing is left."""
    pools = [queries.overlap_items(labeler, skipped), queries.fresh_items(skipped)]
    if rng.random() >= overlap:
        pools.reverse()
    for items in pools:
        available = await queries.count_items(session, items)
        if available:
            return await queries.item_at(session, items, rng.randrange(available))
    return None


async def labeler_progress(session: AsyncSession, labeler: str) -> LabelerProgress:
    """Labels by `labeler`, items left for them, their agreement with other labelers."""
    left = await queries.count_items(session, queries.fresh_items())
    left += await queries.count_items(session, queries.overlap_items(labeler))
    agreeing, pairs = await queries.agreement_of(session, labeler)
    return LabelerProgress(await queries.labels_by(session, labeler), left, agreeing, pairs)
