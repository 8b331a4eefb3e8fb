"""Mapping HTTP failures of any provider onto the closed set of error kinds."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

import httpx2

from app.judging.retries import ProviderCallError, parse_retry_after
from app.judging.types import ErrorKind

# Words with which OpenAI-compatible servers (OpenAI, vLLM, llama.cpp, Ollama, ...) and
# Anthropic reject a request parameter they do not know or do not allow.
_UNSUPPORTED_HINTS = (
    "unsupported",
    "not supported",
    "does not support",
    "logprobs",
    "response_format",
    "json_object",
    "output_config",
    "unknown parameter",
    "unrecognized request argument",
    "extra inputs are not permitted",
    "extra_forbidden",
)


def status_error(status: int, message: str, headers: Mapping[str, str]) -> ProviderCallError:
    """The ProviderCallError for an HTTP error status."""
    text = f"HTTP {status}: {message}"
    if status == 429:
        return ProviderCallError("rate_limited", text, retry_after_s=parse_retry_after(headers))
    if status >= 500 or status == 408:
        kind: ErrorKind = "timeout" if status in (408, 504) else "server_error"
        return ProviderCallError(kind, text, retry_after_s=parse_retry_after(headers))
    if status in (401, 403):
        return ProviderCallError("auth", text)
    if status == 400 and any(hint in message.lower() for hint in _UNSUPPORTED_HINTS):
        return ProviderCallError("unsupported_parameter", text)
    return ProviderCallError("bad_request", text)


def response_status_error(response: httpx2.Response, message: str) -> ProviderCallError:
    """The ProviderCallError for an SDK status error carrying its HTTP response."""
    return status_error(response.status_code, message, response.headers)


def transport_error(is_timeout: bool, message: str) -> ProviderCallError:
    """The ProviderCallError for a request that got no HTTP answer."""
    return ProviderCallError("timeout" if is_timeout else "connection", message)


class _SdkError(Protocol):
    @property
    def message(self) -> str: ...


class _SdkStatusError(_SdkError, Protocol):
    @property
    def response(self) -> httpx2.Response: ...


@dataclass(frozen=True)
class SdkErrorTypes:
    """The error classes of an SDK generated like `openai` and `anthropic`: both raise an
    `APIError` that is a status error, a connection error (a timeout is one) or a bad answer."""

    status: type[_SdkStatusError]
    connection: type[_SdkError]
    timeout: type[_SdkError]

    def provider_error(self, err: _SdkError) -> ProviderCallError:
        """The ProviderCallError for `err`, an `APIError` of the SDK."""
        if isinstance(err, self.status):
            return response_status_error(err.response, err.message)
        if isinstance(err, self.connection):
            return transport_error(isinstance(err, self.timeout), err.message)
        return ProviderCallError("server_error", f"invalid response: {err.message}")


def client_timeout(timeout_s: float) -> httpx2.Timeout:
    """Per-phase timeouts: connecting is quick or broken; reading may take the whole budget."""
    return httpx2.Timeout(
        connect=min(5.0, timeout_s), read=timeout_s, write=min(30.0, timeout_s), pool=timeout_s
    )


def http_client(
    transport: httpx2.AsyncBaseTransport | None, timeout_s: float, max_connections: int
) -> httpx2.AsyncClient:
    """The one HTTP client of a judge, with explicit timeouts and connection limits."""
    return httpx2.AsyncClient(
        transport=transport,
        timeout=client_timeout(timeout_s),
        limits=httpx2.Limits(
            max_connections=max_connections, max_keepalive_connections=max_connections
        ),
    )
