"""What the judges reached over HTTP share: one Wire with the judge's timeouts and limits, which
their provider batch APIs use too."""

from __future__ import annotations

import asyncio
import tempfile
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import contextmanager
from datetime import datetime
from typing import Any, BinaryIO, ClassVar, TypedDict, Unpack
from urllib.parse import quote, urlsplit

import httpx2

from app.judging.base import JudgeClient
from app.judging.batchapi import (
    BatchApi,
    ReportedBatchJob,
    Window,
    find_listed,
    invalid_response,
    list_path,
)
from app.judging.egress import EgressPolicy
from app.judging.judge import ChatRequest, Completion, redact
from app.judging.providers.answers import invalid_answer
from app.judging.providers.errors import client_timeout, http_client, status_error, wire_failure
from app.judging.providers.wire import (
    BASE_HEADERS,
    MAX_RESPONSE_BYTES,
    LeanWire,
    Wire,
    WireError,
    WireResponse,
    too_large,
    unasked_encoding,
)
from app.judging.ratelimit import RateLimiter
from app.judging.retries import ProviderCallError
from app.judging.types import JudgeConfig

# A batch's input and output files move in one request each: they get this long at least.
TRANSFER_TIMEOUT_S = 600.0
# The largest batch output or results file read; a provider job's own limits keep below it.
MAX_DOWNLOAD_BYTES = 2**30
# orjson decodes about 1 MB a millisecond (more for dense structures); a larger answer (a
# long one with logprobs, a hostile one of up to MAX_RESPONSE_BYTES) is decoded and checked in
# a worker thread, so that it never holds the event loop. Below, the thread hop costs more.
ANSWER_ON_LOOP_BYTES = 1_000_000


class Connection(TypedDict, total=False):
    """How an HTTP judge reaches its provider.

    `transport` replaces the network (tests, replays); otherwise the judge connects itself, to
    addresses `egress` allows (by default the judges file's trust: non-public addresses yes,
    link-local and metadata never), with at most `max_connections` (default: its
    `max_concurrency`). `limiter` counts the judge's `rpm` (shared through Redis), and without
    one the judge counts it in process.
    """

    transport: httpx2.AsyncBaseTransport | None
    egress: EgressPolicy | None
    max_connections: int | None
    limiter: RateLimiter | None


class HttpxWire(Wire):
    """The Wire over an httpx2 transport: how the tests' and replays' fake providers plug in.

    It sends what the lean wire sends (same JSON bytes and headers), so the providers' request
    building and answer parsing are the ones tested.
    """

    def __init__(
        self,
        base_url: str,
        transport: httpx2.AsyncBaseTransport,
        timeout_s: float,
        max_connections: int,
    ) -> None:
        parts = urlsplit(base_url)
        self._origin = f"{parts.scheme}://{parts.netloc}"
        self._client = http_client(transport, timeout_s, max_connections)

    async def request(
        self,
        method: str,
        path: str,
        content: bytes,
        headers: Mapping[str, str],
        timeout_s: float,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> WireResponse:
        """Send `content` with `method` through the transport; at most `max_bytes` come back."""
        with _as_wire_errors():
            async with self._client.stream(
                method,
                self._origin + path,
                content=content,
                headers={**BASE_HEADERS, **headers},
                timeout=client_timeout(timeout_s),
            ) as response:
                body = await _read_at_most(response, max_bytes)
        headers_read = {name.lower(): value for name, value in response.headers.items()}
        return WireResponse(response.status_code, headers_read, body)

    async def download(
        self,
        path: str,
        headers: Mapping[str, str],
        timeout_s: float,
        sink: BinaryIO,
        max_bytes: int,
    ) -> WireResponse:
        """GET `path` into `sink` through the transport (see Wire.download)."""
        sent = {**BASE_HEADERS, **headers, "Accept-Encoding": "identity"}
        with _as_wire_errors():
            async with self._client.stream(
                "GET", self._origin + path, headers=sent, timeout=client_timeout(timeout_s)
            ) as response:
                headers_read = {name.lower(): value for name, value in response.headers.items()}
                if not 200 <= response.status_code < 300:
                    body = await _read_at_most(response, MAX_RESPONSE_BYTES)
                    return WireResponse(response.status_code, headers_read, body)
                refused = unasked_encoding(headers_read)
                if refused is not None:
                    raise refused
                # Nothing to inflate (refused above); aiter_bytes also reads what a fake
                # transport has read already.
                async for chunk in _chunks_at_most(response, max_bytes):
                    sink.write(chunk)
        return WireResponse(response.status_code, headers_read, b"")

    async def aclose(self) -> None:
        """Close the client and its transport."""
        await self._client.aclose()


@contextmanager
def _as_wire_errors() -> Iterator[None]:
    """httpx2's failures as the Wire's: a timeout, or no complete answer."""
    try:
        yield
    except httpx2.TimeoutException as err:
        raise WireError(str(err) or "timed out", timeout=True) from err
    except httpx2.HTTPError as err:
        raise WireError(str(err) or type(err).__name__) from err


async def _chunks_at_most(response: httpx2.Response, max_bytes: int) -> AsyncIterator[bytes]:
    """The answer's body as it arrives; a server error once it passes `max_bytes`."""
    size = 0
    async for chunk in response.aiter_bytes():
        size += len(chunk)
        if size > max_bytes:
            raise too_large(max_bytes)
        yield chunk


async def _read_at_most(response: httpx2.Response, max_bytes: int) -> bytes:
    return b"".join([chunk async for chunk in _chunks_at_most(response, max_bytes)])


def judge_wire(config: JudgeConfig, connection: Connection) -> Wire:
    """The judge's Wire: over the given transport, else the lean client under the URL policy."""
    base_url = config.effective_base_url
    if base_url is None:
        raise ValueError(f"judge '{config.name}' has no base_url")
    max_connections = connection.get("max_connections") or config.max_concurrency
    transport = connection.get("transport")
    if transport is not None:
        return HttpxWire(base_url, transport, config.timeout_s, max_connections)
    egress = connection.get("egress") or EgressPolicy().trusting()
    return LeanWire(base_url, egress, max_connections)


class HttpJudge(JudgeClient):
    """A judge reached over HTTP through one Wire of its own; a provider says what it sends
    (`endpoint`, `_headers`, `_body`), how it reads answers and how its SDK words failures."""

    # The path after the base URL's, as the SDK appends it.
    endpoint: ClassVar[str]
    # The SDK's message for a request that timed out.
    timed_out: ClassVar[str]
    # The provider's batch API.
    batch_api_type: ClassVar[type[ProviderBatchApi]]

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, connection.get("limiter"))
        self._wire = judge_wire(config, connection)
        # The base URL's path, to which the SDK appends every endpoint's.
        self.base_path = urlsplit(config.effective_base_url or "").path.rstrip("/")
        self._path = self.base_path + self.endpoint
        self._headers: dict[str, str] = {}

    @abstractmethod
    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON the provider's SDK would send for `request`."""

    @abstractmethod
    def completion(self, body: Any) -> Completion:
        """The provider-neutral view of a decoded answer."""

    @abstractmethod
    def status_message(self, response: WireResponse) -> str:
        """The text the provider's SDK gives an error status."""

    def batch_api(self) -> BatchApi:
        """The provider's batch API over this judge's Wire, paths and headers."""
        return self.batch_api_type(self)

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        try:
            response = await self._wire.post_json(
                self._path, self.request_body(request), self._headers, timeout_s
            )
        except WireError as err:
            raise wire_failure(err, self.timed_out) from err
        if not 200 <= response.status < 300:
            raise status_error(response.status, self.status_message(response), response.headers)
        if len(response.content) > ANSWER_ON_LOOP_BYTES:
            return await asyncio.to_thread(self._read_answer, response)
        return self._read_answer(response)

    def _read_answer(self, response: WireResponse) -> Completion:
        """The completion of a 2xx answer: not JSON is a (retried) server error, as the SDKs
        have it (a gateway's error page); JSON that is not a completion is `invalid_response`."""
        try:
            body = response.json()
        except ValueError as err:
            raise ProviderCallError("server_error", f"invalid response: {err!r}") from err
        try:
            return self.completion(body)
        except (ValueError, LookupError, TypeError, AttributeError) as err:
            raise invalid_answer(err, response.content) from err

    async def aclose(self) -> None:
        """Release the judge's connections."""
        await self._wire.aclose()


class BatchClient:
    """The HTTP of a judge's provider batch API: the judge's own Wire (its URL policy and
    connection limit), headers (its key, bound to its origin) and SDK wording of failures.

    Every failure is a ProviderCallError of the kinds live calls get, its message free of the key.
    """

    def __init__(self, judge: HttpJudge) -> None:
        self.base_path = judge.base_path
        self.base_url = judge.config.effective_base_url or ""
        self.secret = judge.config.api_key
        self._judge = judge

    async def call(
        self,
        method: str,
        path: str,
        content: bytes = b"",
        headers: Mapping[str, str] | None = None,
        *,
        transfer: bool = False,
        allow: tuple[int, ...] = (),
    ) -> WireResponse:
        """Send `content` to `path` (from the origin); a status in `allow` is returned, not raised.

        `transfer` marks a file's upload: a longer timeout.
        """
        judge = self._judge
        sent = judge._headers if headers is None else {**judge._headers, **headers}
        timeout_s = judge.config.timeout_s
        if transfer:
            timeout_s = max(timeout_s, TRANSFER_TIMEOUT_S)
        # Only downloads (`download`) may be large, and they go to a file: an answer in memory
        # (an upload's or a create's JSON) is held to a judge answer's cap.
        try:
            response = await judge._wire.request(method, path, content, sent, timeout_s)
        except WireError as err:
            raise self.redacted(wire_failure(err, judge.timed_out)) from err
        return self.checked(response, allow)

    def checked(self, response: WireResponse, allow: tuple[int, ...] = ()) -> WireResponse:
        """`response`, or its status's failure (worded as the SDK does, the key removed)."""
        if not 200 <= response.status < 300 and response.status not in allow:
            message = self._judge.status_message(response)
            raise self.redacted(status_error(response.status, message, response.headers))
        return response

    async def download(self, path: str, headers: Mapping[str, str]) -> BinaryIO:
        """A results file, in an anonymous temporary file (deleted when closed) read from its
        start; at most MAX_DOWNLOAD_BYTES, and never in an encoding we did not ask for."""
        judge = self._judge
        sink = tempfile.TemporaryFile()
        try:
            timeout_s = max(judge.config.timeout_s, TRANSFER_TIMEOUT_S)
            sent = {**judge._headers, **headers}
            try:
                response = await judge._wire.download(
                    path, sent, timeout_s, sink, MAX_DOWNLOAD_BYTES
                )
            except WireError as err:
                raise self.redacted(wire_failure(err, judge.timed_out)) from err
            except ProviderCallError as err:
                raise self.redacted(err) from err
            self.checked(response)
            sink.seek(0)
        except BaseException:
            sink.close()
            raise
        return sink

    async def call_json(
        self,
        method: str,
        path: str,
        content: bytes = b"",
        headers: Mapping[str, str] | None = None,
        *,
        transfer: bool = False,
    ) -> Any:
        """The decoded JSON answer of `call` (a server error when it is not JSON)."""
        response = await self.call(method, path, content, headers, transfer=transfer)
        try:
            return response.json()
        except ValueError as err:
            raise invalid_response(err) from err

    def redacted(self, error: ProviderCallError) -> ProviderCallError:
        """`error` with anything key-like removed from its message."""
        message = redact(error.message, self.secret)
        return ProviderCallError(error.kind, message, retry_after_s=error.retry_after_s)


def segment(value: str) -> str:
    """A provider's id as one path segment (a slash in it cannot reach another route)."""
    return quote(value, safe="")


class ProviderBatchApi(BatchApi, ABC):
    """What both providers' batch APIs share: the judge's BatchClient, a batch's path under the
    list endpoint, and the retrieve, cancel and find round trips over it."""

    # The batches' list endpoint after the base URL's path, and its cursor parameter.
    batches_path: ClassVar[str]
    cursor: ClassVar[str]

    def __init__(self, judge: HttpJudge) -> None:
        self._http = BatchClient(judge)
        self._base = judge.base_path
        self._batches = self._base + self.batches_path

    @abstractmethod
    def parse_job(self, batch: Any) -> ReportedBatchJob:
        """The provider's batch object as a ReportedBatchJob (LookupError, TypeError,
        ValueError or AttributeError if it is not one)."""

    @abstractmethod
    def created_at(self, batch: Any) -> datetime | None:
        """When a listed batch was created."""

    @abstractmethod
    def listed_matches(self, batch: Any, metadata: Mapping[str, str], request_count: int) -> bool:
        """Whether a listed batch may be the one a submission with `metadata` made."""

    async def retrieve(self, job_id: str) -> ReportedBatchJob:
        """The batch as it stands now."""
        return self._job(await self._http.call_json("GET", self._batch_path(job_id)))

    async def cancel(self, job_id: str) -> ReportedBatchJob:
        """Ask the provider to stop the batch (it goes through its cancelling state)."""
        return self._job(await self._http.call_json("POST", f"{self._batch_path(job_id)}/cancel"))

    async def find(
        self, metadata: Mapping[str, str], request_count: int, created: Window
    ) -> list[ReportedBatchJob]:
        """The listed batches created within `created` that `listed_matches` accepts."""

        async def page(after: str | None) -> Any:
            return await self._http.call_json("GET", list_path(self._batches, self.cursor, after))

        def matches(batch: Any) -> bool:
            return self.listed_matches(batch, metadata, request_count)

        return await find_listed(page, self.parse_job, self.created_at, matches, created)

    def _batch_path(self, job_id: str) -> str:
        return f"{self._batches}/{segment(job_id)}"

    def _job(self, batch: Any) -> ReportedBatchJob:
        try:
            return self.parse_job(batch)
        except (LookupError, TypeError, ValueError, AttributeError) as err:
            raise invalid_response(err) from err
