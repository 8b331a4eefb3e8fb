"""A judge's provider batch API: OpenAI's Batch API or Anthropic's Message Batches API.

What the batch orchestration codes against: the requests it sends, the job the provider runs and
the per-request outcomes it reads back, all in the judging layer's own terms. The two clients
live beside their live calls (`OpenAIBatchApi` in providers/openai.py, `AnthropicBatchApi` in
providers/anthropic.py) because they share the judge's Wire, paths, headers and answer parsing;
`HttpJudge.batch_api()` gives a judge's one. This module holds what both share and imports no
provider, so that the providers can name it without an import cycle.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import (
    AsyncGenerator,
    Awaitable,
    Callable,
    Iterator,
    Mapping,
    Sequence,
)
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, BinaryIO, Protocol, TypeAlias
from urllib.parse import quote, urlsplit

import orjson
import structlog

from app.judging.judge import Completion
from app.judging.retries import ProviderCallError
from app.judging.types import ErrorKind
from app.textpatterns import compile_linear

log = structlog.get_logger()

# Both providers' rule for a request's id within a job.
CUSTOM_ID = compile_linear(r"[a-zA-Z0-9_-]{1,64}")
# The longest job or file id stored (the columns' length): a longer one is an invalid answer,
# never a job nobody can store and so nobody polls.
MAX_ID_CHARS = 200
_DEFAULT_PORTS = {"http": 80, "https": 443}
# How far back a lookup reads a provider's job list (newest first, 100 a page).
MAX_LIST_PAGES = 20
_UNREADABLE = (LookupError, TypeError, ValueError, AttributeError)
# When a submission whose outcome is unknown may have created its job: (sent, answered or gave up).
Window: TypeAlias = tuple[datetime, datetime]
# The longest line of a results file parsed: a judge answer's own cap (MAX_RESPONSE_BYTES of the
# live path). A longer line fails its request alone; the parser never holds more of it.
MAX_LINE_BYTES = 16 * 1024 * 1024
# Where an over-long line's custom_id is sought: both providers write it first.
LINE_HEAD_BYTES = 4096
# Results parsed (in a thread) and handed on at a time, so memory holds one chunk, not a file.
RESULTS_CHUNK = 500
_HEAD_CUSTOM_ID = compile_linear(r'"custom_id"\s*:\s*"([a-zA-Z0-9_-]{1,64})"')


@dataclass(frozen=True)
class BatchRequest:
    """One request of a job: the caller's id for it and the provider request body."""

    custom_id: str
    # Exactly what the judge sends live for the request (`judge.request_body(request)`).
    body: Mapping[str, Any]


@dataclass(frozen=True)
class ReportedBatchJob:
    """A provider's batch job as it last reported itself."""

    id: str
    # The provider's own status word, shown to users as it is.
    state: str
    # Nothing more will happen: the results (if any) can be read.
    ended: bool
    # OpenAI's `failed` (the input did not validate): there are no results at all.
    failed_whole: bool
    total: int
    succeeded: int
    # Errored, expired and cancelled together.
    failed: int
    expires_at: datetime | None
    # OpenAI only: the job's files.
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    # Anthropic only: where the ended job's results are read (on the judge's own origin).
    results_url: str | None = None
    # Why a job failed whole, as the provider says it (OpenAI's validation errors).
    error: str | None = None

    def __post_init__(self) -> None:
        ids = (self.id, self.input_file_id, self.output_file_id, self.error_file_id)
        if any(value is not None and len(value) > MAX_ID_CHARS for value in ids):
            raise ValueError(f"an id longer than {MAX_ID_CHARS} characters")


@dataclass(frozen=True)
class RequestResult:
    """One request's outcome: a completion parsed as live answers are, or a failure."""

    custom_id: str
    completion: Completion | None
    error_kind: ErrorKind | None
    error: str | None


class BatchApi(Protocol):
    """A judge's provider batch API; ProviderCallError for any failure of its endpoints."""

    max_requests: int
    # What the sizes of a job's requests (`request_size`) may add up to.
    max_bytes: int

    async def submit(
        self, requests: Sequence[BatchRequest], metadata: Mapping[str, str]
    ) -> ReportedBatchJob:
        """Create a job running `requests` (ids unique, within both limits)."""
        ...

    async def retrieve(self, job_id: str) -> ReportedBatchJob:
        """The job as it stands now."""
        ...

    def results(self, job: ReportedBatchJob) -> AsyncGenerator[list[RequestResult]]:
        """The outcome of every request of an ended job the provider reports, a chunk at a
        time (the file is read from disk, parsed off the event loop)."""
        ...

    async def cancel(self, job_id: str) -> ReportedBatchJob:
        """Ask the provider to stop the job; what already ran keeps its results."""
        ...

    async def find(
        self, metadata: Mapping[str, str], request_count: int, created: Window
    ) -> list[ReportedBatchJob]:
        """The jobs that may be the one a submission with `metadata` made, created within
        `created` (for a create whose outcome is unknown); OpenAI matches the metadata,
        Anthropic (which keeps none) the request count."""
        ...

    async def cleanup(self, job: ReportedBatchJob) -> None:
        """Delete what the job left at the provider (files, or the ended job); gone is fine."""
        ...

    def request_size(self, request: BatchRequest) -> int:
        """The bytes `request` adds to a job, to split jobs under `max_bytes`."""
        ...


def check_requests(requests: Sequence[BatchRequest], max_requests: int) -> None:
    """Refuse a job the provider would refuse whole: empty, too many requests, bad or repeated
    ids (a ProviderCallError `bad_request`, before anything is sent)."""
    if not 0 < len(requests) <= max_requests:
        message = f"a batch job holds 1 to {max_requests} requests, not {len(requests)}"
        raise ProviderCallError("bad_request", message)
    seen: set[str] = set()
    for request in requests:
        if CUSTOM_ID.fullmatch(request.custom_id) is None:
            message = f"custom_id {request.custom_id[:80]!r} must match ^[a-zA-Z0-9_-]{{1,64}}$"
            raise ProviderCallError("bad_request", message)
        if request.custom_id in seen:
            raise ProviderCallError("bad_request", f"custom_id {request.custom_id} is repeated")
        seen.add(request.custom_id)


def check_size(size: int, max_bytes: int) -> None:
    """Refuse a job body over the provider's limit."""
    if size > max_bytes:
        raise ProviderCallError("bad_request", f"a batch job of {size} bytes is over {max_bytes}")


def json_bytes(value: object) -> bytes:
    """`value` as compact JSON; request bodies may be any Mapping, not only dicts."""
    return orjson.dumps(value, default=_plain)


def _plain(value: object) -> object:
    if isinstance(value, Mapping):
        return dict(value)
    if isinstance(value, Sequence) and not isinstance(value, str | bytes):
        return list(value)
    raise TypeError(f"{type(value).__name__} is not JSON")


def file_lines(file: BinaryIO, max_line_bytes: int) -> Iterator[tuple[bytes, bool]]:
    """(line, whole) of a file, holding at most `max_line_bytes` of any line: a longer one
    comes as its first LINE_HEAD_BYTES and `whole` False, the rest skipped unread into memory."""
    while line := file.readline(max_line_bytes + 1):
        if len(line) <= max_line_bytes or line.endswith(b"\n"):
            yield line, True
            continue
        head = line[:LINE_HEAD_BYTES]
        del line
        while (rest := file.readline(max_line_bytes)) and not rest.endswith(b"\n"):
            pass
        yield head, False


def jsonl_objects(
    content: bytes | BinaryIO, max_line_bytes: int | None = None
) -> Iterator[tuple[str, dict[str, Any] | None]]:
    """(custom_id, line) of a JSONL results file; a line that is not a JSON object with a valid
    custom_id is skipped (logged by number, never by content, which is the judges' text), and a
    line over `max_line_bytes` (MAX_LINE_BYTES) gives its custom_id, if its head has one, with
    None: its request fails alone."""
    file = io.BytesIO(content) if isinstance(content, bytes) else content
    limit = MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    for number, (raw, whole) in enumerate(file_lines(file, limit), start=1):
        if not whole:
            log.warning("batch_result_line_skipped", line=number, reason="over the line cap")
            found = _HEAD_CUSTOM_ID.search(raw.decode("utf-8", "replace"))
            if found is not None:
                yield found.group(1), None
            continue
        if not raw.strip():
            continue
        try:
            line = orjson.loads(raw)
        except orjson.JSONDecodeError:
            log.warning("batch_result_line_skipped", line=number, reason="not JSON")
            continue
        custom_id = line.get("custom_id") if isinstance(line, dict) else None
        if not isinstance(custom_id, str) or CUSTOM_ID.fullmatch(custom_id) is None:
            log.warning("batch_result_line_skipped", line=number, reason="no valid custom_id")
            continue
        yield custom_id, line


def too_long_result(custom_id: str) -> RequestResult:
    """The failure of a request whose result line is over MAX_LINE_BYTES: the provider answered
    (and was paid), so `invalid_response`, as for a live answer of the wrong shape."""
    message = f"invalid response: a result line over {MAX_LINE_BYTES / 2**20:g} MiB"
    return RequestResult(custom_id, None, "invalid_response", message)


async def file_results(
    file: BinaryIO, parse: Callable[[str, dict[str, Any]], RequestResult]
) -> AsyncGenerator[list[RequestResult]]:
    """The results of a downloaded file, RESULTS_CHUNK at a time, read and parsed in a thread;
    the file is closed at the end."""
    lines = jsonl_objects(file)

    def chunk() -> list[RequestResult]:
        results = []
        for custom_id, line in lines:
            results.append(too_long_result(custom_id) if line is None else parse(custom_id, line))
            if len(results) == RESULTS_CHUNK:
                break
        return results

    try:
        while results := await asyncio.to_thread(chunk):
            yield results
    finally:
        file.close()


def list_path(path: str, after_name: str, after: str | None) -> str:
    """A page of a job list: 100 jobs, after the job `after`."""
    return f"{path}?limit=100" + ("" if after is None else f"&{after_name}={quote(after, safe='')}")


async def find_listed(
    page: Callable[[str | None], Awaitable[Any]],
    parse: Callable[[Any], ReportedBatchJob],
    created_at: Callable[[Any], datetime | None],
    matches: Callable[[Any], bool],
    created: Window,
) -> list[ReportedBatchJob]:
    """The jobs of a newest-first list (`page(after)` gives a page) created within `created`
    that `matches` accepts; entries that do not parse are skipped, never adopted."""
    found: list[ReportedBatchJob] = []
    after: str | None = None
    for _ in range(MAX_LIST_PAGES):
        listing = await page(after)
        try:
            entries, more = list(listing["data"]), bool(listing.get("has_more"))
            after = required_text(entries[-1]["id"]) if entries else None
        except _UNREADABLE as err:
            raise invalid_response(err) from err
        for entry in entries:
            try:
                at, wanted = created_at(entry), matches(entry)
            except _UNREADABLE:
                continue
            if at is not None and at < created[0]:
                return found  # older than the submission: so is every later entry
            if at is not None and at <= created[1] and wanted:
                try:
                    found.append(parse(entry))
                except _UNREADABLE:
                    log.warning("batch_listed_job_skipped", reason="not a valid job")
        if not more or after is None:
            break
    return found


def same_origin(url: str, base_url: str) -> bool:
    """Whether `url` is on the origin (scheme, host, port) of `base_url`, with no user info."""
    target, base = urlsplit(url), urlsplit(base_url)
    if target.username is not None or target.password is not None:
        return False
    try:
        return _origin(target.scheme, target.hostname, target.port) == _origin(
            base.scheme, base.hostname, base.port
        )
    except ValueError:  # a port that is not a number
        return False


def _origin(scheme: str, host: str | None, port: int | None) -> tuple[str, str | None, int | None]:
    scheme = scheme.lower()
    return scheme, host, port if port is not None else _DEFAULT_PORTS.get(scheme)


def required_text(value: object) -> str:
    """A non-empty string field of an answer (ValueError when it is not one)."""
    if not isinstance(value, str) or not value:
        raise ValueError(f"not a non-empty string: {value!r}")
    return value


def optional_text(value: object) -> str | None:
    """A string field of an answer that may be null."""
    return None if value is None else required_text(value)


def utc_from_unix(value: object) -> datetime | None:
    """A UTC time from Unix seconds, or None when there is none."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"not a Unix time: {value!r}")
    try:
        return datetime.fromtimestamp(value, UTC)
    except (OverflowError, OSError, ValueError):  # beyond year 9999 (or NaN): no usable time
        return None


def utc_from_rfc3339(value: object) -> datetime | None:
    """A UTC time from an RFC 3339 string, or None when there is none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(f"not an RFC 3339 time: {value!r}")
    parsed = datetime.fromisoformat(value)
    try:
        return (parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)).astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-01:00 is past what a datetime holds in UTC
        return None


def invalid_response(err: Exception) -> ProviderCallError:
    """The failure for an answer that is not what the API documents (as live calls word it)."""
    return ProviderCallError("server_error", f"invalid response: {err!r}")
