"""Expected failures as an `AppError` tree (app/problems.py renders them as problem+json).

AppError                      400 bad-request (a body that is not JSON or cannot be decoded)
 ├── BadRequest               400 bad-request
 ├── ValidationProblem        422 validation-error
 ├── NotFound                 404 not-found
 ├── Conflict                 409 conflict
 │    ├── IdempotencyConflict     409 idempotency-conflict
 │    ├── IdempotencyInProgress   409 idempotency-in-progress
 │    └── ManagedByFile           409 managed-by-file
 ├── Unauthorized             401 unauthorized
 ├── Forbidden                403 forbidden
 │    ├── CrossOriginForm         403 forbidden (a dashboard form from another origin)
 │    ├── HostNotLoopback         403 forbidden (auth off, a Host that is not loopback)
 │    └── CrossSiteRequest        403 forbidden (auth off, a state change from another site)
 ├── PayloadTooLarge          413 payload-too-large
 ├── TooManyCalls             422 too-many-calls
 ├── NoJudgesConfigured       422 no-judges-configured
 ├── RateLimited              429 rate-limited
 ├── JudgesFailed             502 judges-failed
 ├── ServiceUnavailable       503 service-unavailable
 │    ├── JudgeUnavailable        503 service-unavailable (a stored judge that cannot be built)
 │    └── ChildUnavailable        503 service-unavailable (a child process died or ran too long)
 └── InternalError            500 internal-error (never raised: a bug, answered by the middleware)
"""

from __future__ import annotations

from typing import Any, ClassVar

from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError


class AppError(Exception):
    """An expected failure with a status, a stable type slug and a title."""

    status: ClassVar[int] = 400
    slug: ClassVar[str] = "bad-request"
    title: ClassVar[str] = "Bad request"

    def __init__(
        self,
        detail: str,
        *,
        headers: dict[str, str] | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.headers = headers or {}
        self.extra = extra or {}


class BadRequest(AppError):
    title = "The request body cannot be decoded"


class ValidationProblem(AppError):
    status, slug, title = 422, "validation-error", "The request is not valid"


class NotFound(AppError):
    status, slug, title = 404, "not-found", "Not found"


class Conflict(AppError):
    status, slug, title = 409, "conflict", "Conflict"


class IdempotencyConflict(Conflict):
    slug, title = "idempotency-conflict", "Idempotency-Key reused with a different body"


class IdempotencyInProgress(Conflict):
    slug, title = "idempotency-in-progress", "A request with this Idempotency-Key is running"


class ManagedByFile(Conflict):
    slug, title = "managed-by-file", "This judge is managed by the judges file"


class Unauthorized(AppError):
    status, slug, title = 401, "unauthorized", "A valid API key is required"


class Forbidden(AppError):
    status, slug, title = 403, "forbidden", "The API key lacks the scope"


class CrossOriginForm(Forbidden):
    title = "The form was posted from another origin"


class HostNotLoopback(Forbidden):
    title = "With auth off only loopback host names are served"


class CrossSiteRequest(Forbidden):
    title = "With auth off another site's page may not change state"


class PayloadTooLarge(AppError):
    status, slug, title = 413, "payload-too-large", "The request body is too large"


class TooManyCalls(AppError):
    status, slug, title = 422, "too-many-calls", "Too many judge calls for a synchronous request"


class NoJudgesConfigured(AppError):
    status, slug, title = 422, "no-judges-configured", "No judge named and no default panel"


class RateLimited(AppError):
    status, slug, title = 429, "rate-limited", "Too many requests"


class JudgesFailed(AppError):
    status, slug, title = 502, "judges-failed", "No judge produced a result"


class ServiceUnavailable(AppError):
    status, slug, title = 503, "service-unavailable", "The service cannot answer now"


class JudgeUnavailable(ServiceUnavailable):
    title = "A judge named in the request cannot be called"


class ChildUnavailable(ServiceUnavailable):
    title = "A child process could not finish the work in time"


class InternalError(AppError):
    status, slug, title = 500, "internal-error", "Internal error"


# What an unreachable or failing database raises (drivers' connect errors are OSErrors).
DATABASE_ERRORS: tuple[type[Exception], ...] = (
    OperationalError,
    InterfaceError,
    PoolTimeoutError,
    OSError,
    TimeoutError,
)
