"""`DELETE /v1/comparisons/{id}` and `DELETE /v1/comparisons?tag=`: an admin removes stored
comparisons through the server that holds them (the ledger's one rule, `delete_stopped`), each
delete written to the log with who asked."""

from __future__ import annotations

from collections.abc import Sequence

import structlog
from sqlalchemy import Select, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth.keys import Principal
from app.comparisons.schemas import ComparisonsDeleted
from app.errors import Conflict, NotFound, ValidationProblem
from app.jobs.models import UNFINISHED
from app.ledger.deletion import delete_stopped
from app.ledger.models import Comparison, ComparisonTag

log = structlog.get_logger()


async def delete_one(
    session: AsyncSession, comparison_id: str, principal: Principal
) -> ComparisonsDeleted:
    """The comparison with its calls; 404 when there is none, 409 while it runs."""
    found = await session.get(Comparison, comparison_id)
    if found is None:
        raise NotFound(f"no comparison with id '{comparison_id}'")
    if found.status in UNFINISHED:
        raise Conflict(f"comparison '{comparison_id}' is still {found.status}: delete it after")
    deleted = await _delete(session, select(Comparison.id).where(Comparison.id == comparison_id))
    log.info(
        "comparisons_deleted",
        by_key=principal.key_id or None,
        comparison_id=comparison_id,
        **_counts(deleted),
    )
    return deleted


async def delete_tagged(
    session: AsyncSession, tags: Sequence[tuple[str, str]], principal: Principal
) -> ComparisonsDeleted:
    """Every comparison that has all `tags` and stopped running (a running one is left); at
    least one tag, so that no request deletes everything."""
    if not tags:
        raise ValidationProblem("/tag: name at least one key:value tag to delete by")
    chosen = select(Comparison.id)
    for key, value in tags:
        chosen = chosen.where(
            Comparison.id.in_(
                select(ComparisonTag.comparison_id).where(
                    ComparisonTag.key == key, ComparisonTag.value == value
                )
            )
        )
    deleted = await _delete(session, chosen)
    # Tag keys only: values may be texts a privacy-mode server keeps as HMACs.
    log.info(
        "comparisons_deleted",
        by_key=principal.key_id or None,
        tag_keys=[k for k, _ in tags],
        **_counts(deleted),
    )
    return deleted


async def _delete(session: AsyncSession, chosen: Select[str]) -> ComparisonsDeleted:
    comparisons, calls = await delete_stopped(session, chosen)
    await session.commit()
    return ComparisonsDeleted(comparisons=comparisons, calls=calls)


def _counts(deleted: ComparisonsDeleted) -> dict[str, int]:
    return {"comparisons": deleted.comparisons, "calls": deleted.calls}
