"""Mapping HTTP failures of any provider onto the closed set of error kinds."""

from __future__ import annotations

from collections.abc import Mapping

import httpx2

from app.judging.providers.wire import WireError
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
# The SDKs' message for a request that got no answer (their timeouts have their own).
CONNECTION_ERROR = "Connection error."


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


def transport_error(is_timeout: bool, message: str) -> ProviderCallError:
    """The ProviderCallError for a request that got no HTTP answer."""
    return ProviderCallError("timeout" if is_timeout else "connection", message)


def wire_failure(err: WireError, timed_out: str) -> ProviderCallError:
    """What the provider's SDK raised for a request that got no HTTP answer: `timed_out` or
    "Connection error.". A refusal by the URL policy keeps its reason: it says what to set."""
    if err.refused:
        return transport_error(False, f"Connection error: {err}")
    return transport_error(err.timeout, timed_out if err.timeout else CONNECTION_ERROR)


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
