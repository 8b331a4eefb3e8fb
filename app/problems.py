"""RFC 9457 problem+json: the answers to every expected failure, and their OpenAPI documentation."""

from __future__ import annotations

from typing import Any

import structlog
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match

from app.errors import (
    DATABASE_ERRORS,
    AppError,
    BadRequest,
    InternalError,
    ServiceUnavailable,
    ValidationProblem,
)
from app.logs import error_fields

PROBLEM_JSON = "application/problem+json"
log = structlog.get_logger()


class Problem(BaseModel):
    """An RFC 9457 problem; some types add members (`errors`, `comparison_id`, ...)."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None


# Every operation may answer these; documented once for the whole API.
PROBLEM_RESPONSES: dict[int | str, dict[str, Any]] = {
    status: {"model": Problem, "description": description}
    for status, description in [
        (400, "bad-request: a body that is not JSON or cannot be decoded, or unparseable HTTP"),
        (401, "no valid API key"),
        (403, "the key lacks the scope"),
        (404, "not found"),
        (409, "conflict"),
        (413, "body too large"),
        (422, "invalid request"),
        (429, "rate limited"),
        (502, "no judge produced a result"),
        (503, "overloaded, or a dependency is unreachable"),
    ]
}


def problem_responses(*answers: tuple[int, str]) -> dict[int | str, dict[str, Any]]:
    """An operation's own problem answers (status, description), as application/problem+json."""
    return {code: {"description": text, "content": {PROBLEM_JSON: {}}} for code, text in answers}


# The answers of a read with query filters (the report, the leaderboard, the win rates).
FILTERED_READ_PROBLEMS = problem_responses(
    (401, "no valid key"), (403, "missing scope"), (422, "invalid filters")
)


def problem_media_type(openapi: dict[str, Any]) -> dict[str, Any]:
    """Document error answers as application/problem+json, which is what they are."""
    for path in openapi.get("paths", {}).values():
        for operation in path.values():
            for status, response in operation.get("responses", {}).items():
                content = response.get("content", {})
                if status[0] in "45" and "application/json" in content:
                    content["application/problem+json"] = content.pop("application/json")
    return openapi


def problem(
    status: int,
    slug: str,
    title: str,
    detail: str,
    *,
    instance: str | None = None,
    headers: dict[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    """A problem+json response (RFC 9457)."""
    body: dict[str, Any] = {"type": slug, "title": title, "status": status, "detail": detail}
    if instance:
        body["instance"] = instance
    body.update(extra)
    return JSONResponse(body, status_code=status, headers=headers, media_type=PROBLEM_JSON)


def json_pointer(loc: tuple[int | str, ...]) -> str:
    """`("body", "judges", 1)` → `/judges/1` (RFC 6901)."""
    parts = list(loc[1:] if loc and loc[0] in ("body", "query", "path", "header") else loc)
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in parts)


def _validation_errors(exc: RequestValidationError) -> list[dict[str, Any]]:
    errors = []
    for error in exc.errors():
        loc = tuple(error.get("loc", ()))
        errors.append(
            {
                "pointer": json_pointer(loc),
                "in": loc[0] if loc else "body",
                "message": error.get("msg", "invalid"),
            }
        )
    return errors


async def handle_app_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, AppError)
    extra = exc.extra
    if exc.status == 422 and "errors" not in extra:
        extra = {**extra, "errors": [pointed_error(exc.detail)]}
    return problem(
        exc.status,
        exc.slug,
        exc.title,
        exc.detail,
        instance=request.url.path,
        headers=exc.headers,
        **extra,
    )


def pointed_error(detail: str) -> dict[str, str]:
    """Every 422 carries `errors[]`: one read from a `/pointer: message` detail, or with the
    pointer `""` (the whole request) when the detail names none."""
    pointer, sep, message = detail.partition(": ")
    if sep and pointer.startswith("/") and " " not in pointer:
        return {"pointer": pointer, "message": message}
    return {"pointer": "", "message": detail}


def _undecodable(exc: RequestValidationError) -> str | None:
    """Why the body is not JSON at all (400 `bad-request`, not a field's 422), or None."""
    for error in exc.errors():
        if error.get("type") == "json_invalid":
            reason = (error.get("ctx") or {}).get("error", "decode error")
            return f"the body is not valid JSON: {reason} at position {error['loc'][-1]}"
        loc, given = tuple(error.get("loc", ())), error.get("input")
        if loc == ("body",) and isinstance(given, bytes | bytearray):
            return "the body is not JSON: send it with Content-Type: application/json"
    return None


async def handle_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    if (reason := _undecodable(exc)) is not None:
        return problem(400, BadRequest.slug, BadRequest.title, reason, instance=request.url.path)
    return invalid(request, _validation_errors(exc))


async def handle_model_error(request: Request, exc: Exception) -> JSONResponse:
    # A service validated merged or stored data (a PATCH with nulls, say): still the client's input.
    assert isinstance(exc, ValidationError)
    errors = [
        {"pointer": json_pointer(tuple(e["loc"])), "in": "body", "message": e["msg"]}
        for e in exc.errors()
    ]
    return invalid(request, errors)


def invalid(request: Request, errors: list[dict[str, Any]]) -> JSONResponse:
    """The 422 `validation-error` problem listing each error (the first five in `detail`)."""
    detail = "; ".join(f"{e['pointer']}: {e['message']}" for e in errors[:5])
    return problem(
        422,
        ValidationProblem.slug,
        ValidationProblem.title,
        detail,
        instance=request.url.path,
        errors=errors,
    )


def _decode_failure(exc: StarletteHTTPException) -> str:
    """What FastAPI's JSON parser refused (it answers 400 for every failure but a syntax error)."""
    cause = exc.__cause__
    if isinstance(cause, RecursionError):
        return "the JSON body is nested too deeply"
    if isinstance(cause, UnicodeError):
        return "the body is not UTF-8"
    if isinstance(cause, ValueError) and "digits" in str(cause):
        return "a number in the JSON body has too many digits"
    return str(exc.detail)


# What Starlette itself raises (routing, form parsing), by status: each a slug PRODUCT.md lists.
HTTP_PROBLEMS: dict[int, tuple[str, str]] = {
    400: (BadRequest.slug, BadRequest.title),
    401: ("unauthorized", "A valid API key is required"),
    403: ("forbidden", "The API key lacks the scope"),
    404: ("not-found", "Not found"),
    405: ("method-not-allowed", "The method is not allowed on this path"),
    409: ("conflict", "Conflict"),
    413: ("payload-too-large", "The request body is too large"),
    429: ("rate-limited", "Too many requests"),
    503: ("service-unavailable", "The service cannot answer now"),
}


def http_problem_type(status: int) -> tuple[str, str]:
    """The slug and title of an HTTP error; another 4xx is a `bad-request` and another 5xx an
    `internal-error`, so no answer carries a slug outside PRODUCT.md's list."""
    if status in HTTP_PROBLEMS:
        return HTTP_PROBLEMS[status]
    if status < 500:
        return BadRequest.slug, f"The request cannot be answered (HTTP {status})"
    return InternalError.slug, InternalError.title


# The methods a 405's `Allow` may list (a route's HEAD comes with its GET in Starlette).
METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def allowed_methods(request: Request) -> str:
    """Every method some route serves on the request's path. Starlette answers a 405 from the
    first route whose path matches, and FastAPI makes one route per method, so its own `Allow`
    names one of them (`GET` for `/v1/judges`, which also takes `POST`): ask every route."""
    routes = request.app.router.routes
    allowed = [
        method
        for method in METHODS
        if any(r.matches({**request.scope, "method": method})[0] == Match.FULL for r in routes)
    ]
    return ", ".join(allowed)


async def handle_http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:
        detail = _decode_failure(exc)
        return problem(400, BadRequest.slug, BadRequest.title, detail, instance=request.url.path)
    slug, title = http_problem_type(exc.status_code)
    headers, detail = dict(exc.headers or {}), str(exc.detail)
    if exc.status_code == 405:
        headers["Allow"] = allowed = allowed_methods(request)
        detail = f"{request.method} is not allowed on {request.url.path}; allowed: {allowed}"
    return problem(
        exc.status_code, slug, title, detail, instance=request.url.path, headers=headers or None
    )


async def handle_database_error(request: Request, exc: Exception) -> JSONResponse:
    # A lost database is an outage, not a bug: answer 503 and let the client retry.
    log.warning("database_unavailable", error=type(exc).__name__)
    return problem(
        503,
        ServiceUnavailable.slug,
        ServiceUnavailable.title,
        "the database is unreachable",
        instance=request.url.path,
        headers={"Retry-After": "5"},
    )


def log_internal_error(exc: BaseException) -> None:
    """Log a bug by its type and place, never its message (`app.logs.error_fields`)."""
    log.error("internal_error", **error_fields(exc))


def internal_error(path: str, request_id: str) -> JSONResponse:
    """The 500 problem: a bug, never the client's fault; the request id finds its log line."""
    return problem(
        500,
        InternalError.slug,
        InternalError.title,
        f"an unexpected error, logged with request id {request_id}",
        instance=path,
        request_id=request_id,
    )


def install_error_handlers(app: FastAPI) -> None:
    """Render every expected failure as problem+json."""
    app.add_exception_handler(AppError, handle_app_error)
    app.add_exception_handler(RequestValidationError, handle_validation_error)
    app.add_exception_handler(ValidationError, handle_model_error)
    app.add_exception_handler(StarletteHTTPException, handle_http_error)
    for db_error in DATABASE_ERRORS:
        app.add_exception_handler(db_error, handle_database_error)
