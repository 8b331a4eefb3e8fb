"""Issue 6: `POST /v1/comparisons/{id}/labels` and `GET /v1/labeling-queue`."""

from __future__ import annotations

from collections import Counter

import httpx2
import pytest
from scipy import stats

from app.db import create_engine, create_sessionmaker
from app.labels.service import labeling_queue
from tests.conftest import make_key
from tests.labels.builders import Rows, Swap


@pytest.fixture
async def labeler(clean_pg: str) -> dict[str, str]:
    """Headers of a key with the `label` scope only."""
    return await make_key(clean_pg, "labeler", ["label"])


async def stored(clean_pg: str, count: int = 1, **fields: object) -> list[str]:
    """`count` complete comparisons judged by judge-a."""
    rows = Rows()
    ids = [
        rows.comparison(Swap("judge-a", "first", "second"), **fields)  # type: ignore[arg-type]
        for _ in range(count)
    ]
    await rows.insert(clean_pg)
    return ids


async def post_label(
    client: httpx2.AsyncClient,
    headers: dict[str, str],
    comparison_id: str,
    labeler: str | None,
    winner: str,
    **extra: object,
) -> httpx2.Response:
    """A label by `labeler`, or by the key itself when None."""
    body = {"winner": winner, **extra} | ({} if labeler is None else {"labeler": labeler})
    return await client.post(f"/v1/comparisons/{comparison_id}/labels", headers=headers, json=body)


def key_id(headers: dict[str, str]) -> str:
    """The id of the key in `Authorization: Bearer fp_<id>_<secret>`."""
    return headers["Authorization"].split("_")[1]


async def test_a_new_label_by_the_same_labeler_replaces_the_old_one(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    (comparison_id,) = await stored(clean_pg)
    await client.get("/v1/labeling-queue", headers=labeler)  # draws it, so from_queue holds
    first = await post_label(client, labeler, comparison_id, None, "A")
    assert first.status_code == 201, first.text
    assert first.json()["labeler"] == key_id(labeler)
    assert first.json()["gold"] == {
        "winner": "A",
        "disputed": False,
        "labelers": 1,
        "votes": {"A": 1, "B": 0, "tie": 0},
    }
    again = await post_label(client, labeler, comparison_id, key_id(labeler), "B", from_queue=True)
    assert again.status_code == 200, again.text
    body = again.json()
    assert (body["winner"], body["from_queue"], body["gold"]["labelers"]) == ("B", True, 1)
    assert body["created_at"] == first.json()["created_at"] < body["updated_at"]


async def test_a_key_labels_as_itself_unless_it_may_name_labelers(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str], admin: dict[str, str]
) -> None:
    """Issue 37: `labeler` was whatever the client said, so one key could stuff the gold labels
    with any number of "labelers". A `label` key is its own labeler; an `admin` key (a tool
    importing a team's labels) may name others."""
    (comparison_id,) = await stored(clean_pg)
    posing = await post_label(client, labeler, comparison_id, "ann", "A")
    assert posing.status_code == 403
    assert posing.json()["detail"].startswith("/labeler: a key labels as itself")
    for name in ("ann", "bob"):
        named = await post_label(client, admin, comparison_id, name, "B")
        assert (named.status_code, named.json()["labeler"]) == (201, name)
    assert named.json()["gold"]["labelers"] == 2


async def test_from_queue_holds_only_for_what_the_queue_offered_this_key(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str], admin: dict[str, str]
) -> None:
    """Issue 37: `from_queue` marks the random sample the human baseline trusts; a client could
    set it on any comparison it picked. Now it needs a draw the server made for that key."""
    offered, other = await stored(clean_pg, 2)
    unoffered = await post_label(client, labeler, offered, None, "A", from_queue=True)
    assert unoffered.status_code == 422
    assert unoffered.json()["errors"][0]["pointer"] == "/from_queue"
    queue = await client.get("/v1/labeling-queue", headers=labeler, params={"n": 1, "seed": 3})
    drawn = queue.json()["items"][0]["id"]
    not_drawn = other if drawn == offered else offered
    taken = await post_label(client, labeler, drawn, None, "A", from_queue=True)
    assert (taken.status_code, taken.json()["from_queue"]) == (201, True)
    refused = await post_label(client, labeler, not_drawn, None, "A", from_queue=True)
    assert refused.status_code == 422
    # Another key's draw is not this key's.
    by_admin = await post_label(client, admin, drawn, None, "B", from_queue=True)
    assert by_admin.status_code == 422
    assert (await post_label(client, labeler, not_drawn, None, "A")).status_code == 201


@pytest.mark.parametrize(
    ("labels", "gold"),
    [
        (["A", "A", "B"], "A"),
        (["tie", "tie", "A"], "tie"),
        (["A", "A", "B", "tie"], "A"),  # the most labels, though not more than half
        (["A", "B"], None),
        (["A", "B", "tie"], None),
        (["A", "A", "B", "B", "tie"], None),
    ],
)
async def test_gold_is_the_majority_of_distinct_labelers_and_an_even_split_is_disputed(
    client: httpx2.AsyncClient,
    clean_pg: str,
    admin: dict[str, str],
    labels: list[str],
    gold: str | None,
) -> None:
    (comparison_id,) = await stored(clean_pg)
    for i, winner in enumerate(labels):
        response = await post_label(client, admin, comparison_id, f"person-{i}", winner)
    assert response.json()["gold"]["winner"] == gold
    assert response.json()["gold"]["disputed"] is (gold is None)


async def test_labels_need_the_label_scope_an_existing_comparison_and_a_valid_body(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str], reader: dict[str, str]
) -> None:
    (comparison_id,) = await stored(clean_pg)
    forbidden = await post_label(client, reader, comparison_id, "ann", "A")
    assert (forbidden.status_code, forbidden.json()["type"].rsplit("/", 1)[-1]) == (
        403,
        "forbidden",
    )
    missing = await post_label(client, labeler, "no-such-comparison", None, "A")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("application/problem+json")
    for body in (
        {"winner": "C"},
        {"winner": "A", "labeler": "  "},
        {"winner": "A", "labeler": "a\x00"},
        {"labeler": "ann"},
        {"winner": "A", "extra": 1},
    ):
        bad = await client.post(
            f"/v1/comparisons/{comparison_id}/labels", headers=labeler, json=body
        )
        assert bad.status_code == 422, body
    queue = await client.get("/v1/labeling-queue", headers=reader)
    assert queue.status_code == 403


async def test_placebo_failed_and_canary_comparisons_take_no_label(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    """A gold label is a verdict on a real choice that a judge's verdict can be held against
    (issue 37): identical texts have none, a failed comparison has no verdict, and a canary's
    re-run takes its gold from the traffic it copies."""
    rows = Rows()
    refused = {
        "placebo": rows.comparison(Swap("judge-a", "first", "first"), placebo=True),
        "failed": rows.comparison(Swap("judge-a", "first", "second"), status="failed"),
        "drift canary": rows.comparison(Swap("judge-a", "first", "second"), origin="canary"),
    }
    partial = rows.comparison(Swap("judge-a", "first", "second"), status="partial")
    await rows.insert(clean_pg)
    for what, comparison_id in refused.items():
        response = await post_label(client, labeler, comparison_id, None, "A")
        assert response.status_code == 409, (what, response.text)
        problem = response.json()
        assert problem["type"].rsplit("/", 1)[-1] == "conflict"
        assert what in problem["detail"], problem
    assert (await post_label(client, labeler, partial, None, "A")).status_code == 201


async def test_queue_offers_only_unlabelled_complete_comparisons_of_the_judge(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    rows = Rows()
    wanted = {rows.comparison(Swap("judge-a", "first", "second")) for _ in range(3)}
    other_judge = rows.comparison(Swap("judge-b", "first", "second"))
    labelled = rows.comparison(Swap("judge-a", "first", "second"))
    rows.label(labelled, "ann", "A")
    for status in ("running", "partial", "failed"):
        rows.comparison(Swap("judge-a", "first", "second"), status=status)
    rows.comparison(Swap("judge-a", "first", "first"), placebo=True)
    await rows.insert(clean_pg)
    response = await client.get(
        "/v1/labeling-queue", headers=labeler, params={"judge": "judge-a", "n": 50, "seed": 7}
    )
    assert response.status_code == 200, response.text
    page = response.json()
    assert {item["id"] for item in page["items"]} == wanted
    assert (page["available"], page["seed"], page["next_cursor"]) == (3, 7, None)
    item = page["items"][0]
    assert item["response_b"] == "b"
    assert not {"winner", "judges"} & item.keys()  # labelers must not anchor on a verdict
    everyone = (await client.get("/v1/labeling-queue", headers=labeler)).json()
    assert {i["id"] for i in everyone["items"]} == {*wanted, other_judge}


async def test_queue_draw_is_reproducible_with_its_seed(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    await stored(clean_pg, 30)
    draws = [
        (
            await client.get("/v1/labeling-queue", headers=labeler, params={"n": 5, "seed": seed})
        ).json()
        for seed in (1, 1, 2)
    ]
    ids = [[item["id"] for item in draw["items"]] for draw in draws]
    assert ids[0] == ids[1] != ids[2]
    unseeded = (await client.get("/v1/labeling-queue", headers=labeler, params={"n": 5})).json()
    replayed = (
        await client.get(
            "/v1/labeling-queue", headers=labeler, params={"n": 5, "seed": unseeded["seed"]}
        )
    ).json()
    assert replayed["items"] == unseeded["items"]


async def test_queue_seeds_are_integers_json_keeps_exactly(
    client: httpx2.AsyncClient, clean_pg: str, labeler: dict[str, str]
) -> None:
    """A seed past 2**53 - 1 would come back rounded to a JavaScript client, and replaying the
    rounded seed would draw another sample: refused, and never drawn by the server."""
    await stored(clean_pg, 3)
    largest = 2**53 - 1
    kept = await client.get("/v1/labeling-queue", headers=labeler, params={"seed": largest})
    assert (kept.status_code, kept.json()["seed"]) == (200, largest)
    refused = await client.get("/v1/labeling-queue", headers=labeler, params={"seed": largest + 1})
    assert refused.status_code == 422
    assert refused.json()["errors"][0]["pointer"] == "/seed"
    drawn = [
        (await client.get("/v1/labeling-queue", headers=labeler)).json()["seed"] for _ in range(20)
    ]
    assert all(0 <= seed <= largest for seed in drawn)


async def test_queue_is_a_uniform_sample(clean_pg: str) -> None:
    """χ² over 600 draws of 5 out of 20: every comparison equally likely to be offered."""
    ids = await stored(clean_pg, 20)
    engine = create_engine(clean_pg)
    offered: Counter[str] = Counter()
    async with create_sessionmaker(engine)() as session:
        for seed in range(600):
            queue = await labeling_queue(session, None, 5, seed)
            drawn = [item.id for item in queue.items]
            assert len(set(drawn)) == 5
            offered.update(drawn)
    await engine.dispose()
    assert set(offered) == set(ids)
    observed = [offered[i] for i in ids]
    assert stats.chisquare(observed).pvalue > 0.01  # expected 150 each


async def test_operations_have_stable_ids_and_document_both_label_answers(
    client: httpx2.AsyncClient,
) -> None:
    paths = (await client.get("/openapi.json")).json()["paths"]
    create = paths["/v1/comparisons/{comparison_id}/labels"]["post"]
    assert create["operationId"] == "create_label"
    assert {"200", "201", "404", "422"} <= create["responses"].keys()
    assert paths["/v1/labeling-queue"]["get"]["operationId"] == "get_labeling_queue"
