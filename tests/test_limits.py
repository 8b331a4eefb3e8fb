"""Every input limit answers a clear problem+json naming the field; nothing is stored."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from sqlalchemy import func, select

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.ledger.models import Comparison

BODY: dict[str, Any] = {"prompt": "p", "response_a": "a", "response_b": "b"}


async def comparisons_stored(url: str) -> int:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        count = await session.scalar(select(func.count()).select_from(Comparison))
    await engine.dispose()
    return int(count or 0)


@pytest.fixture
async def limited(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with small limits, so tests can pass them cheaply."""
    client: httpx2.AsyncClient = await live_factory(
        settings_factory(
            max_text_chars=50,
            max_body_bytes=4000,
            max_panel=2,
            max_sync_calls=4,
            compare_timeout_s=10,
        )
    )
    return client


def assert_problem(
    response: httpx2.Response, status: int, slug: str, pointer: str | None = None
) -> None:
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert problem["type"] == slug
    assert problem["status"] == status
    if pointer is not None:
        assert pointer in problem["detail"]


@pytest.mark.parametrize(
    ("body", "pointer"),
    [
        ({**BODY, "prompt": "x" * 51}, "/prompt"),
        ({**BODY, "response_a": "x" * 51}, "/response_a"),
        ({**BODY, "response_b": {"text": "a\x00b"}}, "/response_b/text"),
        ({**BODY, "prompt": ""}, "/prompt"),
        ({**BODY, "reference": "x" * 51}, "/reference"),
        ({**BODY, "judges": ["sim-a", "sim-a"]}, "/judges"),
        ({**BODY, "protocol": {"kind": "shuffle", "pairs": 7}}, "/protocol/pairs"),
        ({**BODY, "protocol": {"kind": "swap", "pairs": 2}}, "/protocol"),
        ({**BODY, "protocol": {"kind": "best-of-3"}}, "/protocol/kind"),
        ({**BODY, "tags": {f"k{i}": "v" for i in range(17)}}, "/tags"),
        ({**BODY, "tags": {"k" * 65: "v"}}, "/tags"),
        ({**BODY, "tags": {"k": "v" * 257}}, "/tags/k"),
        ({**BODY, "self_preference": "sometimes"}, "/self_preference"),
        ({**BODY, "timeout_s": -1}, "/timeout_s"),
        ({**BODY, "unexpected": 1}, "/unexpected"),
        ({"prompt": "p"}, "/response_a"),
        ({**BODY, "tags": {"k": "a\x00b"}}, "/tags/k"),
        ({**BODY, "criteria": "be \x00 fair"}, "/criteria"),
        ({**BODY, "criteria": [{"name": "x\x00", "weight": 1}]}, "/criteria"),
    ],
)
async def test_invalid_compare_bodies_are_422_naming_the_field(
    limited: httpx2.AsyncClient,
    comparer: dict[str, str],
    clean_pg: str,
    body: dict[str, Any],
    pointer: str,
) -> None:
    assert_problem(
        await limited.post("/v1/compare", headers=comparer, json=body),
        422,
        "validation-error",
        pointer,
    )
    assert await comparisons_stored(clean_pg) == 0


async def test_lone_surrogate_is_422(limited: httpx2.AsyncClient, comparer: dict[str, str]) -> None:
    raw = b'{"prompt": "p", "response_a": "\\ud800", "response_b": "b"}'
    response = await limited.post(
        "/v1/compare", content=raw, headers={**comparer, "content-type": "application/json"}
    )
    assert_problem(response, 422, "validation-error", "/response_a")


async def test_malformed_json_is_400_bad_request(
    limited: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    # PRODUCT.md: a body that is not JSON is 400 `bad-request` (it was 422 before issue 18).
    response = await limited.post(
        "/v1/compare",
        content=b"{not json",
        headers={**comparer, "content-type": "application/json"},
    )
    assert_problem(response, 400, "bad-request")


async def test_unknown_judge_is_422_with_its_pointer(
    limited: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    response = await limited.post(
        "/v1/compare", headers=comparer, json={**BODY, "judges": ["sim-a", "nobody"]}
    )
    assert_problem(response, 422, "validation-error", "/judges/1")


async def test_timeout_over_the_setting_is_422(
    limited: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    response = await limited.post("/v1/compare", headers=comparer, json={**BODY, "timeout_s": 11})
    assert_problem(response, 422, "validation-error", "/timeout_s")


async def test_body_over_the_limit_is_413(
    limited: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    big = {**BODY, "criteria": "c" * 5000}
    assert_problem(
        await limited.post("/v1/compare", headers=comparer, json=big), 413, "payload-too-large"
    )


async def test_streamed_body_over_the_limit_is_413(
    limited: httpx2.AsyncClient, comparer: dict[str, str]
) -> None:
    async def chunks() -> AsyncIterator[bytes]:
        for _ in range(10):
            yield b" " * 1000

    response = await limited.post(
        "/v1/compare", content=chunks(), headers={**comparer, "content-type": "application/json"}
    )
    assert_problem(response, 413, "payload-too-large")


async def test_more_judges_than_the_panel_limit_is_too_many_calls(
    limited: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    response = await limited.post(
        "/v1/compare", headers=comparer, json={**BODY, "judges": ["sim-a", "sim-b", "sim-c"]}
    )
    assert_problem(response, 422, "too-many-calls", "/v1/batches")


async def test_more_planned_calls_than_the_limit_is_too_many_calls(
    limited: httpx2.AsyncClient, comparer: dict[str, str], clean_pg: str
) -> None:
    body = {**BODY, "judges": ["sim-a", "sim-b"], "protocol": {"kind": "shuffle", "pairs": 2}}
    assert_problem(
        await limited.post("/v1/compare", headers=comparer, json=body),
        422,
        "too-many-calls",
        "/v1/batches",
    )
    assert await comparisons_stored(clean_pg) == 0


async def test_no_judge_named_and_no_default_panel_is_422(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
) -> None:
    toml = '[[judges]]\nname = "lonely"\nprovider = "sim"\nmodel = "lonely"\n'
    client = await live_factory(settings_factory(toml))
    assert_problem(
        await client.post("/v1/compare", headers=comparer, json=BODY), 422, "no-judges-configured"
    )


async def test_a_full_pool_sheds_load_with_503_and_retry_after(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    clean_pg: str,
) -> None:
    client = await live_factory(settings_factory(max_pending=1))
    response = await client.post("/v1/compare", headers=comparer, json=BODY)
    assert_problem(response, 503, "service-unavailable")
    assert response.headers["retry-after"]
    assert await comparisons_stored(clean_pg) == 0


async def test_invalid_list_parameters_are_422(
    limited: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    for query in (
        "limit=0",
        "limit=201",
        "tag=nocolon",
        "cursor=%%%",
        "status=odd",
        "since=yesterday",
        "tag=k:%00",
        "since=0001-01-01T00:00:00%2B14:00",
    ):
        response = await limited.get(f"/v1/comparisons?{query}", headers=reader)
        assert_problem(response, 422, "validation-error")


async def test_unknown_route_is_a_404_problem(limited: httpx2.AsyncClient) -> None:
    assert_problem(await limited.get("/v1/nothing-here"), 404, "not-found")
