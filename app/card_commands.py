"""`fairpair card NAME`: a judge's card, from a server (--url, --key) or the local database, as a
table: per probe family the wrong side's share with its card-level CI, count, tier and mark,
then the change from the previous version's card."""

from __future__ import annotations

from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from app.cards import service
from app.config import get_settings
from app.remote import get_json

MARKS = {"pass": "pass", "watch": "WATCH", "fail": "FAIL", "insufficient": "too few"}


def remote_card(url: str, key: str | None, name: str, version: int | None) -> dict[str, Any]:
    """The card from a running server; a ValueError with one line for the user otherwise."""
    params = {"version": version} if version is not None else {}
    return get_json(url, key, f"/v1/judges/{name}/card", params, timeout_s=60)


async def local_card(session: AsyncSession, name: str, version: int | None) -> dict[str, Any]:
    """The card from the local database, by the function the route uses."""
    return (await service.read(session, get_settings(), name, version)).model_dump(mode="json")


def render(answer: dict[str, Any]) -> str:
    """The card as a table."""
    head = f"judge {answer['judge']}, version {answer['version']}"
    card = answer["card"]
    if card is None:
        return f"{head}: no card. {answer.get('reason') or ''}".rstrip()
    state = (
        "all items done" if card["complete"] else f"running ({card['items_done']}/{card['items']})"
    )
    models = ", ".join(card["provider_models"]) or "unknown"
    lines = [f"{head}: run {card['run_id']} at {card['run_at']}, {state}", f"model: {models}", ""]
    lines.append("probe       wrong wins  CI (98.75%)     n    tier          mark")
    for f in card["figures"]:
        rate = "-" if f["rate"] is None else f"{f['rate']:.2f}"
        ci = "-" if f["ci"] is None else f"[{f['ci'][0]:.2f}, {f['ci'][1]:.2f}]"
        mark = MARKS.get(f["mark"], f["mark"])
        lines.append(
            f"{f['family']:<11} {rate:>10}  {ci:<14} {f['n']:>4}  {f['tier']:<12}  {mark}"
            f"  (limit {f['limit']:.2f})"
        )
    lines += ["", *_changes(card)]
    return "\n".join(lines)


def _changes(card: dict[str, Any]) -> list[str]:
    previous = card["previous_version"]
    if previous is None:
        return ["no earlier version's card to compare with"]
    lines = [f"against version {previous} (McNemar exact, Holm-adjusted, paired calls):"]
    for c in card["changes"]:
        delta = "-" if c["rate_change"] is None else f"{c['rate_change']:+.2f}"
        verdict = "CHANGED" if c["changed"] else "same"
        p = c["p_adjusted"] if c["p_adjusted"] is not None else c["p_value"]
        lines.append(f"  {c['family']:<11} {delta:>6}  p={p:.3g}  n={c['pairs']}  {verdict}")
    return lines
