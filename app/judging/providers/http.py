"""What the judges reached over HTTP share: one Wire with the judge's timeouts and limits."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import Any, ClassVar, TypedDict, Unpack
from urllib.parse import urlsplit

import httpx2
import orjson

from app.judging.base import Judge
from app.judging.egress import EgressPolicy
from app.judging.judge import ChatRequest, Completion
from app.judging.providers.errors import client_timeout, http_client, status_error, wire_failure
from app.judging.providers.wire import BASE_HEADERS, LeanWire, Wire, WireError, WireResponse
from app.judging.ratelimit import RateLimiter
from app.judging.retries import ProviderCallError
from app.judging.types import JudgeConfig


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


class HttpxWire:
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

    async def post_json(
        self, path: str, body: Mapping[str, Any], headers: Mapping[str, str], timeout_s: float
    ) -> WireResponse:
        """POST `body` as JSON through the transport."""
        try:
            response = await self._client.post(
                self._origin + path,
                content=orjson.dumps(body),
                headers={**BASE_HEADERS, **headers},
                timeout=client_timeout(timeout_s),
            )
        except httpx2.TimeoutException as err:
            raise WireError(str(err) or "timed out", timeout=True) from err
        except httpx2.HTTPError as err:
            raise WireError(str(err) or type(err).__name__) from err
        headers_read = {name.lower(): value for name, value in response.headers.items()}
        return WireResponse(response.status_code, headers_read, response.content)

    async def aclose(self) -> None:
        """Close the client and its transport."""
        await self._client.aclose()


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


class HttpJudge(Judge):
    """A judge reached over HTTP through one Wire of its own; a provider says what it sends
    (`endpoint`, `_headers`, `_body`), how it reads answers and how its SDK words failures."""

    # The path after the base URL's, as the SDK appends it.
    endpoint: ClassVar[str]
    # The SDK's message for a request that timed out.
    timed_out: ClassVar[str]

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, connection.get("limiter"))
        self._wire = judge_wire(config, connection)
        base_path = urlsplit(config.effective_base_url or "").path.rstrip("/")
        self._path = base_path + self.endpoint
        self._headers: dict[str, str] = {}

    @abstractmethod
    def _body(self, request: ChatRequest) -> dict[str, Any]:
        """The JSON the provider's SDK would send for `request`."""

    @abstractmethod
    def completion(self, body: Any) -> Completion:
        """The provider-neutral view of a decoded answer."""

    @abstractmethod
    def status_message(self, response: WireResponse) -> str:
        """The text the provider's SDK gives an error status."""

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        try:
            response = await self._wire.post_json(
                self._path, self._body(request), self._headers, timeout_s
            )
        except WireError as err:
            raise wire_failure(err, self.timed_out) from err
        if not 200 <= response.status < 300:
            raise status_error(response.status, self.status_message(response), response.headers)
        try:
            return self.completion(response.json())
        except (ValueError, LookupError, TypeError, AttributeError) as err:
            raise ProviderCallError("server_error", f"invalid response: {err!r}") from err

    async def aclose(self) -> None:
        """Release the judge's connections."""
        await self._wire.aclose()
