"""structlog logs (JSON lines, or readable lines at a terminal) with a request id bound per
request; no secret or text is logged."""

from __future__ import annotations

import logging
import os
import sys
import traceback
from collections.abc import Iterable, MutableMapping
from typing import Any

import structlog

from app.config import Settings, unknown_variables
from app.textpatterns import compile_linear

# Keys whose values are never written: credentials, and texts (privacy mode or not, a log line is
# no place for prompts, responses or judge outputs).
REDACTED_KEYS = frozenset(
    {
        "authorization",
        "api_key",
        "key",
        "token",
        "secret",
        "secret_key",
        "password",
        "prompt",
        "response_a",
        "response_b",
        "reference",
        "raw_output",
        "text",
        "texts",
    }
)
# Secrets that may hide inside messages (a driver's error, a URL): API keys, provider keys, and
# the password of a database URL. RE2 has no lookarounds: the URL's `://` and `@` are matched
# too, and only the group `userinfo` is replaced.
SECRET_PATTERN = compile_linear(
    r"fp_[0-9a-f]+_[0-9a-f]{16,}|\bsk-[\w-]{6,}|://(?P<userinfo>[^:/@\s]+:[^@\s]+)@"
)
_USERINFO = SECRET_PATTERN.group_number("userinfo") or 0


def redact(_logger: Any, _method: str, event: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Drop secrets and texts from a log event (a structlog processor)."""
    for key, value in event.items():
        if key.lower() in REDACTED_KEYS:
            event[key] = "[redacted]"
        elif isinstance(value, str) and ("_" in value or "-" in value or "@" in value):
            event[key] = scrub_secrets(value)
    return event


def scrub_secrets(text: str) -> str:
    """`text` with every secret SECRET_PATTERN finds replaced by `[redacted]`."""
    pieces: list[str] = []
    kept_from = 0
    for match in SECRET_PATTERN.finditer(text):
        group = _USERINFO if match.start(_USERINFO) >= 0 else 0
        pieces += [text[kept_from : match.start(group)], "[redacted]"]
        kept_from = match.end(group)
    pieces.append(text[kept_from:])
    return "".join(pieces)


def error_fields(exc: BaseException) -> dict[str, Any]:
    """An error as a log line holds it: its type and place, never its message.

    `str()` of a driver error holds the SQL parameters (prompts, keys), and other messages may
    quote a request; the statement without its parameters and the frames are enough to find it.
    """
    stack = traceback.extract_tb(exc.__traceback__)
    # The app's own frames say where; the innermost one says what failed (often in a library).
    frames = [f for f in stack[:-1] if "/app/" in f.filename][-6:] + stack[-1:]
    statement = getattr(exc, "statement", None)
    return {
        "error": type(exc).__name__,
        "cause": type(exc.__cause__).__name__ if exc.__cause__ is not None else None,
        "frames": [f"{'/'.join(f.filename.split('/')[-2:])}:{f.lineno} {f.name}" for f in frames],
        "statement": statement[:500] if isinstance(statement, str) else None,
    }


def bind_comparison(comparison_id: str, judges: Iterable[str]) -> None:
    """Put the comparison and its judges on every log line of the rest of the request."""
    structlog.contextvars.bind_contextvars(comparison_id=comparison_id, judges=list(judges))


class _CurrentStderr:
    """Writes to whatever `sys.stderr` is now (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


class _StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """A stream handler bound to the current `sys.stderr`, not the one at start-up."""

    def __init__(self) -> None:
        super().__init__(_CurrentStderr())


def renderer(form: str) -> structlog.types.Processor:
    """Readable lines for a person at a terminal, JSON lines for a collector (`auto`: which
    one stderr is)."""
    console = form == "console" or (form == "auto" and sys.stderr.isatty())
    if console:
        return structlog.dev.ConsoleRenderer(colors=sys.stderr.isatty())
    return structlog.processors.JSONRenderer()


def configure_logging(level: str = "info", form: str = "json") -> None:
    """Log lines on stderr for our logs and the standard library's (uvicorn, SQLAlchemy), in
    one format (`renderer`)."""
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
        redact,
    ]
    structlog.configure(
        processors=[*processors, renderer(form)],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.WriteLoggerFactory(_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )
    handler = _StderrHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                renderer(form),
            ],
            foreign_pre_chain=[*processors, structlog.stdlib.add_logger_name],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    # Every library logs through the root handler, in the same JSON format.
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "sqlalchemy", "taskiq", "alembic"):
        library = logging.getLogger(name)
        library.handlers = []
        library.propagate = True
        library.setLevel(logging.NOTSET)  # an embedded uvicorn may have raised it; inherit root
    # RequestContextMiddleware writes the one access line (with the request id); uvicorn's own
    # would be a second, costlier line per request (stdlib record + foreign pre-chain), and
    # httpx2 logs every judge request at INFO, which the stored judge call already records.
    # SQLAlchemy logs every statement with its parameters at INFO: prompts and responses in the
    # log, and most of the request path's CPU. WARNING is its own default (set at import).
    for name in ("uvicorn.access", "httpx2", "sqlalchemy"):
        logging.getLogger(name).setLevel(logging.WARNING)


def warn_unknown_variables(settings: Settings) -> None:
    """One warning per `FAIRPAIR_*` variable no setting reads (environment or `.env`), naming
    the closest setting: a misspelt variable is otherwise silently ignored."""
    from dotenv import dotenv_values

    names = [*dotenv_values(".env"), *os.environ]
    for name, close in unknown_variables(names, settings):
        structlog.get_logger().warning("unknown_setting", variable=name, did_you_mean=close)
