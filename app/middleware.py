"""ASGI middleware: request ids, the body size limit, unreadable input refused, bugs as 500s.

One rule for text at the boundary, before routing: no NUL and no lone surrogate anywhere the app
reads (path, query, headers, JSON strings and keys, form fields), because PostgreSQL refuses NUL
in text and UTF-8 cannot encode a lone surrogate: either would otherwise fail deep inside a
query, as a 500. Such values are 422 `validation-error` naming where they were; a JSON body that
is not UTF-8 is 400 `bad-request` (FastAPI's parser answers the other undecodable bodies, see
app/problems.py). Anything a handler did not expect becomes a 500 problem whose log line names the
exception's type and place, never its message (which may quote the request or SQL parameters).
A path that takes bodies over the normal limit (`POST /v1/batches`) checks the caller's key and
scope before it reads one (`LargeBodies`): an outsider's 50 MB is never read, let alone parsed.
Bodies over 1 MB are checked in a child process (`inspect_body`): CPython's JSON parser holds
the GIL for a whole parse, so a thread would not free the loop. There a large path's body is also
refused (413) when it holds more JSON values than the path's largest valid body, so what FastAPI
then parses on the loop is bounded. A request cancelled before its answer started (server
shutdown) is answered 503. A request the HTTP parser itself refuses (a bad request line, header
or Content-Length) never reaches the app: `ProblemHttpProtocol` makes uvicorn answer it with the
same 400 `bad-request` problem.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote_to_bytes

import structlog
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from app.deps import admit, body_checks
from app.errors import AppError, BadRequest, PayloadTooLarge, ServiceUnavailable, ValidationProblem
from app.fields import encodes_as_utf8
from app.jsonvalues import count_json_values
from app.problems import (
    PROBLEM_JSON,
    handle_app_error,
    internal_error,
    json_pointer,
    log_internal_error,
    problem,
)
from app.textpatterns import compile_linear

log = structlog.get_logger()

# Headers the app reads (auth, idempotency, the dashboard's session, CSRF and https checks, the
# request id): their values must be UTF-8. No header at all may carry a NUL.
READ_HEADERS = frozenset(
    {
        b"authorization",
        b"content-type",
        b"cookie",
        b"host",
        b"idempotency-key",
        b"origin",
        b"sec-fetch-site",
        b"x-forwarded-proto",
        b"x-request-id",
    }
)
# A JSON escape that may decode to NUL or to half of a surrogate pair (or sits inside an escaped
# backslash: it misses nothing). Most bodies hold none, so the exact check (parse, then walk the
# strings) runs only then; an emoji escaped by `ensure_ascii` is a pair and costs that walk.
# A literal prefix and no quantifier: scanned at memchr speed (RE2 is ~2x faster than `re` here).
SUSPECT_ESCAPE = compile_linear(r"\\u(?:0000|[dD][89a-fA-F])")
# A client's request id is echoed in a header and in every log line: only a plain token is kept.
REQUEST_ID = compile_linear(r"[A-Za-z0-9._:-]{1,64}")
NUL = "must not contain NUL bytes"
NOT_UTF8 = "must be UTF-8 (no lone surrogates)"
# RFC 6265 allows no backslash in a cookie, and Python before 3.11.10 unquotes a quoted cookie
# value (Starlette's `request.cookies`) in time quadratic in its backslashes (CVE-2024-7592):
# 16,000 of them held the event loop for 0.6 s, 64,000 for 10 s.
COOKIE_BACKSLASH = "must not contain a backslash (RFC 6265)"
# A body larger than this is checked in a child process, so the loop serves others meanwhile
# (docs/DECISIONS.md, "Large bodies before authentication").
OFF_LOOP_BYTES = 1_000_000


@dataclass(frozen=True)
class LargeBodies:
    """A path's own body limit over the normal one, the scopes of the keys it reads one for, and
    the most JSON values its largest valid body holds."""

    max_bytes: int
    scopes: tuple[str, ...]
    max_values: int


@dataclass(frozen=True)
class Refusal:
    """Why a request is refused before routing, and where (`in` and a JSON pointer)."""

    status: int
    where: str
    pointer: str
    message: str

    def response(self, path: str) -> JSONResponse:
        """The problem+json answer."""
        detail = f"{self.pointer}: {self.message}" if self.pointer else self.message
        if self.status == BadRequest.status:
            return problem(400, BadRequest.slug, BadRequest.title, detail, instance=path)
        if self.status == PayloadTooLarge.status:
            return problem(413, PayloadTooLarge.slug, PayloadTooLarge.title, detail, instance=path)
        error = {"pointer": self.pointer or "/", "in": self.where, "message": self.message}
        return problem(
            422,
            ValidationProblem.slug,
            ValidationProblem.title,
            detail,
            instance=path,
            errors=[error],
        )


def unreadable(data: bytes) -> str | None:
    """Why these (decoded) bytes are no text the app may take, or None."""
    if b"\x00" in data:
        return NUL
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return NOT_UTF8
    return None


def bad_text(text: str) -> str | None:
    """Why a decoded string is no text the app may take, or None."""
    if "\x00" in text:
        return NUL
    return None if encodes_as_utf8(text) else NOT_UTF8


def shown(raw: bytes) -> str:
    """A name from the request, printable in a pointer."""
    return raw.decode("utf-8", "backslashreplace").replace("\x00", "\\x00")


def check_pairs(data: bytes, where: str) -> Refusal | None:
    """A query string or urlencoded form: each name and value, percent-decoded."""
    if data.isascii() and b"%" not in data and b"\x00" not in data:
        return None
    for pair in data.split(b"&"):
        name, _, value = pair.partition(b"=")
        name, value = (unquote_to_bytes(part.replace(b"+", b" ")) for part in (name, value))
        reason = unreadable(name) or unreadable(value)
        if reason is not None:
            return Refusal(422, where, json_pointer((where, shown(name))), reason)
    return None


def check_headers(headers: list[tuple[bytes, bytes]]) -> Refusal | None:
    """No NUL in any header; UTF-8 in the ones the app reads."""
    for name, value in headers:
        reason = unreadable(value) if name in READ_HEADERS else (NUL if b"\x00" in value else None)
        if name == b"cookie" and b"\\" in value:
            reason = COOKIE_BACKSLASH
        if reason is not None:
            return Refusal(422, "header", json_pointer(("header", shown(name))), reason)
    return None


def check_json(body: bytes) -> Refusal | None:
    """UTF-8 without NUL bytes, and no string or key that decodes to NUL or a lone surrogate."""
    if b"\x00" in body or (not body.isascii() and unreadable(body) is not None):
        return Refusal(400, "body", "", "the body is not UTF-8 JSON")
    if SUSPECT_ESCAPE.search_bytes(body) is None:
        return None
    try:
        document = json.loads(body)
    except (ValueError, RecursionError):
        return None  # FastAPI's parser refuses it the same way: 400 bad-request
    return first_bad_string(document)


def first_bad_string(document: Any) -> Refusal | None:
    """A string or key holding NUL or a lone surrogate, with its pointer (iterative: no depth)."""
    stack: list[tuple[tuple[str | int, ...], Any]] = [((), document)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str) and (reason := bad_text(node)):
            return Refusal(422, "body", json_pointer(("body", *path)), reason)
        if isinstance(node, dict):
            for key, value in node.items():
                if reason := bad_text(key):
                    pointer = json_pointer(("body", *path, shown(key.encode("utf-8", "replace"))))
                    return Refusal(422, "body", pointer, f"a key {reason}")
                stack.append(((*path, key), value))
        elif isinstance(node, list):
            stack.extend(((*path, i), item) for i, item in enumerate(node))
    return None


def check_body(headers: dict[bytes, bytes], body: bytes) -> Refusal | None:
    """JSON bodies as JSON; every other body as a form (the dashboard login reads any as one)."""
    if not body:
        return None
    if is_json(headers):
        return check_json(body)
    return check_pairs(body, "body")  # no route takes files: a multipart body is read so too


def check_target(scope: Scope) -> Refusal | None:
    """The path (from its raw bytes when the server gives them) and the query string."""
    raw_path: bytes = scope.get("raw_path") or scope["path"].encode("utf-8", "surrogatepass")
    reason = unreadable(unquote_to_bytes(raw_path))
    if reason is not None:
        return Refusal(422, "path", "", f"the path {reason}")
    return check_pairs(scope.get("query_string", b""), "query")


def may_exceed(headers: dict[bytes, bytes], limit: int) -> bool:
    """Whether the body may be larger than `limit`: declared so, or of a length not declared."""
    length = headers.get(b"content-length")
    if length is None:
        return b"transfer-encoding" in headers
    return not length.isdigit() or int(length) > limit


def is_json(headers: dict[bytes, bytes]) -> bool:
    """Whether the body is read as JSON (no media type, `*/json` or `*/*+json`)."""
    media_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    return not media_type or media_type.endswith((b"/json", b"+json"))


def inspect_body(
    headers: dict[bytes, bytes], body: bytes, max_values: int | None
) -> Refusal | None:
    """In a child process: at most `max_values` JSON values (counted before any parse), then
    `check_body`. It returns only the verdict: the parent parses the body again, bounded."""
    if max_values is not None and is_json(headers):
        if count_json_values(body, max_values) > max_values:
            message = f"more than {max_values} JSON values: no valid body holds that many"
            return Refusal(413, "body", "", message)
    return check_body(headers, body)


class RequestContextMiddleware:
    """Binds a request id, limits the body, and logs one line per request."""

    def __init__(
        self,
        app: ASGIApp,
        max_body_bytes: int,
        large_bodies: Mapping[str, LargeBodies] | None = None,
    ) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        # Paths that take larger bodies from some keys (`POST /v1/batches`: batch-submitting ones,
        # up to FAIRPAIR_MAX_BATCH_BYTES).
        self.large_bodies = dict(large_bodies or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        given = headers.get(b"x-request-id", b"").decode("latin-1")
        request_id = given if REQUEST_ID.fullmatch(given) else uuid.uuid4().hex
        structlog.contextvars.clear_contextvars()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        started = time.perf_counter()
        status: dict[str, Any] = {"code": None, "sent": False}  # None: the client went away

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"], status["sent"] = message["status"], True
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode("latin-1")),
                ]
            await send(message)

        try:
            await self._serve(scope, headers, receive, send_with_id)
        except Exception as exc:  # a bug: answered here, so no server logs its message
            log_internal_error(exc)
            if not status["sent"]:
                response = internal_error(scope["path"], request_id)
                await response(scope, receive, send_with_id)
        finally:
            log.info(
                "request",
                method=scope["method"],
                path=scope["path"],
                status=status["code"],
                duration_ms=round((time.perf_counter() - started) * 1000, 2),
            )

    async def _serve(
        self, scope: Scope, headers: dict[bytes, bytes], receive: Receive, send: Send
    ) -> None:
        """Refuse unreadable input, or a large body from a caller not admitted, else serve."""
        refused = check_target(scope) or check_headers(scope["headers"])
        if refused is not None:
            await refused.response(scope["path"])(scope, receive, send)
            return
        limit = await self._limit(scope, headers)
        if isinstance(limit, Response):
            await limit(scope, receive, send)
            return
        body = await self._read_body(headers, receive, limit)
        if body is None:
            await self._reject(scope, receive, send, limit)
            return
        try:
            refused = await self._check(scope, headers, body)
        except AppError as exc:  # the child died or ran past its bound: 503, Retry-After
            await (await handle_app_error(Request(scope), exc))(scope, receive, send)
            return
        if refused is not None:
            await refused.response(scope["path"])(scope, receive, send)
        else:
            await self.app(scope, self._replay(body, receive), send)

    async def _check(
        self, scope: Scope, headers: dict[bytes, bytes], body: bytes
    ) -> Refusal | None:
        """`check_body` on the loop for a small body; `inspect_body` in a child for a large one."""
        if len(body) <= OFF_LOOP_BYTES:
            return check_body(headers, body)
        large = self.large_bodies.get(scope["path"])
        max_values = None if large is None else large.max_values
        media_type = {b"content-type": headers.get(b"content-type", b"")}  # not the key
        return await body_checks(Request(scope)).run(inspect_body, media_type, body, max_values)

    async def _limit(self, scope: Scope, headers: dict[bytes, bytes]) -> int | Response:
        """This request's body limit, or the answer to a caller a large body is not read for.

        The key and scope are checked before any of a body that may pass the normal limit is
        read: a body declared within it keeps that limit and goes the usual way.
        """
        large = self.large_bodies.get(scope["path"])
        if large is None or not may_exceed(headers, self.max_body_bytes):
            return self.max_body_bytes
        request = Request(scope)
        try:
            await admit(request, large.scopes)
        except AppError as exc:
            # The server discards the unread body, as for a 413: the client gets its answer.
            return await handle_app_error(request, exc)
        return large.max_bytes

    async def _read_body(
        self, headers: dict[bytes, bytes], receive: Receive, limit: int
    ) -> bytes | None:
        """The whole body, or None past the limit (declared or streamed)."""
        length = headers.get(b"content-length")
        if length is not None and length.isdigit() and int(length) > limit:
            return None
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return None
            chunks.append(chunk)
            more = message.get("more_body", False)
        return b"".join(chunks)

    @staticmethod
    def _replay(body: bytes, receive: Receive) -> Receive:
        """Hand the buffered body to the app once, then pass through (disconnects)."""
        sent = False

        async def replay() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        return replay

    async def _reject(self, scope: Scope, receive: Receive, send: Send, limit: int) -> None:
        response = problem(
            413,
            PayloadTooLarge.slug,
            PayloadTooLarge.title,
            f"the body is larger than {limit} bytes",
            instance=scope["path"],
        )
        await response(scope, receive, send)


class AnswerCancelledRequests:
    """A request cancelled before its answer started gets a 503 problem instead of uvicorn's 500.

    uvicorn cancels the requests still running when its graceful-shutdown timeout ends (SIGTERM).
    A comparison outlives its request (the lifespan's drain finishes or interrupts it and keeps
    its calls), so the client is told to retry, with the same Idempotency-Key to get the stored
    answer. The cancellation itself goes on: it is re-raised once the answer is sent.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, send_tracked)
        except asyncio.CancelledError:
            if not started:
                await _send_stopping(scope, send)
            raise


async def _send_stopping(scope: Scope, send: Send) -> None:
    body = {
        "type": ServiceUnavailable.slug,
        "title": ServiceUnavailable.title,
        "status": 503,
        "detail": "the server stopped before it could answer; retry (with the same "
        "Idempotency-Key to get a comparison that finished meanwhile)",
        "instance": scope.get("path"),
    }
    encoded = json.dumps(body).encode()
    headers = [
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(encoded)).encode()),
        (b"retry-after", b"5"),
        (b"connection", b"close"),
    ]
    await send({"type": "http.response.start", "status": 503, "headers": headers})
    await send({"type": "http.response.body", "body": encoded})


def unparseable_http_answer(default_headers: list[tuple[bytes, bytes]]) -> bytes:
    """The whole 400 answer to a request that is not HTTP/1.1 the parser can read."""
    body = json.dumps(
        {
            "type": BadRequest.slug,
            "title": "The request is not valid HTTP",
            "status": 400,
            "detail": "the HTTP parser refused the request line, a header or the body framing "
            "(Content-Length, Transfer-Encoding)",
        }
    ).encode()
    headers = [
        *default_headers,
        (b"content-type", PROBLEM_JSON.encode()),
        (b"content-length", str(len(body)).encode()),
        (b"connection", b"close"),
    ]
    head = b"".join(name + b": " + value + b"\r\n" for name, value in headers)
    return b"HTTP/1.1 400 Bad Request\r\n" + head + b"\r\n" + body


class ProblemHttpProtocol(HttpToolsProtocol):
    """uvicorn's HTTP/1.1 protocol (httptools, what its `auto` picks here), except that a request
    it cannot parse gets a 400 problem+json, as every other refusal does, not plain text."""

    def send_400_response(self, msg: str) -> None:
        self.transport.write(unparseable_http_answer(self.server_state.default_headers))
        self.transport.close()
