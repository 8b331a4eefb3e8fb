"""Judges behind Anthropic's Messages API.

Requests carry the body and headers the `anthropic` SDK sends, over the judge's Wire, and answers
and failures map as the SDK's would (tests/judging/test_anthropic_json_path.py holds the two
equal against the SDK itself); the SDK's models and HTTP client are left out for their CPU cost
(issue 20). A judge's calls in a provider-mode batch go through the Message Batches API
(`AnthropicBatchApi`), over the same Wire, with answers and failures read as live ones are.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, Mapping, Sequence
from datetime import datetime
from typing import Any, Unpack
from urllib.parse import urlsplit

from app.judging.batchapi import (
    BatchRequest,
    ReportedBatchJob,
    RequestResult,
    check_requests,
    check_size,
    file_results,
    invalid_response,
    json_bytes,
    jsonl_objects,
    optional_text,
    required_text,
    same_origin,
    too_long_result,
    utc_from_rfc3339,
)
from app.judging.judge import AnswerKind, ChatRequest, Completion, redact
from app.judging.providers.answers import (
    InvalidAnswerError,
    answer_text,
    provider_model,
    token_count,
)
from app.judging.providers.errors import status_error
from app.judging.providers.http import Connection, HttpJudge, ProviderBatchApi
from app.judging.providers.wire import WireResponse
from app.judging.retries import ProviderCallError
from app.judging.types import ErrorKind, JudgeConfig

_NO_KEY = "no-key"
# The SDK's default API version (anthropic._constants.ANTHROPIC_API_VERSION); the equivalence
# test fails when an SDK upgrade moves it.
API_VERSION = "2026-10-21"
TIMED_OUT = (
    "Request timed out or interrupted. This could be due to a network timeout, dropped "
    "connection, or request cancellation. See https://docs.anthropic.com/en/api/errors#long-"
    "requests for more details."
)
BATCHES_PATH = "/v1/messages/batches"
# The create request's limit, and the bytes of its body around the requests.
MAX_CREATE_BYTES = 256_000_000
_ENVELOPE = (b'{"requests":[', b"]}")
# The status the API answers each error type with: a request that errored in a batch gets the
# kind and text a live call failing with that error gets.
_ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "billing_error": 402,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "timeout_error": 504,
    "overloaded_error": 529,
}
_NOT_RUN: dict[str, tuple[ErrorKind, str]] = {
    "expired": ("expired", "the batch expired before the request ran"),
    "canceled": ("cancelled", "the batch was cancelled before the request ran"),
}
# As the SDK asks for a batch's results.
_BINARY = {"Accept": "application/binary"}


def answer_schema(kind: AnswerKind) -> dict[str, object]:
    """The JSON schema of the contract's answer, for structured output."""
    if kind == "pair":
        properties: dict[str, object] = {
            "winner": {"type": "string"},
            "confidence": {"type": "number"},
            "reason": {"type": "string"},
        }
        required = ["winner", "confidence", "reason"]
    else:
        properties = {
            "scores": {"type": "object", "additionalProperties": {"type": "number"}},
            "reason": {"type": "string"},
        }
        required = ["scores", "reason"]
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def completion_from_json(body: Any) -> Completion:
    """The provider-neutral view of a Messages API answer, from its decoded JSON
    (InvalidAnswerError, LookupError, TypeError or AttributeError when it is not one)."""
    blocks = body["content"]
    if not isinstance(blocks, list):
        raise InvalidAnswerError(f"content is a {type(blocks).__name__}, not a list")
    text = "".join(answer_text(block["text"]) for block in blocks if block.get("type") == "text")
    # Kept with the raw output, never parsed: only text blocks hold the verdict.
    thoughts = [answer_text(b["thinking"]) for b in blocks if b.get("type") == "thinking"]
    usage = body["usage"]
    return Completion(
        text=text,
        thinking="\n".join(thoughts) if thoughts else None,
        provider_model=provider_model(body["model"]),
        tokens_in=token_count(usage["input_tokens"]),
        tokens_out=token_count(usage["output_tokens"]),
    )


def sdk_style_message(response: WireResponse) -> str:
    """The error text the SDK gives a status error: the code and the decoded body as Python
    prints it, or the body's text when it is not JSON."""
    text = response.content.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text or f"Error code: {response.status}"
    return status_text(response.status, body)


def status_text(status: int, body: object) -> str:
    """The SDK's error text for `status` with this decoded body."""
    return f"Error code: {status} - {body}"


class AnthropicBatchApi(ProviderBatchApi):
    """The Message Batches API: one request creates the batch; its results are one JSONL file."""

    max_requests = 100_000
    max_bytes = MAX_CREATE_BYTES - sum(map(len, _ENVELOPE))
    batches_path, cursor = BATCHES_PATH, "after_id"

    def request_size(self, request: BatchRequest) -> int:
        """The bytes of the request in the create body, with its comma."""
        return len(_element(request)) + 1

    async def submit(
        self, requests: Sequence[BatchRequest], metadata: Mapping[str, str]
    ) -> ReportedBatchJob:
        """Create a message batch of the requests; the API keeps no metadata."""
        check_requests(requests, self.max_requests)
        opening, closing = _ENVELOPE
        content = opening + b",".join(_element(request) for request in requests) + closing
        check_size(len(content), MAX_CREATE_BYTES)
        return self._job(await self._http.call_json("POST", self._batches, content, transfer=True))

    def parse_job(self, batch: Any) -> ReportedBatchJob:
        """A listed or answered MessageBatch."""
        return batch_job(batch)

    def created_at(self, batch: Any) -> datetime | None:
        """A MessageBatch's creation time (RFC 3339)."""
        return utc_from_rfc3339(batch["created_at"])

    def listed_matches(self, batch: Any, metadata: Mapping[str, str], request_count: int) -> bool:
        """Whether the batch holds `request_count` requests: the API keeps no metadata, so the
        caller adopts one only when exactly one is unknown to it."""
        return batch_job(batch).total == request_count

    async def results(self, job: ReportedBatchJob) -> AsyncGenerator[list[RequestResult]]:
        """Every request's result, from the batch's `results_url` on the judge's origin,
        downloaded to disk and parsed a chunk at a time."""
        if not job.ended:
            raise ValueError(f"batch {job.id} has not ended: {job.state}")
        secret = self._http.secret

        def parse(custom_id: str, line: dict[str, Any]) -> RequestResult:
            return _result(custom_id, line, secret)

        file = await self._http.download(self._results_path(job), _BINARY)
        async for chunk in file_results(file, parse):
            yield chunk

    def _results_path(self, job: ReportedBatchJob) -> str:
        if job.results_url is None:
            return f"{self._batch_path(job.id)}/results"
        if not same_origin(job.results_url, self._http.base_url):
            host = urlsplit(job.results_url).hostname
            message = f"invalid response: results_url on {host}, not the judge's origin"
            raise ProviderCallError("server_error", redact(message, self._http.secret))
        parts = urlsplit(job.results_url)
        return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")

    async def cleanup(self, job: ReportedBatchJob) -> None:
        """Delete the ended batch (already gone is fine)."""
        await self._http.call("DELETE", self._batch_path(job.id), allow=(404,))


class AnthropicJudge(HttpJudge):
    """A judge behind the Messages API; confidence is always the stated one.

    The configured temperature is not sent: API version 2026-10-21, the SDK's default,
    rejects sampling parameters.
    """

    endpoint = "/v1/messages"
    timed_out = TIMED_OUT
    batch_api_type = AnthropicBatchApi

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        self._headers = {
            "Authorization": f"Bearer {config.api_key or _NO_KEY}",
            "anthropic-version": API_VERSION,
        }

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The Messages API request the SDK would send for `request`."""
        budget = self.config.thinking_budget_tokens
        body: dict[str, Any] = {
            # With thinking, the answer keeps its own allowance on top of the thinking budget
            # (the API wants max_tokens above budget_tokens: thinking counts in it).
            "max_tokens": self.config.max_tokens + (budget or 0),
            "messages": [{"role": "user", "content": request.user}],
            "model": self.config.model,
            "system": request.system,
        }
        if budget is not None:
            body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        if self.config.use_json_mode:
            schema = answer_schema(request.answer_kind)
            body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        return body

    completion = staticmethod(completion_from_json)
    status_message = staticmethod(sdk_style_message)


def _element(request: BatchRequest) -> bytes:
    return json_bytes({"custom_id": request.custom_id, "params": request.body})


def batch_job(batch: Any) -> ReportedBatchJob:
    """A MessageBatch as a ReportedBatchJob (LookupError, TypeError, ValueError if not one)."""
    state, counts = required_text(batch["processing_status"]), batch["request_counts"]
    succeeded = int(counts["succeeded"])
    failed = sum(int(counts[name]) for name in ("errored", "expired", "canceled"))
    return ReportedBatchJob(
        id=required_text(batch["id"]),
        state=state,
        ended=state == "ended",
        failed_whole=False,  # a message batch never fails whole; its requests error
        total=succeeded + failed + int(counts["processing"]),
        succeeded=succeeded,
        failed=failed,
        expires_at=utc_from_rfc3339(batch.get("expires_at")),
        results_url=optional_text(batch.get("results_url")),
    )


def batch_results(content: bytes, secret: str | None) -> list[RequestResult]:
    """The outcome of each line of a results file (malformed lines skipped)."""
    return [
        too_long_result(custom_id) if line is None else _result(custom_id, line, secret)
        for custom_id, line in jsonl_objects(content)
    ]


def _result(custom_id: str, line: dict[str, Any], secret: str | None) -> RequestResult:
    result = line.get("result")
    kind = result.get("type") if isinstance(result, dict) else None
    if kind == "succeeded" and isinstance(result, dict):
        try:
            return RequestResult(custom_id, completion_from_json(result["message"]), None, None)
        except (ValueError, LookupError, TypeError, AttributeError) as err:
            error = invalid_response(err)
    elif kind == "errored" and isinstance(result, dict):
        error = _errored(result.get("error"))
    elif isinstance(kind, str) and kind in _NOT_RUN:
        error = ProviderCallError(*_NOT_RUN[kind])
    else:
        error = invalid_response(ValueError(f"unknown result type {kind!r}"))
    return RequestResult(custom_id, None, error.kind, redact(error.message, secret))


def _errored(response: object) -> ProviderCallError:
    """An errored request's ErrorResponse, mapped as the same error answered live would be."""
    error = response.get("error") if isinstance(response, dict) else None
    error_type = error.get("type") if isinstance(error, dict) else None
    status = _ERROR_STATUS.get(str(error_type), 500)
    return status_error(status, status_text(status, response), {})
