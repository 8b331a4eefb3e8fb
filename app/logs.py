"""structlog JSON logs with a request id bound per request; no secret or text is logged."""

from __future__ import annotations

import logging
import sys

import structlog


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


def configure_logging(level: str = "info") -> None:
    """JSON lines on stderr for our logs and the standard library's (uvicorn, SQLAlchemy)."""
    processors: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.format_exc_info,
    ]
    structlog.configure(
        processors=[*processors, structlog.processors.JSONRenderer()],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.WriteLoggerFactory(_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=False,
    )
    handler = _StderrHandler()
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.JSONRenderer(),
            ],
            foreign_pre_chain=[*processors, structlog.stdlib.add_logger_name],
        )
    )
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(level.upper())
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logging.getLogger(name).handlers = []
        logging.getLogger(name).propagate = True
