"""`/dashboard/label`: blind human labeling in the browser (issue 23).

A `label` key (or `admin`) takes the next item of the random labeling queue: complete,
non-placebo traffic comparisons nobody labelled, or, with probability FAIRPAIR_LABEL_OVERLAP,
one someone else labelled exactly once, so that agreement between labelers can be measured.
Never one this labeler labelled. The labeler is the key's id.

Blindness: which response is shown on the left, and the neutral names the two get, come from
an HMAC (a key derived from FAIRPAIR_SECRET_KEY) of the labeler and the comparison id, so that
they are fixed for one labeler and item, balanced over items, and unguessable from the page.
The page never says which response is `response_a`, nor any judge's verdict, nor the models,
families or tags. The form carries a signed token of what was shown (comparison, order, time),
whose order is not readable from it; the POST checks it and stores the label through the labels
service with `shown_first` = the response shown on the left and `from_queue` = true.

Skips accumulate: `?skip=` lists the labeler's latest MAX_SKIPS skipped ids (newest first), which
the draw avoids while anything else is left; the page's token carries the list (the form has no
other state), so that the next skip adds to it and a label keeps it.

Plain forms with `accesskey`s work with JavaScript off; /dashboard/static/label.js adds keys
1/2/3/s as a same-origin script, which only this page's CSP allows (`script-src 'self'`).
"""

from __future__ import annotations

import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Annotated, Literal, cast, get_args
from urllib.parse import parse_qs, urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import RedirectResponse, Response

from app.config import Settings
from app.dashboard.auth import Visitor, check_origin, may_label
from app.dashboard.rendering import SECURITY_HEADERS, html, login_redirect
from app.deps import KeeperDep, SessionDep, SessionmakerDep, SettingsDep
from app.errors import NotFound
from app.labels import service
from app.labels.schemas import LabelIn, Side, Winner
from app.leaderboard.service import LeaderboardCacheDep, LeaderboardQuery, get_leaderboard
from app.ledger.models import Comparison
from app.reports.params import report_filters
from app.textpatterns import compile_linear
from app.winrates.schemas import WinRates
from app.winrates.service import read_win_rates

routes = APIRouter()

PAGE = "/dashboard/label"
CSP = SECURITY_HEADERS["Content-Security-Policy"] + "; script-src 'self'"
TOKEN_LIFETIME_S = 24 * 3600
MAX_NOTE_CHARS = 2000
# Comparison ids are UUIDs; anything else in `?skip=` is no item of ours.
COMPARISON_ID = compile_linear(r"[0-9A-Za-z-]{1,64}")
MAX_SKIPS = 20  # the skipped ids a page remembers; older skips may come back
# Name pairs for the two responses: no letter or word that reads as an order (A/B, 1/2, left).
NEUTRAL_NAMES: tuple[tuple[str, str], ...] = (
    ("Kestrel", "Heron"),
    ("Maple", "Cedar"),
    ("Quartz", "Garnet"),
    ("Harbor", "Meadow"),
    ("Cobalt", "Saffron"),
    ("Juniper", "Willow"),
)
Choice = Literal["left", "right", "tie"]
CHOICES: tuple[str, ...] = get_args(Choice)
PRIVACY_NOTE = (
    "This instance runs in privacy mode (FAIRPAIR_PRIVACY=hash): it stores only salted HMACs of "
    "the prompts and responses, never the texts. Labeling needs the texts, so there is nothing "
    "to label here."
)


class BadForm(ValueError):
    """A labeling form that cannot be taken: forged, expired, another labeler's, malformed."""


@dataclass(frozen=True)
class Display:
    """How one labeler sees one item: the response on the left, and the names left and right."""

    first: Side  # the response shown on the left (A or B)
    names: tuple[str, str]  # (left, right)

    def winner(self, choice: Choice) -> Winner:
        """The stored winner of a choice made on this display."""
        if choice == "tie":
            return "tie"
        second: Side = "B" if self.first == "A" else "A"
        return self.first if choice == "left" else second


@dataclass(frozen=True)
class LabelView:
    """What base.html.j2 reads of a page."""

    title: str = "Label"


def labeling_key(settings: Settings) -> bytes:
    """This instance's key for display orders and form tokens, derived from its secret key
    (so it needs no storage, and a leaked page reveals nothing of the secret)."""
    secret = settings.secret_key.get_secret_value().encode()
    return hmac.new(secret, b"fairpair-dashboard-labeling", hashlib.sha256).digest()


def display_for(key: bytes, labeler: str, comparison_id: str) -> Display:
    """The display of `comparison_id` for `labeler`: a keyed HMAC of both decides the side of
    response A (one bit) and the names (independent bytes), the same on every load."""
    digest = hmac.new(key, f"order\0{labeler}\0{comparison_id}".encode(), hashlib.sha256).digest()
    first: Side = "A" if digest[0] & 1 == 0 else "B"
    pair = NEUTRAL_NAMES[digest[1] % len(NEUTRAL_NAMES)]
    names = pair if digest[2] & 1 == 0 else (pair[1], pair[0])
    return Display(first, names)


def _token_mac(key: bytes, labeler: str, ids: str, first: Side, issued: int) -> str:
    message = f"token\0{labeler}\0{ids}\0{first}\0{issued}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def issue_token(
    key: bytes, labeler: str, comparison_id: str, now: float, skipped: Sequence[str] = ()
) -> str:
    """`<comparison id>[,<skipped id>...].<issue time>.<MAC>`: the MAC covers the labeler, the
    ids and the order shown, which the token does not spell out (the page stays blind to anyone
    reading its source)."""
    issued = int(now)
    ids = ",".join([comparison_id, *skipped])
    first = display_for(key, labeler, comparison_id).first
    return f"{ids}.{issued}.{_token_mac(key, labeler, ids, first, issued)}"


def read_token(key: bytes, labeler: str, token: str, now: float) -> tuple[str, list[str], Display]:
    """The comparison, the ids skipped before it and the display a token vouches for; BadForm
    unless this instance issued it to this labeler for that display within TOKEN_LIFETIME_S."""
    parts = token.rsplit(".", 2)
    if len(parts) != 3 or not parts[1].isdigit() or len(parts[1]) > 12:
        raise BadForm("the form's token is malformed")
    ids, issued, mac = parts[0], int(parts[1]), parts[2]
    comparison_id, *skipped = ids.split(",")
    display = display_for(key, labeler, comparison_id)
    want = _token_mac(key, labeler, ids, display.first, issued)
    if not hmac.compare_digest(want, mac):
        raise BadForm("the form's token was not issued to you for this item")
    if not 0 <= now - issued <= TOKEN_LIFETIME_S:
        raise BadForm("the form has expired; take the next item")
    return comparison_id, skipped, display


def parse_skips(skip: str | None) -> list[str]:
    """The ids of `?skip=` (comma-separated, newest first); BadForm unless each is a comparison
    id and there are at most MAX_SKIPS."""
    if not skip:
        return []
    ids = skip.split(",")
    if len(ids) > MAX_SKIPS or not all(COMPARISON_ID.fullmatch(i) for i in ids):
        raise BadForm(f"?skip= must be at most {MAX_SKIPS} comparison ids, separated by commas")
    return ids


def page_after(skipped: Sequence[str]) -> str:
    """The labeling page that avoids the latest MAX_SKIPS of `skipped` (newest first)."""
    kept = list(dict.fromkeys(skipped))[:MAX_SKIPS]
    return f"{PAGE}?{urlencode({'skip': ','.join(kept)}, safe=',')}" if kept else PAGE


def draw_rng(
    settings: Settings, labeler: str, labelled: int, skipped: Sequence[str]
) -> random.Random:
    """A fresh random draw; with FAIRPAIR_DRAW_SEED (tests, benchmarks) one fixed by the seed,
    the labeler, how many labels they made and what they skipped."""
    if settings.draw_seed is None:
        return random.Random(secrets.randbits(64))
    material = f"{settings.draw_seed}\0{labeler}\0{labelled}\0{','.join(skipped)}".encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:8], "big"))


def labeling_page(status_code: int = 200, **context: object) -> Response:
    """A labeling page with the CSP that admits its same-origin script."""
    context.setdefault("auth", False)
    response = html("label.html.j2", status_code, view=LabelView(), page="label", **context)
    response.headers["Content-Security-Policy"] = CSP
    return response


def refusal_page(settings: Settings, status_code: int, message: str) -> Response:
    """The labeling page saying what is wrong, with the way back to the next item."""
    return labeling_page(status_code, auth=settings.auth == "on", error=message)


@routes.get("/label")
async def show_label(
    request: Request,
    visitor: Visitor,
    session: SessionDep,
    settings: SettingsDep,
    sessionmaker: SessionmakerDep,
    cache: LeaderboardCacheDep,
    keeper: KeeperDep,
    skip: Annotated[str | None, Query(max_length=MAX_SKIPS * 65)] = None,
) -> Response:
    """The next item for this labeler, shown blind, with the progress at the top."""
    if visitor is None:
        return login_redirect(request)
    if not may_label(visitor):
        return refusal_page(settings, 403, "This page needs an API key with the label scope.")
    auth = settings.auth == "on"
    if settings.privacy == "hash":
        return labeling_page(auth=auth, privacy=PRIVACY_NOTE)
    try:
        skipped = parse_skips(skip)
    except BadForm as exc:
        return refusal_page(settings, 422, f"{exc}.")
    labeler = service.labeler_name(visitor)
    progress = await service.labeler_progress(session, labeler)
    rng = draw_rng(settings, labeler, progress.labelled, skipped)
    item = await service.next_item(session, labeler, settings.label_overlap, rng, skipped)
    if item is None and skipped:  # only skipped items are left: they come back
        item = await service.next_item(session, labeler, settings.label_overlap, rng)
    wanted = await labels_wanted(sessionmaker, cache, session, keeper)
    return item_page(settings, labeler, progress, item, skipped, wanted)


async def labels_wanted(
    sessionmaker: SessionmakerDep,
    cache: LeaderboardCacheDep,
    session: SessionDep,
    keeper: KeeperDep,
) -> WinRates | None:
    """The win rates of the second most-played model against the most-played one over the last
    30 days, whose `labels_needed` says how many more queue labels the anchored figure wants;
    None with fewer than two models."""
    board = await get_leaderboard(sessionmaker, cache, LeaderboardQuery())
    ranked = sorted(board.models, key=lambda m: (-m.games, m.model))
    if len(ranked) < 2:
        return None
    filters = report_filters(None, None, None, None, None, None, "day", keeper=keeper)
    return await read_win_rates(session, ranked[1].model, ranked[0].model, filters)


def item_page(
    settings: Settings,
    labeler: str,
    progress: service.LabelerProgress,
    item: Comparison | None,
    skipped: Sequence[str] = (),
    wanted: WinRates | None = None,
) -> Response:
    """The page for `item` (or saying nothing is left): both responses in this labeler's order."""
    auth = settings.auth == "on"
    if item is None:
        return labeling_page(auth=auth, progress=progress, item=None, wanted=wanted)
    key = labeling_key(settings)
    display = display_for(key, labeler, item.id)
    left, right = (
        (item.response_a, item.response_b)
        if display.first == "A"
        else (item.response_b, item.response_a)
    )
    return labeling_page(
        auth=auth,
        progress=progress,
        item=item,
        names=display.names,
        left=left,
        right=right,
        token=issue_token(key, labeler, item.id, time.time(), skipped),
        max_note=MAX_NOTE_CHARS,
        wanted=wanted,
    )


def form_fields(body: bytes) -> dict[str, str]:
    """The form's single-valued fields (a repeated field keeps its first value)."""
    form = parse_qs(body.decode(errors="replace"), keep_blank_values=True)
    return {name: values[0] for name, values in form.items()}


def checked_choice(fields: dict[str, str]) -> Choice | None:
    """The button pressed (None: skip); BadForm when it is none of the page's."""
    choice = fields.get("choice", "")
    if choice == "skip":
        return None
    if choice not in CHOICES:
        raise BadForm("choose left, right, tie or skip")
    return cast(Choice, choice)


def checked_note(fields: dict[str, str]) -> str | None:
    """The optional note, stripped; BadForm past MAX_NOTE_CHARS."""
    note = fields.get("note", "").strip()
    if len(note) > MAX_NOTE_CHARS:
        raise BadForm(f"the note is longer than {MAX_NOTE_CHARS} characters")
    return note or None


@routes.post("/label")
async def post_label(
    request: Request, visitor: Visitor, session: SessionDep, settings: SettingsDep
) -> Response:
    """Store the choice made on the item the token vouches for, then on to the next item."""
    check_origin(request)
    if visitor is None:
        return login_redirect(request)
    if not may_label(visitor):
        return refusal_page(settings, 403, "This page needs an API key with the label scope.")
    if settings.privacy == "hash":
        return labeling_page(auth=settings.auth == "on", privacy=PRIVACY_NOTE)
    labeler = service.labeler_name(visitor)
    fields = form_fields(await request.body())
    try:
        choice = checked_choice(fields)
        note = checked_note(fields)
        comparison_id, skipped, display = read_token(
            labeling_key(settings), labeler, fields.get("token", ""), time.time()
        )
    except BadForm as exc:
        return refusal_page(settings, 422, f"The label was not stored: {exc}.")
    if choice is None:
        return RedirectResponse(page_after([comparison_id, *skipped]), status_code=303)
    body = LabelIn(
        winner=display.winner(choice), labeler=labeler, from_queue=True, shown_first=display.first
    )
    try:
        await service.create_label(session, comparison_id, body, note)
    except NotFound:
        return refusal_page(settings, 404, "That item was deleted meanwhile; take the next one.")
    return RedirectResponse(page_after(skipped), status_code=303)


@cache
def label_script() -> bytes:
    """The page's keyboard shortcuts, read once from the package."""
    return resources.files("app.dashboard").joinpath("static/label.js").read_bytes()


@routes.get("/static/label.js")
async def label_js() -> Response:
    """The labeling page's keyboard shortcuts (same origin, so its CSP may allow it)."""
    return Response(
        label_script(),
        media_type="text/javascript; charset=utf-8",
        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=3600"},
    )
