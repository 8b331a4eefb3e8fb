"""The sim judge's provider batch APIs: OpenAI Files + Batches and Anthropic Message Batches.

Everything is held in memory, bounded (the oldest files and jobs are evicted first), so that
fairpair's provider mode is tested without the network. Each request of a job is answered at
creation by the same simulated judge as the live endpoints, always as a first attempt (a batch
has no retries), and revealed as the job progresses: a job takes `batch_delay_s` seconds, its
requests finishing at an even pace, then it ends as the `batch_outcome` knob says.

- `completed`: every request is answered.
- `expired`: the job runs at half pace, so at the deadline the first half (rounded down) is
  answered and the rest expires (OpenAI: `batch_expired` lines in the error file; Anthropic:
  `expired` results).
- `failed`: an OpenAI job fails whole at validation (no output file); an Anthropic job, which
  cannot fail whole, ends with every request errored (`api_error`).

Cancelling keeps what was answered so far; the rest is cancelled (OpenAI `batch_cancelled` lines,
Anthropic `canceled` results). Anthropic requests are run through `simulate_chat` with their
`system` prompt as a leading system message, exactly as the in-process sim judge sees them.

Over 500 lines because the OpenAI and Anthropic emulations share their jobs, files, paging and
clock; it is a test tool the service never imports.
"""

from __future__ import annotations

import json
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import Message as MimeHeaders
from typing import Any, Generic, Literal, TypeVar
from urllib.parse import parse_qs

from starlette.types import Receive, Scope, Send

from app.judging.simulation import SimReply, estimate_tokens, messages_key, simulate_chat
from app.judging.types import SimKnobs
from app.textpatterns import compile_linear

Api = Literal["openai", "anthropic"]
# An OpenAI chat request body -> (HTTP status, JSON answer), as the live endpoint answers it.
ChatAnswer = Callable[[object], tuple[int, dict[str, Any]]]
Clock = Callable[[], float]

MAX_STORED = 1000
MAX_STORED_BYTES = 256 * 1024 * 1024
OPENAI_MAX_REQUESTS = 50_000
ANTHROPIC_MAX_REQUESTS = 100_000
MAX_LISTED_ERRORS = 100
DAY_S = 24 * 3600
CHAT_ENDPOINT = "/v1/chat/completions"
_CUSTOM_ID = compile_linear(r"[a-zA-Z0-9_-]{1,64}")
_ANTHROPIC_ERROR_TYPES = {400: "invalid_request_error", 429: "rate_limit_error"}
_OPENAI_STEP_TIMES = (
    "in_progress_at", "finalizing_at", "completed_at", "failed_at",
    "expired_at", "cancelling_at", "cancelled_at",
)  # fmt: skip
_NOT_RUN_MESSAGES = {
    "batch_expired": "This request could not be executed before the completion window expired.",
    "batch_cancelled": "This request was not executed because the batch was cancelled.",
}


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """An ASGI request's whole body, or None as soon as it passes `limit` bytes."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


class ApiError(Exception):
    """A request the emulation refuses: its HTTP status, error type and message."""

    def __init__(self, status: int, message: str, kind: str = "invalid_request_error") -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def _rfc3339(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).isoformat().replace("+00:00", "Z")


# --- bounded storage --------------------------------------------------------------------------

T = TypeVar("T")


class BoundedStore(Generic[T]):
    """At most `max_items` entries and `max_bytes` of their sizes; the oldest go first."""

    def __init__(self, max_items: int = MAX_STORED, max_bytes: int = MAX_STORED_BYTES) -> None:
        self._entries: OrderedDict[str, tuple[T, int]] = OrderedDict()
        self._max_items = max_items
        self._max_bytes = max_bytes
        self._bytes = 0

    def put(self, key: str, value: T, size: int = 0) -> None:
        """Store `value`, evicting the oldest entries while over either bound."""
        self.pop(key)
        self._entries[key] = (value, size)
        self._bytes += size
        while len(self._entries) > 1 and (
            len(self._entries) > self._max_items or self._bytes > self._max_bytes
        ):
            _, (_, evicted) = self._entries.popitem(last=False)
            self._bytes -= evicted

    def get(self, key: str) -> T | None:
        """The value stored under `key`, if it was not evicted or deleted."""
        entry = self._entries.get(key)
        return entry[0] if entry is not None else None

    def pop(self, key: str) -> T | None:
        """Remove and return the value under `key`."""
        entry = self._entries.pop(key, None)
        if entry is None:
            return None
        self._bytes -= entry[1]
        return entry[0]

    def newest_first(self) -> Iterator[T]:
        """The values, newest first (the order the list endpoints show)."""
        return (value for value, _ in reversed(self._entries.values()))


# --- jobs -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StoredFile:
    """An uploaded or generated file (OpenAI Files API)."""

    id: str
    filename: str
    purpose: str
    content: bytes
    created_at: int

    def as_json(self) -> dict[str, Any]:
        """The FileObject."""
        return {
            "id": self.id,
            "object": "file",
            "bytes": len(self.content),
            "created_at": self.created_at,
            "filename": self.filename,
            "purpose": self.purpose,
            "status": "processed",
            "expires_at": None,
            "status_details": None,
        }


@dataclass(frozen=True)
class Answer:
    """One request of a job, answered at creation: its custom_id, HTTP status and JSON."""

    custom_id: str
    status: int
    body: dict[str, Any]


@dataclass
class SimBatchJob:
    """One batch job of either API, whose state follows from the clock (see the module doc)."""

    id: str
    answers: list[Answer]
    created_at: float
    delay_s: float
    outcome: str
    cancelled_at: float | None = None
    ended: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def deadline(self) -> float:
        """When the job ends unless it is cancelled first."""
        return self.created_at + self.delay_s

    def processed(self, at: float) -> int:
        """How many requests were answered by time `at` (an even pace over the delay)."""
        total = len(self.answers)
        share = (
            1.0 if self.delay_s <= 0 else min(1.0, max(0.0, at - self.created_at) / self.delay_s)
        )
        if at >= self.deadline:
            share = 1.0  # not (deadline - created_at) / delay_s: that may round below 1
        if self.outcome == "expired":
            share /= 2
        return min(total, int(total * share))

    def end_time(self) -> float:
        """When processing stops: the cancel, or the deadline."""
        return self.cancelled_at if self.cancelled_at is not None else self.deadline

    def has_ended(self, now: float) -> bool:
        """Whether processing is over at `now` (a cancel ends it at the next read)."""
        return self.ended or now >= self.deadline

    def not_run_reason(self) -> Literal["cancelled", "expired"]:
        """Why the unanswered requests of an ended job were not run."""
        return "cancelled" if self.cancelled_at is not None else "expired"


# --- OpenAI -----------------------------------------------------------------------------------


def multipart_fields(content_type: str, body: bytes) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name -> (filename, bytes)."""
    headers = MimeHeaders()
    headers["content-type"] = content_type
    boundary = headers.get_param("boundary")
    if headers.get_content_type() != "multipart/form-data" or not isinstance(boundary, str):
        raise ApiError(400, "the upload must be multipart/form-data with a boundary")
    fields: dict[str, tuple[str | None, bytes]] = {}
    for part in (b"\r\n" + body).split(b"\r\n--" + boundary.encode("latin-1"))[1:]:
        if part.startswith(b"--"):
            return fields
        head, separator, content = part.partition(b"\r\n\r\n")
        if not separator:
            raise ApiError(400, "a multipart part has no header end")
        name, filename = _part_name(head.decode("latin-1"))
        fields[name] = (filename, content)
    raise ApiError(400, "the multipart body has no closing boundary")


def _part_name(head: str) -> tuple[str, str | None]:
    part = MimeHeaders()
    for line in head.split("\r\n"):
        key, colon, value = line.partition(":")
        if colon:
            part[key.strip()] = value.strip()
    name = part.get_param("name", header="content-disposition")
    if not isinstance(name, str):
        raise ApiError(400, "a multipart part has no name")
    return name, part.get_filename()


@dataclass(frozen=True)
class InputLine:
    """One valid line of a batch input file."""

    custom_id: str
    body: object


def parse_input_file(content: bytes, endpoint: str) -> tuple[list[InputLine], list[dict[str, Any]]]:
    """The requests of a batch input file, and the validation errors that fail the batch."""
    lines: list[InputLine] = []
    errors: list[dict[str, Any]] = []
    seen: set[str] = set()
    for number, raw in enumerate(content.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            line = _input_line(raw, endpoint, seen)
        except ApiError as err:
            errors.append({"code": err.kind, "line": number, "message": str(err), "param": None})
            continue
        seen.add(line.custom_id)
        lines.append(line)
    if not lines and not errors:
        errors.append({"code": "empty_file", "line": None, "message": "no requests", "param": None})
    if len(lines) > OPENAI_MAX_REQUESTS:
        message = f"a batch holds at most {OPENAI_MAX_REQUESTS} requests"
        errors.append(
            {"code": "too_many_requests", "line": None, "message": message, "param": None}
        )
    return lines, errors[:MAX_LISTED_ERRORS]


def _input_line(raw: bytes, endpoint: str, seen: set[str]) -> InputLine:
    try:
        line = json.loads(raw)
    except (ValueError, RecursionError):
        raise ApiError(400, "the line is not JSON", "invalid_json_line") from None
    if not isinstance(line, dict):
        raise ApiError(400, "the line is not a JSON object", "invalid_json_line")
    custom_id = line.get("custom_id")
    if not isinstance(custom_id, str) or not custom_id:
        raise ApiError(400, "custom_id must be a non-empty string", "missing_required_parameter")
    if custom_id in seen:
        raise ApiError(400, f"custom_id {custom_id!r} is repeated", "duplicate_custom_id")
    if line.get("method") != "POST":
        raise ApiError(400, "method must be POST", "invalid_method")
    if line.get("url") != endpoint:
        raise ApiError(400, f"url must be the batch's endpoint {endpoint}", "mismatched_url")
    return InputLine(custom_id, line.get("body"))


def openai_batch_json(job: SimBatchJob, now: float) -> dict[str, Any]:
    """The Batch object as it stands at `now`."""
    extra = job.extra
    created = int(job.created_at)
    batch: dict[str, Any] = {
        "id": job.id,
        "object": "batch",
        "endpoint": extra["endpoint"],
        "input_file_id": extra["input_file_id"],
        "completion_window": "24h",
        "created_at": created,
        "expires_at": created + DAY_S,
        "metadata": extra["metadata"],
        "model": extra["model"],
        "errors": None,
        "output_file_id": None,
        "error_file_id": None,
        "request_counts": _openai_counts(job, now),
        **dict.fromkeys(_OPENAI_STEP_TIMES),
    }
    # The status, the times of the steps taken, the files and errors once it ended.
    batch.update(extra["state"])
    return batch


def _openai_counts(job: SimBatchJob, now: float) -> dict[str, int]:
    done = job.answers[: job.processed(min(now, job.end_time()))]
    completed = sum(1 for answer in done if answer.status == 200)
    failed = len(done) - completed
    if job.ended and job.extra["state"]["status"] != "failed":
        failed = len(job.answers) - completed
    return {"total": len(job.answers), "completed": completed, "failed": failed}


def _output_line(answer: Answer) -> dict[str, Any]:
    response = {"status_code": answer.status, "request_id": _new_id("req_"), "body": answer.body}
    return {"id": _new_id("batch_req_"), "custom_id": answer.custom_id, "response": response}


def _not_run_line(answer: Answer, code: str) -> dict[str, Any]:
    error = {"code": code, "message": _NOT_RUN_MESSAGES[code]}
    return {
        "id": _new_id("batch_req_"),
        "custom_id": answer.custom_id,
        "response": None,
        "error": error,
    }


def _jsonl(lines: Sequence[Mapping[str, Any]]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


# --- Anthropic --------------------------------------------------------------------------------


def anthropic_chat_messages(params: object) -> tuple[str, list[dict[str, str]]]:
    """The model and chat messages of Messages API params (`system` as a leading message)."""
    if not isinstance(params, dict):
        raise ApiError(400, "params must be an object")
    model, max_tokens, messages = (
        params.get("model"),
        params.get("max_tokens"),
        params.get("messages"),
    )
    if not isinstance(model, str) or not model:
        raise ApiError(400, "params.model: field required")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise ApiError(400, "params.max_tokens: a positive integer is required")
    if not isinstance(messages, list) or not messages:
        raise ApiError(400, "params.messages: a non-empty list is required")
    chat = [_anthropic_message(message) for message in messages]
    system = params.get("system")
    if system is not None:
        chat.insert(0, {"role": "system", "content": _anthropic_text(system)})
    return model, chat


def _anthropic_message(message: object) -> dict[str, str]:
    if not isinstance(message, dict) or message.get("role") not in ("user", "assistant"):
        raise ApiError(400, "each message needs the role user or assistant")
    return {"role": str(message["role"]), "content": _anthropic_text(message.get("content"))}


def _anthropic_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(
        isinstance(block, dict)
        and block.get("type") == "text"
        and isinstance(block.get("text"), str)
        for block in content
    ):
        return "".join(block["text"] for block in content)
    raise ApiError(400, "content must be a string or a list of text blocks")


# Extended thinking as the Messages API checks it, in its words (the extended-thinking docs).
THINKING_DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
MIN_THINKING_BUDGET = 1024


def anthropic_thinking(params: object) -> bool:
    """Whether the params turn extended thinking on; ApiError for what the API refuses with it:
    a budget below 1,024 tokens, `max_tokens` not above the budget, a temperature other than 1."""
    thinking = params.get("thinking") if isinstance(params, dict) else None
    if thinking is None:
        return False
    assert isinstance(params, dict)
    budget = thinking.get("budget_tokens") if isinstance(thinking, dict) else None
    if not isinstance(thinking, dict) or thinking.get("type") != "enabled":
        raise ApiError(400, "thinking: Input tag does not match the expected tags: 'enabled'")
    if isinstance(budget, bool) or not isinstance(budget, int) or budget < MIN_THINKING_BUDGET:
        raise ApiError(
            400, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        )
    if params.get("max_tokens", 0) <= budget:
        raise ApiError(
            400,
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our "
            f"documentation at {THINKING_DOCS}#max-tokens-and-context-window-size",
        )
    if params.get("temperature", 1) != 1:
        raise ApiError(
            400,
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our "
            f"documentation at {THINKING_DOCS}#feature-compatibility",
        )
    return True


# The sim's shown reasoning: a draft verdict (a tie) it then thinks better of, so that a parser
# reading thinking blocks as the answer would be caught by the tests.
SIM_THOUGHT = (
    'Weighing both responses. A first draft: {"winner": "tie", "confidence": 0.5, '
    '"reason": "draft"}. On reflection the answer differs.'
)


def anthropic_answer(knobs: SimKnobs, params: object) -> tuple[int, dict[str, Any]]:
    """The sim's answer to Messages API params, first attempt: (status, Message or error)."""
    try:
        model, messages = anthropic_chat_messages(params)
        thinking = anthropic_thinking(params)
    except ApiError as err:
        return 400, _anthropic_error(400, str(err))
    reply = simulate_chat(knobs, model, messages, attempt=0)
    return anthropic_reply_json(model, messages, reply, thinking=thinking)


def anthropic_reply_json(
    model: str, messages: list[dict[str, str]], reply: SimReply, *, thinking: bool = False
) -> tuple[int, dict[str, Any]]:
    """The sim's reply as the Messages API answers it: (status, Message or error); with
    `thinking`, a thinking block (counted in the output tokens, as the API counts it) first."""
    if reply.status != 200:
        return reply.status, _anthropic_error(reply.status, reply.text)
    content: list[dict[str, Any]] = [{"type": "text", "text": reply.text}]
    if thinking:
        content.insert(0, {"type": "thinking", "thinking": SIM_THOUGHT, "signature": "sim"})
    message = {
        "id": "msg_sim_" + messages_key(model, messages)[:24],
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {
            "input_tokens": sum(estimate_tokens(m["content"]) for m in messages),
            "output_tokens": sum(
                estimate_tokens(b.get("text") or b.get("thinking", "")) for b in content
            ),
        },
    }
    return 200, message


def _anthropic_error(status: int, message: str) -> dict[str, Any]:
    kind = _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
    return {"type": "error", "error": {"type": kind, "message": message}}


def _anthropic_requests(payload: object) -> list[tuple[str, object]]:
    """(custom_id, params) of a batch create body; anything wrong fails the whole create."""
    requests = payload.get("requests") if isinstance(payload, dict) else None
    if not isinstance(requests, list) or not requests:
        raise ApiError(400, "requests: a non-empty list is required")
    if len(requests) > ANTHROPIC_MAX_REQUESTS:
        raise ApiError(400, f"a batch holds at most {ANTHROPIC_MAX_REQUESTS} requests")
    parsed: list[tuple[str, object]] = []
    seen: set[str] = set()
    for index, request in enumerate(requests):
        custom_id = request.get("custom_id") if isinstance(request, dict) else None
        if not isinstance(custom_id, str) or _CUSTOM_ID.fullmatch(custom_id) is None:
            raise ApiError(400, f"requests.{index}.custom_id must match ^[a-zA-Z0-9_-]{{1,64}}$")
        if custom_id in seen:
            raise ApiError(400, f"requests.{index}.custom_id {custom_id!r} is repeated")
        if "params" not in request:
            raise ApiError(400, f"requests.{index}.params: field required")
        seen.add(custom_id)
        parsed.append((custom_id, request["params"]))
    return parsed


def _anthropic_result(answer: Answer, not_run: str | None, outcome: str) -> dict[str, Any]:
    if not_run is not None:
        return {"type": "canceled" if not_run == "cancelled" else "expired"}
    if outcome == "failed":
        return {"type": "errored", "error": _anthropic_error(500, "the simulated batch failed")}
    if answer.status == 200:
        return {"type": "succeeded", "message": answer.body}
    return {"type": "errored", "error": answer.body}


# --- HTTP -------------------------------------------------------------------------------------


@dataclass
class BatchCounts:
    """What `GET /stats` shows of the batch APIs (issue 24 counts the jobs created)."""

    files_uploaded: int = 0
    openai_created: int = 0
    openai_cancelled: int = 0
    anthropic_created: int = 0
    anthropic_cancelled: int = 0

    def as_json(self) -> dict[str, Any]:
        """The counts per API."""
        return {
            "openai": {
                "files_uploaded": self.files_uploaded,
                "jobs_created": self.openai_created,
                "jobs_cancelled": self.openai_cancelled,
            },
            "anthropic": {
                "jobs_created": self.anthropic_created,
                "jobs_cancelled": self.anthropic_cancelled,
            },
        }


@dataclass(frozen=True)
class HttpRequest:
    """What a batch route needs of one HTTP request."""

    method: str
    parts: tuple[str, ...]
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    base_url: str

    def json(self) -> object:
        """The body as JSON (400 when it is not)."""
        try:
            return json.loads(self.body)
        except (ValueError, RecursionError):
            raise ApiError(400, "the body is not JSON (or nested too deeply)") from None


@dataclass(frozen=True)
class HttpAnswer:
    """A response: status, body bytes and content type."""

    status: int
    body: bytes
    content_type: str = "application/json"

    @classmethod
    def of_json(cls, status: int, body: Mapping[str, Any]) -> HttpAnswer:
        """A JSON response."""
        return cls(status, json.dumps(body).encode())


def _request_of(scope: Scope, body: bytes) -> HttpRequest:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
    host = headers.get("host") or "{}:{}".format(*(scope.get("server") or ("localhost", 80)))
    base_url = f"{scope.get('scheme', 'http')}://{host}{scope.get('root_path', '')}"
    return HttpRequest(
        method=scope["method"],
        parts=tuple(filter(None, scope["path"].split("/"))),
        query=parse_qs(scope.get("query_string", b"").decode("latin-1")),
        headers=headers,
        body=body,
        base_url=base_url,
    )


def _list_limit(request: HttpRequest, maximum: int) -> int:
    raw = request.query.get("limit", ["20"])[-1]
    try:
        limit = int(raw)
    except ValueError:
        raise ApiError(400, "limit must be an integer") from None
    if not 1 <= limit <= maximum:
        raise ApiError(400, f"limit must be between 1 and {maximum}")
    return limit


def _page(items: list[dict[str, Any]], after: str | None, limit: int) -> dict[str, Any]:
    ids = [item["id"] for item in items]
    start = ids.index(after) + 1 if after in ids else 0
    page = items[start : start + limit]
    return {
        "data": page,
        "first_id": page[0]["id"] if page else None,
        "last_id": page[-1]["id"] if page else None,
        "has_more": start + limit < len(items),
    }


class BatchEmulator:
    """The batch routes of the sim judge and their in-memory files and jobs."""

    def __init__(
        self,
        knobs: SimKnobs,
        chat_answer: ChatAnswer,
        *,
        clock: Clock = time.time,
        body_limit: int = 32 * 1024 * 1024,
    ) -> None:
        self.knobs = knobs
        self.counts = BatchCounts()
        self.clock = clock
        self._chat_answer = chat_answer
        self._body_limit = body_limit
        self._files: BoundedStore[StoredFile] = BoundedStore()
        self._openai: BoundedStore[SimBatchJob] = BoundedStore()
        self._anthropic: BoundedStore[SimBatchJob] = BoundedStore()

    @staticmethod
    def serves(path: str) -> bool:
        """Whether `path` is one of the batch routes."""
        return path.startswith(("/v1/files", "/v1/batches", "/v1/messages/batches"))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        api: Api = "anthropic" if scope["path"].startswith("/v1/messages") else "openai"
        try:
            answer = self._route(_request_of(scope, await self._read_body(receive)))
        except ApiError as err:
            answer = HttpAnswer.of_json(err.status, _error_json(api, err))
        headers = [
            (b"content-type", answer.content_type.encode()),
            (b"content-length", str(len(answer.body)).encode()),
            (b"fairpair-simulated", b"true"),
        ]
        await send({"type": "http.response.start", "status": answer.status, "headers": headers})
        await send({"type": "http.response.body", "body": answer.body})

    async def _read_body(self, receive: Receive) -> bytes:
        body = await read_body(receive, self._body_limit)
        if body is None:
            raise ApiError(413, "the body is too large", "request_too_large")
        return body

    def _route(self, request: HttpRequest) -> HttpAnswer:
        route = (request.method, *request.parts[1:])
        handler = self._handler(route)
        if handler is None:
            raise ApiError(404, "not found", "not_found_error")
        return handler(request)

    def _handler(self, route: tuple[str, ...]) -> Callable[[HttpRequest], HttpAnswer] | None:
        match route:
            case ("POST", "files"):
                return self._upload_file
            case ("GET", "files", _):
                return lambda r: HttpAnswer.of_json(200, self._file(r.parts[2]).as_json())
            case ("GET", "files", _, "content"):
                return self._file_content
            case ("DELETE", "files", _):
                return self._delete_file
            case ("POST", "batches"):
                return self._create_openai
            case ("GET", "batches"):
                return self._list_openai
            case ("GET", "batches", _):
                return lambda r: HttpAnswer.of_json(200, self._openai_view(r.parts[2]))
            case ("POST", "batches", _, "cancel"):
                return self._cancel_openai
            case ("POST", "messages", "batches"):
                return self._create_anthropic
            case ("GET", "messages", "batches"):
                return self._list_anthropic
            case ("GET", "messages", "batches", _):
                return lambda r: HttpAnswer.of_json(200, self._anthropic_view(r, r.parts[3]))
            case ("POST", "messages", "batches", _, "cancel"):
                return self._cancel_anthropic
            case ("GET", "messages", "batches", _, "results"):
                return self._anthropic_results
            case ("DELETE", "messages", "batches", _):
                return self._delete_anthropic
        return None

    # OpenAI files

    def _upload_file(self, request: HttpRequest) -> HttpAnswer:
        fields = multipart_fields(request.headers.get("content-type", ""), request.body)
        purpose = fields.get("purpose", (None, b""))[1].decode("utf-8", "replace")
        if purpose != "batch":
            raise ApiError(400, "the sim judge takes files with purpose 'batch' only")
        if "file" not in fields:
            raise ApiError(400, "the upload has no file field")
        filename, content = fields["file"]
        stored = self._store_file(filename or "upload.jsonl", "batch", content)
        self.counts.files_uploaded += 1
        return HttpAnswer.of_json(200, stored.as_json())

    def _store_file(self, filename: str, purpose: str, content: bytes) -> StoredFile:
        stored = StoredFile(_new_id("file-"), filename, purpose, content, int(self.clock()))
        self._files.put(stored.id, stored, len(content))
        return stored

    def _file(self, file_id: str) -> StoredFile:
        stored = self._files.get(file_id)
        if stored is None:
            raise ApiError(404, f"No such File object: {file_id}", "not_found_error")
        return stored

    def _file_content(self, request: HttpRequest) -> HttpAnswer:
        return HttpAnswer(200, self._file(request.parts[2]).content, "application/octet-stream")

    def _delete_file(self, request: HttpRequest) -> HttpAnswer:
        stored = self._file(request.parts[2])
        self._files.pop(stored.id)
        return HttpAnswer.of_json(200, {"id": stored.id, "object": "file", "deleted": True})

    # OpenAI batches

    def _create_openai(self, request: HttpRequest) -> HttpAnswer:
        params = request.json()
        if not isinstance(params, dict):
            raise ApiError(400, "the body must be a JSON object")
        if params.get("endpoint") != CHAT_ENDPOINT:
            raise ApiError(400, f"the sim judge batches {CHAT_ENDPOINT} only")
        if params.get("completion_window") != "24h":
            raise ApiError(400, "completion_window must be '24h'")
        metadata = params.get("metadata")
        if metadata is not None and not (
            isinstance(metadata, dict) and all(isinstance(v, str) for v in metadata.values())
        ):
            raise ApiError(400, "metadata must map strings to strings")
        input_file = self._file(str(params.get("input_file_id")))
        if input_file.purpose != "batch":
            raise ApiError(400, "the input file's purpose must be 'batch'")
        job = self._openai_job(input_file, metadata)
        self._openai.put(job.id, job, len(input_file.content))
        self.counts.openai_created += 1
        return HttpAnswer.of_json(200, openai_batch_json(job, job.created_at))

    def _openai_job(self, input_file: StoredFile, metadata: object) -> SimBatchJob:
        lines, errors = parse_input_file(input_file.content, CHAT_ENDPOINT)
        if not errors and self.knobs.batch_outcome == "failed":
            message = "the simulated batch failed (batch_outcome=failed)"
            errors = [
                {"code": "simulated_failure", "line": None, "message": message, "param": None}
            ]
        answers = (
            []
            if errors
            else [Answer(line.custom_id, *self._chat_answer(line.body)) for line in lines]
        )
        bodies = (line.body for line in lines if isinstance(line.body, dict))
        first_model = next((body.get("model") for body in bodies), None)
        extra = {
            "endpoint": CHAT_ENDPOINT,
            "input_file_id": input_file.id,
            "metadata": metadata,
            "model": first_model if isinstance(first_model, str) else None,
            "validation_errors": errors,
            "state": {"status": "validating"},
        }
        return SimBatchJob(
            _new_id("batch_"), answers, self.clock(), self.knobs.batch_delay_s,
            self.knobs.batch_outcome, extra=extra,
        )  # fmt: skip

    def _openai_job_of(self, batch_id: str) -> SimBatchJob:
        job = self._openai.get(batch_id)
        if job is None:
            raise ApiError(404, f"No batch found with id '{batch_id}'", "not_found_error")
        return job

    def _openai_view(self, batch_id: str) -> dict[str, Any]:
        job = self._openai_job_of(batch_id)
        self._advance_openai(job)
        return openai_batch_json(job, self.clock())

    def _advance_openai(self, job: SimBatchJob) -> None:
        """Move the job's state on to what the clock says, writing its files when it ends."""
        if job.ended:
            return
        now, state, created = self.clock(), job.extra["state"], int(job.created_at)
        if job.extra["validation_errors"]:
            errors = {"object": "list", "data": job.extra["validation_errors"]}
            state.update(status="failed", failed_at=int(now), errors=errors)
            job.ended = True
            return
        state.update(status="in_progress", in_progress_at=created)
        if job.has_ended(now) or job.cancelled_at is not None:
            self._finish_openai(job, now)

    def _finish_openai(self, job: SimBatchJob, now: float) -> None:
        done = job.processed(job.end_time())
        reason = job.not_run_reason()
        answered, not_run = job.answers[:done], job.answers[done:]
        output = [_output_line(a) | {"error": None} for a in answered if a.status == 200]
        failed = [_output_line(a) | {"error": None} for a in answered if a.status != 200]
        failed += [_not_run_line(a, f"batch_{reason}") for a in not_run]
        state = job.extra["state"]
        if output:
            state["output_file_id"] = self._store_file(
                f"{job.id}_output.jsonl", "batch_output", _jsonl(output)
            ).id
        if failed:
            state["error_file_id"] = self._store_file(
                f"{job.id}_error.jsonl", "batch_output", _jsonl(failed)
            ).id
        ended_at = int(min(now, job.end_time()))
        if job.cancelled_at is not None:
            state.update(status="cancelled", cancelled_at=int(now))
        elif job.outcome == "expired":
            state.update(status="expired", expired_at=ended_at)
        else:
            state.update(status="completed", finalizing_at=ended_at, completed_at=ended_at)
        job.ended = True

    def _cancel_openai(self, request: HttpRequest) -> HttpAnswer:
        job = self._openai_job_of(request.parts[2])
        self._advance_openai(job)
        if job.ended or job.cancelled_at is not None:
            status = job.extra["state"]["status"]
            raise ApiError(409, f"Cannot cancel a batch with status '{status}'.", "conflict")
        now = self.clock()
        job.cancelled_at = now
        job.extra["state"].update(status="cancelling", cancelling_at=int(now))
        self.counts.openai_cancelled += 1
        return HttpAnswer.of_json(200, openai_batch_json(job, now))

    def _list_openai(self, request: HttpRequest) -> HttpAnswer:
        limit = _list_limit(request, 100)
        after = request.query.get("after", [None])[-1]
        batches = []
        for job in self._openai.newest_first():
            self._advance_openai(job)
            batches.append(openai_batch_json(job, self.clock()))
        return HttpAnswer.of_json(200, {"object": "list", **_page(batches, after, limit)})

    # Anthropic message batches

    def _create_anthropic(self, request: HttpRequest) -> HttpAnswer:
        requests = _anthropic_requests(request.json())
        answers = [Answer(cid, *anthropic_answer(self.knobs, params)) for cid, params in requests]
        job = SimBatchJob(
            _new_id("msgbatch_"), answers, self.clock(), self.knobs.batch_delay_s,
            self.knobs.batch_outcome,
        )  # fmt: skip
        self._anthropic.put(job.id, job, len(request.body))
        self.counts.anthropic_created += 1
        return HttpAnswer.of_json(200, self._anthropic_json(job, request.base_url))

    def _anthropic_job_of(self, batch_id: str) -> SimBatchJob:
        job = self._anthropic.get(batch_id)
        if job is None:
            raise ApiError(404, f"no message batch {batch_id}", "not_found_error")
        # A cancel takes effect at the next read, as the deadline does.
        if job.has_ended(self.clock()) or job.cancelled_at is not None:
            job.ended = True
        return job

    def _anthropic_view(self, request: HttpRequest, batch_id: str) -> dict[str, Any]:
        return self._anthropic_json(self._anthropic_job_of(batch_id), request.base_url)

    def _anthropic_json(self, job: SimBatchJob, base_url: str) -> dict[str, Any]:
        counts = {"processing": 0, "succeeded": 0, "errored": 0, "canceled": 0, "expired": 0}
        if job.ended:
            for result in self._anthropic_results_of(job):
                counts[str(result["result"]["type"])] += 1
        else:
            counts["processing"] = len(job.answers)
        status = "ended" if job.ended else "canceling" if job.cancelled_at else "in_progress"
        ended_at = _rfc3339(job.end_time()) if job.ended else None
        return {
            "id": job.id,
            "type": "message_batch",
            "processing_status": status,
            "request_counts": counts,
            "created_at": _rfc3339(job.created_at),
            "expires_at": _rfc3339(job.created_at + DAY_S),
            "ended_at": ended_at,
            "cancel_initiated_at": _rfc3339(job.cancelled_at) if job.cancelled_at else None,
            "archived_at": None,
            "results_url": f"{base_url}/v1/messages/batches/{job.id}/results"
            if job.ended
            else None,
        }

    def _anthropic_results_of(self, job: SimBatchJob) -> list[dict[str, Any]]:
        done = job.processed(job.end_time())
        reason = job.not_run_reason()
        return [
            {
                "custom_id": answer.custom_id,
                "result": _anthropic_result(answer, None if index < done else reason, job.outcome),
            }
            for index, answer in enumerate(job.answers)
        ]

    def _cancel_anthropic(self, request: HttpRequest) -> HttpAnswer:
        job = self._anthropic_job_of(request.parts[3])
        if job.ended:
            raise ApiError(409, "the message batch has already ended", "invalid_request_error")
        job.cancelled_at = self.clock()
        self.counts.anthropic_cancelled += 1
        return HttpAnswer.of_json(200, self._anthropic_json(job, request.base_url))

    def _anthropic_results(self, request: HttpRequest) -> HttpAnswer:
        job = self._anthropic_job_of(request.parts[3])
        if not job.ended:
            raise ApiError(400, "the message batch is still processing; results come when it ends")
        return HttpAnswer(200, _jsonl(self._anthropic_results_of(job)), "application/x-jsonl")

    def _list_anthropic(self, request: HttpRequest) -> HttpAnswer:
        limit = _list_limit(request, 1000)
        after = request.query.get("after_id", [None])[-1]
        batches = [self._anthropic_view(request, job.id) for job in self._anthropic.newest_first()]
        return HttpAnswer.of_json(200, _page(batches, after, limit))

    def _delete_anthropic(self, request: HttpRequest) -> HttpAnswer:
        job = self._anthropic_job_of(request.parts[3])
        if not job.ended:
            raise ApiError(400, "a message batch can be deleted only once it has ended")
        self._anthropic.pop(job.id)
        return HttpAnswer.of_json(200, {"id": job.id, "type": "message_batch_deleted"})


def _error_json(api: Api, err: ApiError) -> dict[str, Any]:
    if api == "anthropic":
        return {"type": "error", "error": {"type": err.kind, "message": str(err)}}
    return {"error": {"message": str(err), "type": err.kind, "param": None, "code": None}}
