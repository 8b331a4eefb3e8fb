"""The blind labeling page `/dashboard/label` in process: who may label, the draw, the order shown
and its signed token, the stored labels, the report's gold section, privacy mode, bad input."""

from __future__ import annotations

import html
import re
import time
import uuid
from collections.abc import Callable
from typing import Any

import httpx2
import pytest
from scipy.stats import binomtest
from sqlalchemy import select, update

from app.auth.keys import hash_secret
from app.auth.models import ApiKey
from app.config import Settings
from app.dashboard.labeling import (
    CSP,
    MAX_SKIPS,
    NEUTRAL_NAMES,
    display_for,
    issue_token,
    labeling_key,
)
from app.db import create_engine, create_sessionmaker
from app.labels.models import Label
from app.ledger.models import Comparison
from tests.conftest import make_key
from tests.reports.builders import StoredData
from tests.winrates.builders import seeded as winrates_seeded

MODELS = ("secret-model-alpha", "secret-model-beta")
JUDGE = "hidden-judge-j"
TAG_VALUE = "tagvalue-revealing"
ORIGIN = {"Origin": "http://127.0.0.1"}


def response_texts(index: int) -> tuple[str, str]:
    """Distinct texts per item and side, so that a page shows which one is where."""
    return f"Answer alpha number {index}.", f"Answer beta number {index}."


async def seed_items(database_url: str, count: int, *, placebo: int = 2, canary: int = 2) -> None:
    """`count` labelable traffic comparisons with distinct texts, models, a judge's verdict and
    tags; also placebo and canary comparisons, which the page must never offer."""
    data = StoredData()
    for index in range(count + placebo + canary):
        cid = data.comparison(placebo=index >= count + canary, tags={"team": TAG_VALUE})
        text_a, text_b = response_texts(index)
        data.comparisons[-1].update(
            prompt=f"Question number {index}?",
            response_a=text_a,
            response_b=text_a if index >= count + canary else text_b,
            reference=f"Reference number {index}." if index % 3 == 0 else None,
            model_a=MODELS[0],
            model_b=MODELS[1],
            winner="A",
            judge_results={JUDGE: {"winner": "A", "confidence": 0.9}},
            origin="canary" if count <= index < count + canary else "traffic",
        )
        data.swap("first", "second", judge=JUDGE, comparison_id=cid)
    await fixed_ids(data).insert(database_url)


def fixed_ids(data: StoredData) -> StoredData:
    """The same comparison ids on every run (uuid5 of the item's index), so that seeded draws
    and the orders derived from the ids repeat exactly."""
    ids = {
        row["id"]: str(uuid.uuid5(uuid.NAMESPACE_URL, f"fairpair-label-test/{index}"))
        for index, row in enumerate(data.comparisons)
    }
    for row in data.comparisons:
        row["id"] = ids[row["id"]]
    for row in (*data.tags, *data.calls):
        row["comparison_id"] = ids[row["comparison_id"]]
    return data


def item_id(index: int) -> str:
    """The id `fixed_ids` gives the seeded item `index`."""
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"fairpair-label-test/{index}"))


def item_index(text: str) -> int:
    """The seeded item a shown text belongs to ("... number 3." -> 3)."""
    return int(text.split()[-1].rstrip(".?"))


async def strip_texts(database_url: str, purged: int, hashed: int) -> None:
    """Item `purged` loses its texts as `fairpair purge --texts-only` leaves it; item `hashed`
    keeps only HMACs, as a row stored in privacy mode."""
    texts = {"prompt": None, "response_a": None, "response_b": None, "reference": None}
    hmacs = {"prompt_hmac": "1" * 64, "response_a_hmac": "2" * 64, "response_b_hmac": "3" * 64}
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        for index, values in ((purged, texts), (hashed, {**texts, **hmacs})):
            await session.execute(
                update(Comparison).where(Comparison.id == item_id(index)).values(**values)
            )
        await session.commit()
    await engine.dispose()


async def fixed_key(database_url: str, key_id: str, scopes: list[str]) -> dict[str, str]:
    """Headers of a key whose id (so labeler name) is the same on every run."""
    secret = f"{key_id}-secret"
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        session.add(
            ApiKey(id=key_id, name=key_id, secret_sha256=hash_secret(secret), scopes=scopes)
        )
        await session.commit()
    await engine.dispose()
    return {"Authorization": f"Bearer fp_{key_id}_{secret}"}


async def stored_labels(database_url: str) -> list[Label]:
    """Every stored label."""
    engine = create_engine(database_url)
    async with create_sessionmaker(engine)() as session:
        labels = list(await session.scalars(select(Label).order_by(Label.id)))
    await engine.dispose()
    return labels


def shown(page: str, field: str) -> str:
    """The text of a `data-text` (or `data-progress`) element of the page."""
    found = re.search(rf'data-(?:text|progress)="{field}">(.*?)</', page, re.S)
    assert found is not None, field
    return html.unescape(found.group(1))


def token_of(page: str) -> str:
    found = re.search(r'name="token" value="([^"]+)"', page)
    assert found is not None
    return html.unescape(found.group(1))


def side_shown_first(left: str) -> str:
    """A or B: which response the page put on the left (from the seeded texts)."""
    return "A" if "alpha" in left else "B"


def assert_blind(page: str) -> None:
    """Nothing on the page tells the responses' identity or any verdict."""
    for secret in (*MODELS, JUDGE, TAG_VALUE, "response_a", "response_b", "winner", "verdict"):
        assert secret not in page, secret


@pytest.fixture
async def labeler(clean_pg: str) -> dict[str, str]:
    return await make_key(clean_pg, "labeler", ["label"])


@pytest.fixture
def settings(settings_factory: Callable[..., Settings]) -> Settings:
    return settings_factory()


@pytest.fixture
async def app_on(settings: Settings, live_factory: Callable[..., Any]) -> httpx2.AsyncClient:
    client: httpx2.AsyncClient = await live_factory(settings)
    return client


async def label_once(
    app: httpx2.AsyncClient, headers: dict[str, str], choice: str, note: str = ""
) -> tuple[str, str]:
    """Load the page, press `choice`; the left text and the page."""
    page = await app.get("/dashboard/label", headers=headers)
    assert page.status_code == 200, page.text
    left = shown(page.text, "left")
    posted = await app.post(
        "/dashboard/label",
        headers={**headers, **ORIGIN},
        data={"token": token_of(page.text), "choice": choice, "note": note},
    )
    assert posted.status_code == 303, posted.text
    assert posted.headers["location"] == "/dashboard/label"
    return left, page.text


async def test_a_label_key_logs_in_to_the_labeling_page_only(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str], reader: dict[str, str]
) -> None:
    await seed_items(clean_pg, 3)
    token = labeler["Authorization"].removeprefix("Bearer ")
    login = await app_on.post(
        "/dashboard/login", headers=ORIGIN, data={"key": token, "next": "/dashboard"}
    )
    assert login.status_code == 303
    assert login.headers["location"] == "/dashboard/label"
    cookie = {"Cookie": f"fairpair_key={login.cookies['fairpair_key']}"}
    app_on.cookies.clear()
    page = await app_on.get("/dashboard/label", headers=cookie)
    assert page.status_code == 200
    assert 'name="choice" value="left"' in page.text
    overview = await app_on.get("/dashboard", headers=cookie)
    assert overview.status_code == 403
    assert "/dashboard/label" in overview.text

    refused = await app_on.get("/dashboard/label", headers=reader)
    assert refused.status_code == 403
    assert "label scope" in refused.text
    assert 'name="choice"' not in refused.text
    away = await app_on.get("/dashboard/label")
    assert away.status_code == 303
    assert away.headers["location"].startswith("/dashboard/login")


async def test_a_label_is_stored_with_the_order_shown_its_note_and_the_queue_flag(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str], admin: dict[str, str]
) -> None:
    await seed_items(clean_pg, 6)
    page = await app_on.get("/dashboard/label", headers=labeler)
    assert page.headers["content-security-policy"] == CSP
    assert "script-src 'self'" in CSP
    assert "unsafe-inline" not in CSP.split("script-src")[1]
    assert re.findall(r"<script[^>]*>", page.text) == [
        '<script src="/dashboard/static/label.js" defer>'
    ]
    for key in ("1", "2", "3", "s"):
        assert f'accesskey="{key}"' in page.text
    assert_blind(page.text)
    assert shown(page.text, "labelled") == "0"
    assert shown(page.text, "remaining") == "6"
    choices = ("left", "right", "tie", "left", "right", "tie")
    for choice in choices:
        await label_once(app_on, labeler, choice, note=f"because {choice}")
    labels = await stored_labels(clean_pg)
    key_id = labeler["Authorization"].split("_")[1]
    assert len(labels) == 6
    assert len({label.comparison_id for label in labels}) == 6
    for label, choice in zip(labels, choices, strict=True):
        assert label.labeler == key_id
        assert label.from_queue is True
        assert label.note == f"because {choice}"
        second = "B" if label.shown_first == "A" else "A"
        assert label.winner == {"left": label.shown_first, "right": second, "tie": "tie"}[choice]
    done = await app_on.get("/dashboard/label", headers=labeler)
    assert "data-empty" in done.text
    assert shown(done.text, "labelled") == "6"
    assert shown(done.text, "remaining") == "0"
    # The API's queue sees the page's labels like its own.
    queue = (await app_on.get("/v1/labeling-queue", headers=admin)).json()
    assert queue["available"] == 0


async def test_the_left_response_is_the_stored_shown_first(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 8)
    lefts = [(await label_once(app_on, labeler, "left"))[0] for _ in range(8)]
    labels = await stored_labels(clean_pg)
    firsts = [label.shown_first for label in labels]
    assert firsts == [side_shown_first(left) for left in lefts]
    assert [label.winner for label in labels] == firsts  # "left" names the left response


def test_the_display_order_is_balanced_fixed_and_per_labeler(settings: Settings) -> None:
    key = labeling_key(settings)
    pairs = [(f"labeler-{k % 7}", f"comparison-{k}") for k in range(400)]
    displays = [display_for(key, labeler, cid) for labeler, cid in pairs]
    a_left = sum(display.first == "A" for display in displays)
    assert binomtest(a_left, 400, 0.5).pvalue > 0.01
    assert {d.names for d in displays} <= {*NEUTRAL_NAMES, *((b, a) for a, b in NEUTRAL_NAMES)}
    assert displays == [display_for(key, labeler, cid) for labeler, cid in pairs]
    other = [display_for(key, "someone-else", cid).first for _, cid in pairs]
    assert other != [display.first for display in displays]
    # Another instance's secret orders differently: the order is unguessable without it.
    foreign = labeling_key(Settings(secret_key="f" * 64))
    assert [display_for(foreign, *pair).first for pair in pairs] != [d.first for d in displays]


async def test_four_hundred_page_loads_are_balanced_and_blind(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    """400 seeded draws, 400 distinct (labeler, item) pairs: each of 20 labelers is shown each
    of 20 items once (skipping the ones seen), so the 400 orders are independent. Response A
    goes left about half the time, and no page names a model, the judge, a tag or a verdict."""
    await seed_items(clean_pg, 20)
    app = await live_factory(settings_factory(draw_seed=7))
    a_left, pairs = 0, set()
    for k in range(20):
        headers = await fixed_key(clean_pg, f"labeler{k:02d}", ["label"])
        seen: list[str] = []  # newest first, as the skip list
        for _ in range(20):
            page = await app.get(f"/dashboard/label?skip={','.join(seen)}", headers=headers)
            assert page.status_code == 200
            assert_blind(page.text)
            left = shown(page.text, "left")
            a_left += side_shown_first(left) == "A"
            seen.insert(0, item_id(item_index(left)))
            pairs.add((k, seen[0]))
        assert sorted(seen) == sorted(item_id(i) for i in range(20))
    assert len(pairs) == 400
    assert binomtest(a_left, 400, 0.5).pvalue > 0.01


async def test_items_without_their_texts_are_never_offered_nor_counted_as_left(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 6)
    other = await make_key(clean_pg, "other", ["label"])
    once = item_index((await label_once(app_on, other, "left"))[0])  # in the overlap pool
    fresh = next(i for i in range(6) if i != once)
    await strip_texts(clean_pg, purged=once, hashed=fresh)
    page = await app_on.get("/dashboard/label", headers=labeler)
    assert shown(page.text, "remaining") == "4"
    seen = set()
    for _ in range(4):
        left, page_text = await label_once(app_on, labeler, "tie")
        assert "None" not in (left, shown(page_text, "prompt"), shown(page_text, "right"))
        seen.add(item_index(left))
    assert seen == set(range(6)) - {once, fresh}
    done = await app_on.get("/dashboard/label", headers=labeler)
    assert "data-empty" in done.text
    assert shown(done.text, "remaining") == "0"
    assert {label.comparison_id for label in await stored_labels(clean_pg)} == {
        item_id(i) for i in (*seen, once)
    }


async def test_overlap_draws_an_item_another_labeler_labelled_once(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    labeler: dict[str, str],
) -> None:
    await seed_items(clean_pg, 5)
    other = await make_key(clean_pg, "other", ["label"])
    always = await live_factory(settings_factory(label_overlap=1.0))
    never = await live_factory(settings_factory(label_overlap=0.0))
    first_left, _ = await label_once(always, other, "left")  # nothing overlaps yet: a fresh one
    for _ in range(3):
        page = (await always.get("/dashboard/label", headers=labeler)).text
        assert shown(page, "left") in response_texts(int(first_left.split()[-1][:-1]))
        page = (await never.get("/dashboard/label", headers=labeler)).text
        assert shown(page, "left") not in response_texts(int(first_left.split()[-1][:-1]))
    assert shown(page, "remaining") == "5"  # 4 unlabelled, 1 labelled once by another


async def test_two_labelers_disagreeing_shows_in_the_reports_gold_section(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    labeler: dict[str, str],
    reader: dict[str, str],
) -> None:
    await seed_items(clean_pg, 1)
    other = await make_key(clean_pg, "other", ["label"])
    app = await live_factory(settings_factory(label_overlap=1.0))
    await label_once(app, labeler, "tie")
    await label_once(app, other, "left")  # the only item: now labelled twice, A or B vs tie
    for who in (labeler, other):
        page = (await app.get("/dashboard/label", headers=who)).text
        assert "data-empty" in page
        assert shown(page, "agreement").startswith("0 of 1")
    report = (await app.get("/v1/bias-report", headers=reader)).json()
    section = next(j for j in report["judges"] if j["judge"] == JUDGE)["human_agreement"]
    assert section["disputed"] == 1
    assert section["labeler_agreement"] == 0.0


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("token", "forged", "malformed"),
        ("token", "x.1.00", "not issued to you"),
        ("choice", "A", "choose left"),
        ("choice", "", "choose left"),
        ("note", "n" * 2001, "longer than"),
    ],
)
async def test_a_bad_form_gets_a_422_page_and_stores_nothing(
    app_on: httpx2.AsyncClient,
    clean_pg: str,
    labeler: dict[str, str],
    field: str,
    value: str,
    message: str,
) -> None:
    await seed_items(clean_pg, 2)
    page = await app_on.get("/dashboard/label", headers=labeler)
    form = {"token": token_of(page.text), "choice": "left", field: value}
    answer = await app_on.post("/dashboard/label", headers={**labeler, **ORIGIN}, data=form)
    assert answer.status_code == 422
    assert message in answer.text
    assert answer.headers["content-type"].startswith("text/html")
    assert await stored_labels(clean_pg) == []


async def test_tokens_of_another_labeler_or_expired_or_tampered_are_refused(
    app_on: httpx2.AsyncClient, settings: Settings, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 2)
    other = await make_key(clean_pg, "other", ["label"])
    theirs = token_of((await app_on.get("/dashboard/label", headers=other)).text)
    mine = token_of((await app_on.get("/dashboard/label", headers=labeler)).text)
    cid, issued, mac = mine.rsplit(".", 2)
    key_id = labeler["Authorization"].split("_")[1]
    expired = issue_token(labeling_key(settings), key_id, cid, time.time() - 2 * 86400)
    later = f"{cid}.{int(issued) + 1}.{mac}"
    for token in (theirs, expired, later, f"{cid}-x.{issued}.{mac}"):
        answer = await app_on.post(
            "/dashboard/label",
            headers={**labeler, **ORIGIN},
            data={"token": token, "choice": "right"},
        )
        assert answer.status_code == 422, token
        assert "not stored" in answer.text
    assert (
        "expired"
        in (
            await app_on.post(
                "/dashboard/label",
                headers={**labeler, **ORIGIN},
                data={"token": expired, "choice": "right"},
            )
        ).text
    )
    assert await stored_labels(clean_pg) == []


async def test_hostile_input_gets_4xx_never_500(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 1)
    token = token_of((await app_on.get("/dashboard/label", headers=labeler)).text)
    cross = await app_on.post(
        "/dashboard/label",
        headers={**labeler, "Origin": "http://evil.example"},
        data={"token": token, "choice": "left"},
    )
    assert cross.status_code == 403
    for query in ("skip=%00", "skip=" + "x" * 500, "skip=%27%3B--", "skip=a%20b"):
        answer = await app_on.get(f"/dashboard/label?{query}", headers=labeler)
        assert answer.status_code == 422, query
    for body in (b"token=%00&choice=left", b"\xff\xfe", b"choice=left&choice=right", b""):
        answer = await app_on.post(
            "/dashboard/label",
            headers={**labeler, **ORIGIN, "Content-Type": "application/x-www-form-urlencoded"},
            content=body,
        )
        assert answer.status_code == 422, body
    assert await stored_labels(clean_pg) == []


async def test_skip_moves_on_without_a_label(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 2)
    page = await app_on.get("/dashboard/label", headers=labeler)
    left = shown(page.text, "left")
    skipped = await app_on.post(
        "/dashboard/label",
        headers={**labeler, **ORIGIN},
        data={"token": token_of(page.text), "choice": "skip"},
    )
    assert skipped.status_code == 303
    assert skipped.headers["location"].startswith("/dashboard/label?skip=")
    following = await app_on.get(skipped.headers["location"], headers=labeler)
    assert shown(following.text, "left").split()[-1] != left.split()[-1]
    assert await stored_labels(clean_pg) == []


async def skip_shown(
    app: httpx2.AsyncClient, headers: dict[str, str], location: str
) -> tuple[int, str]:
    """Load `location`, press skip; the item shown and where the skip leads."""
    page = await app.get(location, headers=headers)
    assert page.status_code == 200, page.text
    skipped = await app.post(
        "/dashboard/label",
        headers={**headers, **ORIGIN},
        data={"token": token_of(page.text), "choice": "skip"},
    )
    assert skipped.status_code == 303
    return item_index(shown(page.text, "left")), skipped.headers["location"]


async def test_skips_accumulate_so_no_skipped_item_comes_back_while_others_remain(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 3)
    first, location = await skip_shown(app_on, labeler, "/dashboard/label")
    second, location = await skip_shown(app_on, labeler, location)
    assert second != first
    last = ({0, 1, 2} - {first, second}).pop()
    for _ in range(10):  # random draws: the first skip used to come back half the time
        page = await app_on.get(location, headers=labeler)
        assert item_index(shown(page.text, "left")) == last
    # The skips ride along a label, and once only skipped items are left they come back.
    labelled = await app_on.post(
        "/dashboard/label",
        headers={**labeler, **ORIGIN},
        data={"token": token_of(page.text), "choice": "tie"},
    )
    assert labelled.headers["location"] == location
    assert [label.comparison_id for label in await stored_labels(clean_pg)] == [item_id(last)]
    again = await app_on.get(location, headers=labeler)
    assert item_index(shown(again.text, "left")) in {first, second}


async def test_the_skip_list_is_bounded_and_checked(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await seed_items(clean_pg, 2)
    ids = [item_id(i) for i in range(MAX_SKIPS + 1)]
    for query in (",".join(ids), f"{ids[0]},", f"{ids[0]},%00", f"{ids[0]};{ids[1]}"):
        answer = await app_on.get(f"/dashboard/label?skip={query}", headers=labeler)
        assert answer.status_code == 422, query
    page = await app_on.get(f"/dashboard/label?skip={','.join(ids[:MAX_SKIPS])}", headers=labeler)
    assert page.status_code == 200
    assert 'name="choice"' in page.text  # both items skipped: nothing else, so they come back


async def test_privacy_mode_offers_nothing_to_label(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    labeler: dict[str, str],
) -> None:
    await seed_items(clean_pg, 2)
    app = await live_factory(settings_factory(privacy="hash"))
    page = await app.get("/dashboard/label", headers=labeler)
    assert page.status_code == 200
    assert "privacy mode" in page.text
    assert "needs the texts" in page.text
    assert 'name="choice"' not in page.text
    assert "Answer" not in page.text


async def test_with_auth_off_the_labeler_is_the_dashboard(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    await seed_items(clean_pg, 1)
    app = await live_factory(settings_factory(auth="off"))
    await label_once(app, {}, "tie")
    assert [label.labeler for label in await stored_labels(clean_pg)] == ["dashboard"]


async def test_the_shortcut_script_is_served_same_origin_as_javascript(
    app_on: httpx2.AsyncClient,
) -> None:
    script = await app_on.get("/dashboard/static/label.js")
    assert script.status_code == 200
    assert script.headers["content-type"].startswith("text/javascript")
    assert "keydown" in script.text


async def test_the_labeling_page_says_how_many_labels_the_anchored_win_rate_wants(
    app_on: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str], reader: dict[str, str]
) -> None:
    data = winrates_seeded()  # m-new against m-base, 80 labelled from the queue, in 30 days
    await data.rows.insert(clean_pg)
    page = await app_on.get("/dashboard/label", headers=labeler)
    assert page.status_code == 200
    found = re.search(r"<p class=\"muted\" data-labels-needed>(.*?)</p>", page.text, re.S)
    assert found is not None
    wanted = (
        await app_on.get(
            "/v1/win-rates", headers=reader, params={"model": "m-new", "baseline": "m-base"}
        )
    ).json()["labels_needed"]["targets"]
    text = html.unescape(found.group(1))
    assert "m-new" not in text  # blind: no model names on the labeling page
    assert "80 queue labels" in text
    assert f"wants {wanted[0]['more_labels']} more labels for ±5 points" in text
    assert f"and {wanted[1]['more_labels']} more labels for ±2 points" in text
