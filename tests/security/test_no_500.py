"""No input answers 500: NUL, lone surrogates and undecodable bodies are client errors.

Each hostile value is sent where the app reads input: path and query parameters, cursors, the
headers the app reads, JSON string fields and keys, the dashboard login form, and bodies that are
not JSON or that Python's parser refuses (bad UTF-8, deep nesting, 5,000-digit integers). The
answer is a 400 `bad-request` or 422 `validation-error` problem+json. A 500, forced through a
test-only route, is problem+json `internal-error` and its log line has no request text.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx2
import pytest
from fastapi import FastAPI, Request
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import text

from app.config import Settings
from app.main import create_app
from app.middleware import check_json
from tests.conftest import SIM_JUDGES, make_key, write_judges_file
from tests.support.databases import create_database, drop_database, sqlalchemy_url
from tests.support.live import LiveApp

PROBLEM = "application/problem+json"
CLIENT_ERRORS = {400: "bad-request", 422: "validation-error"}
# A NUL byte and the UTF-8-style bytes of a lone surrogate (U+D800), percent-encoded in URLs.
URL_HOSTILE = ("%00", "%ED%A0%80", "a%00b", "%F0%9F", "%FF")
# The same as JSON string escapes: NUL, a lone high and a lone low surrogate.
JSON_HOSTILE = ("\\u0000", "\\ud800", "x\\udfffy", "\\ud800\\u0041")
COMPARE = '{"prompt": "p", "response_a": "a", "response_b": "b"%s}'
UUID = "00000000-0000-0000-0000-000000000000"


@pytest.fixture(scope="module")
async def hostile_app(
    pg_template: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[httpx2.AsyncClient, dict[str, str]]]:
    """One app (auth on, sim judges) on a database of its own for the module's many probes."""
    name = await create_database(template=pg_template)
    url = sqlalchemy_url(name)
    settings = Settings(
        database_url=url,
        secret_key="test-secret-key",
        judges_file=write_judges_file(tmp_path_factory.mktemp("no500"), SIM_JUDGES),
        sweep_interval_s=3600,
        compare_timeout_s=10,
    )
    headers = await make_key(url, "admin", ["admin"])
    try:
        async with LiveApp(create_app(settings)) as live:
            transport = httpx2.ASGITransport(app=live)
            async with httpx2.AsyncClient(
                transport=transport, base_url="http://127.0.0.1", timeout=60
            ) as client:
                yield client, headers
    finally:
        await drop_database(name)


@pytest.fixture
def app(hostile_app: tuple[httpx2.AsyncClient, dict[str, str]]) -> httpx2.AsyncClient:
    """The module's client (cookies cleared)."""
    client = hostile_app[0]
    client.cookies.clear()
    return client


@pytest.fixture
def admin(hostile_app: tuple[httpx2.AsyncClient, dict[str, str]]) -> dict[str, str]:
    """Headers of an admin key of the module's app."""
    return hostile_app[1]


def assert_client_problem(response: httpx2.Response, status: int | None = None) -> None:
    """A 400 or 422 problem+json, never a 5xx."""
    assert response.status_code in CLIENT_ERRORS, (response.status_code, response.text)
    if status is not None:
        assert response.status_code == status, response.text
    assert response.headers["content-type"] == PROBLEM, response.headers
    problem = response.json()
    assert problem["type"] == CLIENT_ERRORS[response.status_code], problem
    assert problem["status"] == response.status_code


# --- path and query parameters ----------------------------------------------------------------

PATHS = (
    ("GET", "/v1/judges/{}"),
    ("PATCH", "/v1/judges/{}"),
    ("GET", "/v1/comparisons/{}"),
    ("POST", "/v1/comparisons/{}/labels"),
    ("GET", "/v1/score-sessions/{}"),
    ("GET", "/v1/batches/{}"),
    ("GET", "/v1/batches/{}/results"),
    ("DELETE", "/v1/batches/{}"),
    ("GET", "/dashboard/charts/{}/x.json"),
    ("GET", "/dashboard/charts/overview/{}.json"),
)


@pytest.mark.parametrize("value", URL_HOSTILE)
@pytest.mark.parametrize(("method", "template"), PATHS)
async def test_hostile_path_parameters_are_client_errors(
    app: httpx2.AsyncClient, admin: dict[str, str], method: str, template: str, value: str
) -> None:
    body = {"winner": "A"} if method in ("POST", "PATCH") else None
    response = await app.request(method, template.format(value), headers=admin, json=body)
    assert_client_problem(response, 422)


QUERIES = (
    "/v1/comparisons?tag=k:{}",
    "/v1/comparisons?tag={}:v",
    "/v1/comparisons?judge={}",
    "/v1/comparisons?cursor={}",
    "/v1/comparisons?since={}",
    "/v1/comparisons?status={}",
    "/v1/bias-report?judge={}",
    "/v1/bias-report?tag=k:{}",
    "/v1/bias-report?rubric={}",
    "/v1/bias-report?protocol={}",
    "/v1/leaderboard?baseline={}",
    "/v1/leaderboard?tag=k:{}",
    "/v1/labeling-queue?judge={}",
    f"/v1/batches/{UUID}/results?cursor={{}}",
    "/dashboard?judge={}",
    "/dashboard?window={}",
    "/dashboard/judge?judge={}",
    "/dashboard/leaderboard?tag=k:{}",
    "/dashboard/login?next={}",
    "/v1/judges?{}=1",
)


@pytest.mark.parametrize("value", URL_HOSTILE)
@pytest.mark.parametrize("template", QUERIES)
async def test_hostile_query_parameters_are_client_errors(
    app: httpx2.AsyncClient, admin: dict[str, str], template: str, value: str
) -> None:
    response = await app.get(template.format(value), headers=admin)
    assert_client_problem(response, 422)


def b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode()


@pytest.mark.parametrize(
    "cursor",
    [
        b64(b"2026-01-01T00:00:00+00:00|a\x00b"),
        b64(b"2026-01-01T00:00:00+00:00|\xed\xa0\x80"),
        b64(b"2026-01-01T00:00:00\x00|" + UUID.encode()),
        b64(b"p1\x00"),
    ],
)
async def test_cursors_hiding_nul_or_surrogates_are_422(
    app: httpx2.AsyncClient, admin: dict[str, str], cursor: str
) -> None:
    response = await app.get("/v1/comparisons", params={"cursor": cursor}, headers=admin)
    assert_client_problem(response, 422)


@pytest.mark.parametrize(
    "cursor",
    [
        b64(b"2026-01-01T00:00:00|" + UUID.encode()),  # naive: no zone
        b64(b"9999-12-31T23:59:59-14:00|" + UUID.encode()),  # past what UTC can hold
        b64(b"0001-01-01T00:00:00+14:00|" + UUID.encode()),
        b64(b"2026-01-01T00:00:00+00:00|not-a-uuid"),
        b64(b"p" + b"9" * 5000),
        b64(b"p-1"),
    ],
)
async def test_forged_cursors_never_answer_5xx(
    app: httpx2.AsyncClient, admin: dict[str, str], cursor: str
) -> None:
    for route in ("/v1/comparisons", f"/v1/batches/{UUID}/results"):
        response = await app.get(route, params={"cursor": cursor}, headers=admin)
        assert response.status_code < 500, (route, response.text)
        if response.status_code >= 400:
            assert response.headers["content-type"] == PROBLEM


# --- headers ----------------------------------------------------------------------------------

HEADER_HOSTILE = (b"a\x00b", b"\x00", b"\xed\xa0\x80", b"\xff")


@pytest.mark.parametrize("value", HEADER_HOSTILE)
@pytest.mark.parametrize(
    ("route", "body"),
    [
        ("/v1/compare", json.loads(COMPARE % "")),
        ("/v1/score", {"prompt": "p", "responses": ["a"]}),
        ("/v1/batches", {"items": [{"compare": json.loads(COMPARE % "")}]}),
    ],
)
async def test_hostile_idempotency_keys_are_client_errors(
    app: httpx2.AsyncClient, admin: dict[str, str], route: str, body: Any, value: bytes
) -> None:
    headers = [(k.encode(), v.encode()) for k, v in admin.items()] + [(b"Idempotency-Key", value)]
    response = await app.post(route, headers=headers, json=body)
    assert_client_problem(response, 422)


@pytest.mark.parametrize("value", HEADER_HOSTILE)
@pytest.mark.parametrize(
    ("name", "prefix", "route"),
    [
        ("Authorization", b"Bearer fp_", "/v1/judges"),
        ("Authorization", b"Bearer ", "/v1/comparisons"),
        ("Authorization", b"Bearer ", "/dashboard"),
        ("Cookie", b"fairpair_key=", "/dashboard"),
        ("X-Request-ID", b"", "/healthz"),
        ("Origin", b"http://127.0.0.1", "/dashboard/logout"),
        ("Sec-Fetch-Site", b"", "/dashboard/logout"),
        ("X-Forwarded-Proto", b"https", "/dashboard/logout"),
        ("Content-Type", b"application/json", "/v1/compare"),
    ],
)
async def test_hostile_headers_are_client_errors(
    app: httpx2.AsyncClient, name: str, prefix: bytes, route: str, value: bytes
) -> None:
    method = "POST" if route in ("/dashboard/logout", "/v1/compare") else "GET"
    response = await app.request(
        method, route, headers=[(name.encode(), prefix + value)], content=COMPARE % ""
    )
    assert_client_problem(response, 422)


# --- JSON string fields and keys --------------------------------------------------------------

JSON_BODIES = (
    ("POST", "/v1/compare", COMPARE % ', "criteria": "c@"'),
    ("POST", "/v1/compare", COMPARE % ', "tags": {"k@": "v"}'),
    ("POST", "/v1/compare", COMPARE % ', "tags": {"k": "v@"}'),
    ("POST", "/v1/compare", COMPARE % ', "judges": ["sim-a@"]'),
    ("POST", "/v1/compare", COMPARE % ', "x@": 1'),
    ("POST", "/v1/compare", COMPARE % ', "criteria": [{"name": "n@", "weight": 1}]'),
    (
        "POST",
        "/v1/compare",
        '{"prompt": "p", "response_a": {"text": "a", "model": "m@"}, "response_b": "b"}',
    ),
    (
        "POST",
        "/v1/compare",
        '{"prompt": "p", "response_a": {"text": "a", "family": "f@"}, "response_b": "b"}',
    ),
    ("POST", "/v1/score", '{"prompt": "p", "responses": ["a@"]}'),
    ("POST", "/v1/score", '{"prompt": "p", "responses": ["a"], "criteria": "c@"}'),
    ("POST", "/v1/score", '{"prompt": "p", "responses": [{"text": "a", "model": "m@"}]}'),
    ("POST", "/v1/score", '{"prompt": "p", "responses": ["a"], "tags": {"k": "v@"}}'),
    ("POST", "/v1/batches", '{"items": [{"item_id": "i@", "compare": ' + COMPARE % "" + "}]}"),
    ("POST", "/v1/batches", '{"items": [{"compare": ' + COMPARE % ', "tags": {"k@": "v"}' + "}]}"),
    ("POST", "/v1/judges", '{"name": "j@", "provider": "sim", "model": "m"}'),
    ("POST", "/v1/judges", '{"name": "j", "provider": "sim", "model": "m@"}'),
    ("POST", "/v1/judges", '{"name": "j", "provider": "sim", "model": "m", "family": "f@"}'),
    (
        "POST",
        "/v1/judges",
        '{"name": "j", "provider": "openai", "model": "m", '
        '"base_url": "http://127.0.0.1/@", "api_key": "k"}',
    ),
    (
        "POST",
        "/v1/judges",
        '{"name": "j", "provider": "openai", "model": "m", '
        '"base_url": "http://127.0.0.1/", "api_key": "k@"}',
    ),
    (
        "POST",
        "/v1/judges",
        '{"name": "j", "provider": "sim", "model": "m", '
        '"templates": {"pairwise_user": "{{ prompt }}@"}}',
    ),
    (
        "POST",
        "/v1/judges",
        '{"name": "j", "provider": "sim", "model": "m", "sim": {"offsets": {"m@": 1}}}',
    ),
    ("PATCH", "/v1/judges/sim-a", '{"model": "m@"}'),
    ("PATCH", "/v1/judges/sim-a", '{"family": "f@"}'),
    ("POST", f"/v1/comparisons/{UUID}/labels", '{"winner": "A", "labeler": "l@"}'),
)


@pytest.mark.parametrize("value", JSON_HOSTILE)
@pytest.mark.parametrize(("method", "route", "template"), JSON_BODIES)
async def test_hostile_json_strings_are_client_errors(
    app: httpx2.AsyncClient,
    admin: dict[str, str],
    method: str,
    route: str,
    template: str,
    value: str,
) -> None:
    body = template.replace("@", value)
    response = await app.request(
        method, route, content=body, headers={**admin, "Content-Type": "application/json"}
    )
    if response.status_code == 404:  # the label's comparison does not exist: nothing stored
        assert response.headers["content-type"] == PROBLEM
        return
    assert_client_problem(response, 422)


# --- the dashboard login form -----------------------------------------------------------------


@pytest.mark.parametrize(
    "form",
    [
        b"key=%00",
        b"key=fp_a%00b_c",
        b"key=%ED%A0%80",
        b"key=x&next=/dashboard%00",
        b"key=x&next=/dashboard/%ED%A0%80",
        b"key=\x00",
        b"key=\xed\xa0\x80",
        b"ke%00y=x",
    ],
)
@pytest.mark.parametrize(
    "content_type",
    ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data; boundary=x"],
)
async def test_hostile_login_forms_are_client_errors(
    app: httpx2.AsyncClient, form: bytes, content_type: str
) -> None:
    # The login reads any body as a form, whatever its Content-Type says.
    response = await app.post(
        "/dashboard/login", content=form, headers={"Content-Type": content_type}
    )
    assert_client_problem(response, 422)


# --- bodies that are not JSON or that Python's decoder refuses --------------------------------

BAD_BODIES = {
    "not-json": b"{not json",
    "truncated": b'{"prompt": "p", "response_a": "a", "response_b": "b"',
    "bad-utf8": b'{"prompt": "p\xff", "response_a": "a", "response_b": "b"}',
    "surrogate-bytes": b'{"prompt": "p\xed\xa0\x80", "response_a": "a", "response_b": "b"}',
    "nul-byte": b'{"prompt": "p\x00", "response_a": "a", "response_b": "b"}',
    "deep-arrays": b"[" * 10_000 + b"]" * 10_000,
    "deep-objects": b'{"a":' * 10_000 + b"1" + b"}" * 10_000,
    "deep-in-field": (COMPARE % ', "tags": %s').encode() % (b"[" * 10_000 + b"]" * 10_000),
    "huge-int": (COMPARE % ', "timeout_s": %s').encode() % (b"9" * 5000),
    "huge-negative-int": b'{"winner": "A", "x": -' + b"1" * 5000 + b"}",
    "huge-float-exponent": (COMPARE % ', "timeout_s": 1e%s').encode() % (b"9" * 5000),
    "nan": (COMPARE % ', "timeout_s": NaN').encode(),
}
JSON_ROUTES = (
    ("POST", "/v1/compare"),
    ("POST", "/v1/score"),
    ("POST", "/v1/batches"),
    ("POST", "/v1/judges"),
    ("PATCH", "/v1/judges/sim-a"),
    ("POST", f"/v1/comparisons/{UUID}/labels"),
)


@pytest.mark.parametrize("kind", BAD_BODIES)
@pytest.mark.parametrize(("method", "route"), JSON_ROUTES)
async def test_undecodable_bodies_are_400_bad_request(
    app: httpx2.AsyncClient, admin: dict[str, str], method: str, route: str, kind: str
) -> None:
    response = await app.request(
        method,
        route,
        content=BAD_BODIES[kind],
        headers={**admin, "Content-Type": "application/json"},
    )
    if kind in ("nan", "huge-float-exponent") and response.status_code == 422:
        return  # NaN and infinity parse (Python accepts both); the field's own check refuses them
    assert_client_problem(response, 400)


@pytest.mark.parametrize("content_type", ["text/plain", "application/xml", None])
async def test_a_body_that_is_not_json_is_400_bad_request(
    app: httpx2.AsyncClient, admin: dict[str, str], content_type: str | None
) -> None:
    headers = {**admin, **({"Content-Type": content_type} if content_type else {})}
    response = await app.post("/v1/compare", content=b"<compare/>", headers=headers)
    assert_client_problem(response, 400)


# The middleware's pre-filter (a regex over the raw body) must never miss what parsing finds.
JSON_TOKENS = (
    "\\\\",
    "\\u0000",
    "\\ud800",
    "\\udbff",
    "\\udc00",
    "\\uDFFF",
    "\\ud83d\\ude00",
    "\\u0041",
    '\\"',
    "a",
    "u",
    "d800",
    "\x00",
)


@given(st.lists(st.sampled_from(JSON_TOKENS), min_size=1, max_size=10))
@settings(max_examples=2000, deadline=None, database=None, derandomize=True)
def test_the_body_check_finds_every_nul_and_lone_surrogate(tokens: list[str]) -> None:
    source = ('{"k": "' + "".join(tokens) + '"}').encode()
    try:
        value = json.loads(source)["k"]
    except ValueError:
        return  # not JSON: FastAPI's parser answers 400
    exact = "\x00" in value or any(0xD800 <= ord(c) <= 0xDFFF for c in value)
    refused = check_json(source)
    assert (refused is not None) == exact, source
    if refused is not None and b"\x00" not in source:
        assert (refused.status, refused.pointer) == (422, "/k")


# --- status slugs -----------------------------------------------------------------------------


async def test_405_is_method_not_allowed(app: httpx2.AsyncClient, admin: dict[str, str]) -> None:
    """`Allow` lists every method the path takes: FastAPI makes one route per method, and
    Starlette's own header named only the first (`GET` for `/v1/judges`)."""
    for method, route, allowed in (
        ("PUT", "/v1/compare", "POST"),
        ("DELETE", "/v1/judges", "GET, POST"),
        ("PUT", "/v1/judges/sim-a", "GET, PATCH"),
        ("PUT", "/v1/batches/x", "GET, DELETE"),
        ("POST", "/healthz", "GET"),
    ):
        response = await app.request(method, route, headers=admin)
        assert response.status_code == 405
        assert response.headers["content-type"] == PROBLEM
        assert response.json()["type"] == "method-not-allowed"
        assert response.headers["allow"] == allowed, route
        assert response.json()["detail"].endswith(f"allowed: {allowed}")


async def test_unknown_routes_are_404_problems(app: httpx2.AsyncClient) -> None:
    for route in ("/v1/nothing", "/nothing%00", "/v1/%ED%A0%80"):
        response = await app.get(route)
        assert response.status_code in (404, 422), response.text
        assert response.headers["content-type"] == PROBLEM


# --- a 500 --------------------------------------------------------------------------------------

BODY_SECRET = "body-text-that-must-not-be-logged"
SQL_SECRET = "sql-parameter-that-must-not-be-logged"


def add_failing_routes(app: FastAPI) -> None:
    """Test-only routes that fail in ways no handler expects."""

    async def raise_with_body(request: Request) -> None:
        raise RuntimeError((await request.body()).decode())

    async def bad_sql(request: Request) -> None:
        async with request.state.sessionmaker() as session:
            await session.execute(text("SELECT CAST(:value AS integer)"), {"value": SQL_SECRET})

    app.add_api_route("/test-only/raise", raise_with_body, methods=["POST"])
    app.add_api_route("/test-only/sql", bad_sql, methods=["POST"])


@pytest.mark.parametrize("route", ["/test-only/raise", "/test-only/sql"])
async def test_a_500_is_problem_json_and_logs_no_request_text(
    settings_factory: Callable[..., Settings],
    capsys: pytest.CaptureFixture[str],
    route: str,
) -> None:
    application = create_app(settings_factory())
    add_failing_routes(application)
    async with LiveApp(application) as live:
        transport = httpx2.ASGITransport(app=live, raise_app_exceptions=False)
        async with httpx2.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client:
            capsys.readouterr()
            response = await client.post(
                route, content=BODY_SECRET, headers={"X-Request-ID": "req-500-test"}
            )
    assert response.status_code == 500
    assert response.headers["content-type"] == PROBLEM
    problem = response.json()
    assert problem["type"] == "internal-error"
    assert problem["status"] == 500
    assert BODY_SECRET not in response.text
    assert SQL_SECRET not in response.text
    logged = capsys.readouterr()
    output = logged.err + logged.out
    assert BODY_SECRET not in output
    assert SQL_SECRET not in output
    lines = [json.loads(line) for line in logged.err.splitlines() if line.startswith("{")]
    errors = [line for line in lines if line.get("event") == "internal_error"]
    assert len(errors) == 1, lines
    assert errors[0]["request_id"] == "req-500-test"
    assert errors[0]["error"] in ("RuntimeError", "DataError", "DBAPIError")
    assert errors[0]["level"] == "error"
