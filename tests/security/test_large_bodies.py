"""A body over the normal limit is read only for a key that may send one, and never stalls the loop.

`POST /v1/batches` takes bodies up to `FAIRPAIR_MAX_BATCH_BYTES`: the middleware checks the key
and its scope before it reads such a body, validation stops at the item cap, a large body is
checked in a child process (and refused if it holds more JSON values than any valid batch), and
requests that fail authentication are throttled per client.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import signal
import time
from collections.abc import AsyncIterator, Callable
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest

import app.middleware
from app.auth.ratelimit import FailedAuthThrottle, client_network
from app.batches.schemas import BATCH_ITEMS_CAP, ITEM_MAX_VALUES, BatchCreate, batch_max_values
from app.comparisons.schemas import CompareRequest
from app.config import Settings
from app.scoring.schemas import ScoreRequest
from tests.batches.support import compare_item
from tests.conftest import make_key

NORMAL_LIMIT = 4_000
CHUNK = b" " * 1_000
# Deadlock guard only (a check held on the loop would never be released): not a timing.
GUARD_S = 30


class CountedBody:
    """A streamed (chunked) request body that counts the chunks the server pulled from it."""

    def __init__(self, chunks: int) -> None:
        self.chunks = chunks
        self.pulled = 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b'{"items": ['
        for _ in range(self.chunks):
            self.pulled += 1
            yield CHUNK
        yield b"]}"


@pytest.fixture
async def batches(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with a small normal body limit and a 3 MB batch limit."""
    settings = settings_factory(max_body_bytes=NORMAL_LIMIT, max_batch_bytes=3_000_000)
    client: httpx2.AsyncClient = await live_factory(settings)
    return client


async def test_a_large_body_without_a_key_is_401_before_any_of_it_is_read(
    batches: httpx2.AsyncClient,
) -> None:
    body = CountedBody(chunks=1_000)
    answer = await batches.post("/v1/batches", content=body)
    assert answer.status_code == 401, answer.text
    assert answer.json()["type"] == "unauthorized"
    assert body.pulled == 0


async def test_a_large_declared_body_with_an_unknown_key_is_401_unread(
    batches: httpx2.AsyncClient,
) -> None:
    body = CountedBody(chunks=1_000)
    headers = {
        "Authorization": "Bearer fp_0123456789ab_" + "5" * 64,
        "Content-Length": str(1_000_013),
    }
    answer = await batches.post("/v1/batches", content=body, headers=headers)
    assert answer.status_code == 401, answer.text
    assert body.pulled == 0


async def test_a_large_body_with_a_read_key_is_403_before_any_of_it_is_read(
    batches: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    body = CountedBody(chunks=1_000)
    answer = await batches.post("/v1/batches", content=body, headers=reader)
    assert answer.status_code == 403, answer.text
    assert "'compare' or 'score'" in answer.json()["detail"]
    assert body.pulled == 0


async def test_a_small_body_with_a_read_key_is_403_too(
    batches: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    answer = await batches.post("/v1/batches", json={"items": [compare_item(0)]}, headers=reader)
    assert answer.status_code == 403, answer.text


async def test_a_large_body_with_a_compare_key_is_read_and_counted_once(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any], clean_pg: str
) -> None:
    settings = settings_factory(
        max_body_bytes=NORMAL_LIMIT, max_batch_bytes=3_000_000, rate_limit_per_minute=1
    )
    client = await live_factory(settings)
    comparer = await make_key(clean_pg, "comparer", ["compare"])
    items = [compare_item(i, prompt="x" * NORMAL_LIMIT) for i in range(2)]  # over the normal limit
    answer = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    # The middleware admitted the key; the route took its word rather than count it again.
    assert answer.status_code == 202, answer.text
    again = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    assert again.status_code == 429, again.text


async def test_a_body_past_the_item_cap_is_422_without_validating_the_items_past_it(
    batches: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    # Every item past the cap is invalid: validating any of them would report it.
    items: list[Any] = [compare_item(i) for i in range(BATCH_ITEMS_CAP)] + [1] * 5_000
    answer = await batches.post("/v1/batches", json={"items": items}, headers=comparer)
    assert answer.status_code == 422, answer.text
    errors = answer.json()["errors"]
    assert [error["pointer"] for error in errors] == ["/items"]
    assert "at most 10000 items" in errors[0]["message"]


def held_inspect(gate: str, *args: Any) -> Any:
    """In the child: leave its pid in `gate.started`, wait for `gate.release`, then check."""
    Path(f"{gate}.started").write_text(str(os.getpid()))
    waited = 0.0
    while not Path(f"{gate}.release").exists():
        if waited > GUARD_S:
            raise RuntimeError("the test never released the check")
        time.sleep(0.01)
        waited += 0.01
    return app.middleware.inspect_body(*args)


def hung_inspect(gate: str, *args: Any) -> Any:
    """In the child: a check that never ends (until the pool kills it)."""
    Path(f"{gate}.started").write_text(str(os.getpid()))
    time.sleep(3600)


def dying_inspect(gate: str, *args: Any) -> Any:
    """In the child: a check whose process is killed (out of memory, say)."""
    Path(f"{gate}.started").write_text(str(os.getpid()))
    os.kill(os.getpid(), signal.SIGKILL)


def refuse_in_process(check: Callable[..., Any]) -> Callable[..., Any]:
    """`check`, except that it fails on a large body (which only a child may check)."""

    def small_only(headers: Any, body: bytes, *args: Any) -> Any:
        if len(body) > app.middleware.OFF_LOOP_BYTES:
            raise AssertionError("a large body was checked in the API's process")
        return check(headers, body, *args)

    return small_only


def wait_until(done: Callable[[], bool]) -> None:
    """Poll (in a thread: the loop stays free) for what a child does; a deadlock guard only."""
    waited = 0.0
    while not done():
        if waited > GUARD_S:
            raise AssertionError("the child never did it")
        time.sleep(0.01)
        waited += 0.01


def started_pid(gate: Path) -> int:
    """The pid the child left when its check started (after waiting for it)."""
    wait_until(Path(f"{gate}.started").exists)
    return int(Path(f"{gate}.started").read_text())


def release(gate: Path) -> None:
    Path(f"{gate}.release").touch()


def gone(pid: int) -> bool:
    """Whether a process has exited (a zombie, dead but not yet reaped, counts as gone)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


async def test_a_body_of_millions_of_values_is_413_from_a_child_while_the_loop_serves_others(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    client = await live_factory(settings_factory())  # the default limits: 50 MB, 10,000 items
    gate = tmp_path / "gate"
    monkeypatch.setattr(app.middleware, "inspect_body", partial(held_inspect, str(gate)))
    # Neither check may run in this process; nor may FastAPI parse the body.
    for check in ("check_body", "count_json_values"):
        original = getattr(app.middleware, check)
        monkeypatch.setattr(app.middleware, check, refuse_in_process(original))
    values = 5_000_000  # over the 4,320,003 of the largest valid batch
    body = b'{"items": [' + b",".join([b"1"] * values) + b"]}"
    headers = {**comparer, "Content-Type": "application/json"}
    posting = asyncio.create_task(client.post("/v1/batches", content=body, headers=headers))
    assert await asyncio.to_thread(started_pid, gate) != os.getpid()
    # The child holds the check; the loop still answers.
    assert (await client.get("/healthz")).status_code == 200
    assert not posting.done()
    await asyncio.to_thread(release, gate)
    answer = await posting
    assert answer.status_code == 413, answer.text
    assert answer.json()["type"] == "payload-too-large"
    assert f"more than {batch_max_values(BATCH_ITEMS_CAP)} JSON values" in answer.json()["detail"]


async def test_a_large_valid_batch_of_10000_items_is_accepted_after_its_check_in_a_child(
    batches: httpx2.AsyncClient, comparer: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    check_body = app.middleware.check_body
    monkeypatch.setattr(app.middleware, "check_body", refuse_in_process(check_body))
    items = [compare_item(i) for i in range(BATCH_ITEMS_CAP)]
    body = json.dumps({"items": items}).encode()
    assert len(body) > app.middleware.OFF_LOOP_BYTES
    headers = {**comparer, "Content-Type": "application/json"}
    answer = await batches.post("/v1/batches", content=body, headers=headers)
    assert answer.status_code == 202, answer.text
    assert answer.json()["total"] == BATCH_ITEMS_CAP


@pytest.mark.parametrize("fault", [hung_inspect, dying_inspect])
async def test_a_hung_or_killed_check_is_503_and_the_next_large_body_gets_a_new_child(
    fault: Callable[..., Any],
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    # The bound is the product's; generous, so that the faulty check surely starts within it.
    settings = settings_factory(
        max_body_bytes=NORMAL_LIMIT, max_batch_bytes=3_000_000, body_check_timeout_s=10
    )
    client = await live_factory(settings)
    items = [compare_item(i, prompt="x" * 90_000) for i in range(12)]  # 1.08 MB
    # A first large body starts the pool (and the forkserver), as a running server has.
    first = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    assert first.status_code == 202, first.text
    gate = tmp_path / "gate"
    monkeypatch.setattr(app.middleware, "inspect_body", partial(fault, str(gate)))
    answer = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    assert answer.status_code == 503, answer.text
    assert answer.json()["type"] == "service-unavailable"
    assert int(answer.headers["retry-after"]) > 0
    monkeypatch.undo()
    # The faulty child is gone, and a new one checks the next body.
    pid = await asyncio.to_thread(started_pid, gate)
    await asyncio.to_thread(wait_until, partial(gone, pid))
    again = await client.post("/v1/batches", json={"items": items}, headers=comparer)
    assert again.status_code == 202, again.text


def most_values(schema: dict[str, Any], defs: dict[str, Any]) -> float:
    """The most JSON values a document valid under this JSON schema holds (inf if unbounded)."""
    if "$ref" in schema:
        name: str = schema["$ref"].rsplit("/", 1)[1]
        return most_values(defs[name], defs)
    if branches := schema.get("anyOf") or schema.get("oneOf"):
        return max(most_values(branch, defs) for branch in branches)
    if schema.get("type") == "array":
        length: float = schema.get("maxItems", math.inf)
        return 1 + length * most_values(schema.get("items", {}), defs)
    if schema.get("type") == "object":
        fields = sum(most_values(field, defs) for field in schema.get("properties", {}).values())
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict):
            members: float = schema.get("maxProperties", math.inf)
            fields += members * most_values(extra, defs)
        return 1 + fields
    return 1


def test_the_value_bound_is_the_most_a_valid_item_holds_by_the_schema() -> None:
    requests = []
    for model in (CompareRequest, ScoreRequest):
        schema = model.model_json_schema()
        requests.append(most_values(schema, schema.get("$defs", {})))
    # An item is an object with an id and exactly one request (the other null).
    assert ITEM_MAX_VALUES == 3 + max(requests)


def full_score_item(i: int) -> dict[str, Any]:
    """A valid score item with every list and map at its cap and every field given."""
    level = {"description": "d", "anchors": ["a"] * 5}
    return {
        "item_id": f"s{i}",
        "compare": None,
        "score": {
            "prompt": "p",
            "responses": [{"text": "t", "model": "m", "family": "f"}] * 20,
            "rubric": {
                "min": 1,
                "max": 21,
                "levels": [{"score": s, **level} for s in range(1, 22)],
            },
            "criteria": [{"name": f"c{k}", "weight": 1, "description": "d"} for k in range(20)],
            "judges": [f"j{k}" for k in range(50)],
            "self_preference": None,
            "length_normalize": False,
            "length_target": 500,
            "tags": {f"t{k}": "v" for k in range(16)},
            "timeout_s": None,
        },
    }


def test_the_fullest_valid_batch_passes_the_bound_and_one_value_more_does_not() -> None:
    items = [full_score_item(i) for i in range(3)]
    document = {"items": items, "mode": "live"}
    BatchCreate.model_validate(document)
    body = json.dumps(document).encode()
    json_type = {b"content-type": b"application/json"}
    assert app.middleware.inspect_body(json_type, body, batch_max_values(3)) is None
    items[0]["score"]["tags"]["t0"] = ["v"]  # invalid, and one value more
    over = app.middleware.inspect_body(
        json_type, json.dumps(document).encode(), batch_max_values(3)
    )
    assert over is not None
    assert over.status == 413


async def test_requests_failing_authentication_past_the_budget_are_429(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    reader: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(auth_failures_per_minute=3))
    unknown = {"Authorization": "Bearer fp_0123456789ab_" + "5" * 64}
    statuses = [(await client.get("/v1/judges", headers=unknown)).status_code for _ in range(3)]
    assert statuses == [401, 401, 401]
    throttled = await client.get("/v1/judges")
    assert throttled.status_code == 429
    assert throttled.json()["type"] == "rate-limited"
    assert 1 <= int(throttled.headers["retry-after"]) <= 60
    # A valid key is neither counted nor refused by it.
    assert (await client.get("/v1/judges", headers=reader)).status_code == 200


def test_the_throttle_counts_an_ipv6_host_by_its_64_and_forgets_the_oldest_clients() -> None:
    assert client_network("2001:db8:1:2::a") == client_network("2001:db8:1:2:ffff::1")
    assert client_network("2001:db8:1:3::a") != client_network("2001:db8:1:2::a")
    assert client_network("::ffff:192.0.2.1") == "192.0.2.1"
    throttle = FailedAuthThrottle(per_minute=1, max_clients=2)
    assert throttle.failed("192.0.2.1", now=0) is None
    assert throttle.failed("192.0.2.1", now=1) == 59
    throttle.failed("192.0.2.2", now=2)
    throttle.failed("192.0.2.3", now=3)  # the third client pushes out the first
    assert throttle.failed("192.0.2.1", now=4) is None
