"""`/dashboard/comparisons`: the comparison explorer (issue 23).

A paged, filterable list of stored comparisons and one comparison's page with both texts and every
call. Both read through the API's own query functions (`app.comparisons.queries`), so a value on
these pages cannot differ from `GET /v1/comparisons/{id}`. Report figures link here: the judge
page's swap-pair counts open `?judge=J&swap=primacy&since=…&until=…`, whose total is that figure.

Filters arrive as plain strings and are checked here, so that a bad one gives this page with a
message (status 422) rather than a bare problem document.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Annotated, Any, cast, get_args

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response
from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.comparisons import queries
from app.comparisons.queries import SWAP_CLASSES, ExploreFilters, SwapClass
from app.comparisons.schemas import CallRead, ComparisonRead, JudgeEntry, Status
from app.comparisons.service import CompareKindDep
from app.dashboard.auth import Viewer
from app.dashboard.rendering import html, login_redirect
from app.db import utcnow
from app.deps import KeeperDep, SessionDep, SettingsDep
from app.errors import NotFound, ValidationProblem
from app.jobs.known import check_known_judge
from app.jobs.lifecycle import read_job
from app.ledger.callscope import Origin
from app.ledger.models import Comparison, JudgeCall
from app.params import TagParams, check_order, parse_tag_filters
from app.privacy import TextKeeper
from app.reports.params import ORIGINS, check_choice, moment_of

routes = APIRouter()

STATUSES: tuple[str, ...] = get_args(Status)
VERDICTS = ("A", "B", "tie")
BOOLEANS = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}
DEFAULT_LIMIT, MAX_LIMIT = 50, 200
Text = Annotated[str | None, Query(max_length=100)]
# Text search: a literal substring (LIKE with its wildcards escaped), at most this long; the
# count it feeds reads at most `queries.COUNT_CAP` + 1 rows, like every filter's.
SEARCH_MAX_CHARS = 200
PREVIEW_CHARS = 120
PRIVACY_NOTE = (
    "This instance runs in privacy mode (FAIRPAIR_PRIVACY=hash): it stores only salted HMACs of "
    "the prompt, the responses and the judges' outputs, never the texts, so their hashes and "
    "lengths are shown instead. Equal texts have equal hashes."
)


@dataclass(frozen=True)
class ListQuery:
    """The list's query string as given, for the form and the paging links."""

    judge: str = ""
    tags: tuple[str, ...] = ()
    status: str = ""
    verdict: str = ""
    placebo: str = ""
    bias_detected: str = ""
    origin: str = "traffic"
    since: str = ""
    until: str = ""
    swap: str = ""
    limit: str = ""
    q: str = ""

    def pairs(self) -> list[tuple[str, str]]:
        """The non-empty parameters (tags as repeated `tag`)."""
        values = {k: v for k, v in self.__dict__.items() if k != "tags"}
        shown = [(k, v) for k, v in values.items() if v and not (k == "origin" and v == "traffic")]
        return shown + [("tag", tag) for tag in self.tags]


def parse_bool(name: str, value: str) -> bool | None:
    """`true`/`false` (or yes/no, 1/0); empty means either."""
    if not value:
        return None
    if value.lower() not in BOOLEANS:
        raise ValidationProblem(f"/{name}: use true or false")
    return BOOLEANS[value.lower()]


def parse_limit(value: str) -> int:
    """1..200 rows a page; 50 when not given."""
    if not value:
        return DEFAULT_LIMIT
    if not value.isdecimal() or not 1 <= int(value) <= MAX_LIMIT:
        raise ValidationProblem(f"/limit: a whole number from 1 to {MAX_LIMIT}")
    return int(value)


def explore_filters(given: ListQuery, keeper: TextKeeper) -> ExploreFilters:
    """The query's filters, checked: 422 (ValidationProblem) for anything unknown or malformed."""
    for name, value, choices in (
        ("status", given.status, STATUSES),
        ("verdict", given.verdict, VERDICTS),
        ("origin", given.origin, ORIGINS),
        ("swap", given.swap, SWAP_CLASSES),
    ):
        check_choice(name, value or None, choices)
    if given.swap and not given.judge:
        raise ValidationProblem("/swap: swap pairs are a judge's; give judge= too")
    now = utcnow()
    since = moment_of(given.since or None, "since", now)
    until = moment_of(given.until or None, "until", now)
    check_order(since, until)
    return ExploreFilters(
        judge=given.judge or None,
        tags=tuple(parse_tag_filters(list(given.tags), keeper)),
        status=given.status or None,
        winner=given.verdict or None,
        placebo=parse_bool("placebo", given.placebo),
        bias_detected=parse_bool("bias_detected", given.bias_detected),
        origin=cast(Origin, given.origin or "traffic"),
        since=since,
        until=until,
        swap=cast(SwapClass, given.swap) if given.swap else None,
        text=search_text(given.q, keeper),
    )


def search_text(q: str, keeper: TextKeeper) -> str | None:
    """The text to search for, spaces at its ends dropped; none in privacy mode, which stores
    no text to search (422 rather than a list that can never match)."""
    text = q.strip()
    if text and keeper.hash_only:
        raise ValidationProblem("/q: this instance stores only hashes of texts (privacy mode)")
    return text or None


async def prompt_previews(session: AsyncSession, ids: list[str]) -> dict[str, str]:
    """The start of each listed comparison's prompt on one line, cut at `PREVIEW_CHARS` (the
    database reads no more than that of each prompt)."""
    if not ids:
        return {}
    start = func.substr(Comparison.prompt, 1, PREVIEW_CHARS + 1)
    rows = await session.execute(select(Comparison.id, start).where(Comparison.id.in_(ids)))
    previews = {}
    for comparison_id, text in rows.all():
        if text is None:
            continue
        line = " ".join(text.split())
        cut = len(line) > PREVIEW_CHARS
        previews[comparison_id] = line[:PREVIEW_CHARS].rstrip() + "…" if cut else line
    return previews


@routes.get("/comparisons")
async def show_comparisons(
    request: Request,
    viewer: Viewer,
    session: SessionDep,
    keeper: KeeperDep,
    judge: Text = None,
    tag: TagParams = None,
    status: Text = None,
    verdict: Text = None,
    placebo: Text = None,
    bias_detected: Text = None,
    origin: Text = None,
    since: Annotated[str | None, Query(max_length=64)] = None,
    until: Annotated[str | None, Query(max_length=64)] = None,
    swap: Text = None,
    limit: Annotated[str | None, Query(max_length=8)] = None,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
    q: Annotated[str | None, Query(max_length=SEARCH_MAX_CHARS)] = None,
) -> Response:
    """Stored comparisons, newest first, with how many match the filters."""
    if viewer is None:
        return login_redirect(request)
    given = ListQuery(
        judge=judge or "",
        tags=tuple(t for t in tag or [] if t),
        status=status or "",
        verdict=verdict or "",
        placebo=placebo or "",
        bias_detected=bias_detected or "",
        origin=origin or "traffic",
        since=since or "",
        until=until or "",
        swap=swap or "",
        limit=limit or "",
        q=q or "",
    )
    context: dict[str, Any] = {"view": {"title": "Comparisons"}, "page": "comparisons"}
    try:
        filters = explore_filters(given, keeper)
        await check_known_judge(session, filters.judge, None, (JudgeCall,))
        listed, total = await queries.explore_comparisons(
            session, filters, limit=parse_limit(given.limit), cursor=cursor or None
        )
    except ValidationProblem as problem:
        return html("comparisons.html.j2", 422, q=given, error=problem.detail, rows=[], **context)
    return html(
        "comparisons.html.j2",
        q=given,
        error=None,
        rows=listed.items,
        total=total,
        count_cap=queries.COUNT_CAP,
        next_cursor=listed.next_cursor,
        previews=await prompt_previews(session, [c.id for c in listed.items]),
        privacy=keeper.hash_only,
        **context,
    )


# One comparison


def fmt(value: float | None) -> str:
    """A confidence as the pages print it."""
    return "none" if value is None else f"{value:.4g}"


def outcome(winner: str | None) -> str:
    """`A wins`, `B wins` or `a tie`."""
    return "a tie" if winner == "tie" else f"{winner} wins"


def swap_pairs(calls: list[CallRead]) -> list[tuple[CallRead, CallRead]]:
    """The judge's answered pairs: rounds 2k (AB) and 2k+1 (BA), both parsed."""
    by_round = {c.round: c for c in calls if c.pick is not None}
    return [
        (by_round[r], by_round[r + 1]) for r in sorted(by_round) if r % 2 == 0 and r + 1 in by_round
    ]


def no_result(entry: JudgeEntry) -> str:
    """Why a judge has no result."""
    failed = [c for c in entry.calls if c.pick is None]
    if not failed:
        return f"{entry.judge} has no result: its calls are not all answered."
    kinds = ", ".join(sorted({c.error_kind or "unknown" for c in failed}))
    return (
        f"{entry.judge} has no result: {len(failed)} of its {len(entry.calls)} calls failed "
        f"({kinds}), and the others cannot decide without them."
    )


def derivation(entry: JudgeEntry) -> str:
    """One judge's verdict in one sentence, from its stored result and calls."""
    result = entry.result
    if result is None:
        return no_result(entry)
    source = f" ({result.confidence_source})" if result.confidence_source else ""
    verdict = f"{outcome(result.winner)} with confidence {fmt(result.confidence)}{source}"
    pairs = swap_pairs(entry.calls)
    if result.position_consistent is None:  # single: one call, one order
        call = next((c for c in entry.calls if c.pick is not None), None)
        shown = f" (order {call.display_order}, pick {call.pick})" if call else ""
        picked = call.mapped_winner if call else "?"
        return f"{entry.judge} picked {picked} in its one call{shown}: {verdict}."
    if len(pairs) == 1:
        ab, ba = pairs[0]
        if ab.mapped_winner == ba.mapped_winner:
            said = "called it a tie" if ab.mapped_winner == "tie" else f"picked {ab.mapped_winner}"
            return f"{entry.judge} {said} in both orders: consistent, {verdict}."
        return (
            f"{entry.judge} picked {ab.mapped_winner} shown AB ({ab.pick} slot) and "
            f"{ba.mapped_winner} shown BA ({ba.pick} slot): inconsistent, so its vote is "
            f"{verdict}."
        )
    votes: Counter[str] = Counter(
        str(ab.mapped_winner) if ab.mapped_winner == ba.mapped_winner else "tie" for ab, ba in pairs
    )
    counted = ", ".join(f"{w} {votes[w]}" for w in VERDICTS if votes[w])
    return f"{entry.judge}'s {len(pairs)} answered swap pairs voted {counted}: {verdict}."


def panel_sentence(answer: ComparisonRead) -> str:
    """The comparison's verdict over its voting judges."""
    if answer.winner is None:
        return f"No verdict (status {answer.status}): no voting judge has a result."
    voters = [j for j in answer.judges if j.role == "voter" and j.result is not None]
    source = f" ({answer.confidence_source})" if answer.confidence_source else ""
    return (
        f"Verdict: {outcome(answer.winner)} with confidence {fmt(answer.confidence)}{source}, "
        f"over {len(voters)} voting judge{'s' if len(voters) != 1 else ''}."
    )


def stored_text(text: str | None, digest: str | None) -> dict[str, str | None]:
    """A stored text, or its HMAC when only that is stored."""
    return {"text": text, "hmac": digest}


async def stored_row(session: AsyncSession, comparison_id: str) -> Comparison:
    """The comparison's row; NotFound, as for an unknown id, when a purge deleted it since."""
    row = await session.get(Comparison, comparison_id)
    if row is None:
        raise NotFound(f"no comparison with id '{comparison_id}'")
    return row


@routes.get("/comparisons/{comparison_id}")
async def show_comparison(
    request: Request,
    viewer: Viewer,
    session: SessionDep,
    settings: SettingsDep,
    keeper: KeeperDep,
    kind: CompareKindDep,
    comparison_id: Annotated[str, Path(max_length=36)],
) -> Response:
    """One comparison: its texts, every call, and how its verdict was reached."""
    if viewer is None:
        return login_redirect(request)
    context: dict[str, Any] = {"view": {"title": "Comparison"}, "page": "comparisons"}
    try:
        answer = await read_job(kind, session, comparison_id, settings.sweep_grace_s)
        row = await stored_row(session, comparison_id)
    except NotFound as missing:
        return html("comparison.html.j2", 404, error=missing.detail, **context)
    calls = await queries.stored_calls(session, comparison_id)
    raw = {key: stored_text(call.raw_output, call.raw_output_hmac) for key, call in calls.items()}
    texts = {
        "prompt": stored_text(row.prompt, row.prompt_hmac),
        "reference": stored_text(row.reference, None),
        "response_a": stored_text(row.response_a, row.response_a_hmac),
        "response_b": stored_text(row.response_b, row.response_b_hmac),
    }
    hashed = keeper.hash_only or any(t["hmac"] for t in texts.values())
    return html(
        "comparison.html.j2",
        error=None,
        c=answer,
        row=row,
        texts=texts,
        raw=raw,
        privacy=hashed,
        privacy_note=PRIVACY_NOTE,
        derivations={entry.judge: derivation(entry) for entry in answer.judges},
        panel=panel_sentence(answer),
        **context,
    )
