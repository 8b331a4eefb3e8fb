"""Judges behind any OpenAI-compatible Chat Completions endpoint, api.openai.com included.

Every server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, OpenRouter, the sim) gets the Chat
Completions JSON the `openai` SDK sends, over the judge's Wire, and answers and failures map to
the `Completion` and error kinds the SDK's would. The SDK itself is not used: its request and
response models cost about 2 ms of CPU a call, nothing beside a remote model's seconds but most
of a fast local judge's budget, and its HTTP client is the one issue 20 replaced.
tests/judging/test_openai_json_path.py holds this path equal to the SDK's requests and errors.
A judge's calls in a provider-mode batch go through OpenAI's Batch API (`OpenAIBatchApi`), over
the same Wire, with answers and failures read as live ones are.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
from collections.abc import AsyncGenerator, Mapping, Sequence
from datetime import datetime
from typing import Any, Unpack

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
    too_long_result,
    utc_from_unix,
)
from app.judging.judge import TOP_LOGPROBS, ChatRequest, Completion, redact
from app.judging.providers.answers import (
    InvalidAnswerError,
    answer_text,
    logprob,
    provider_model,
    token_count,
    token_text,
)
from app.judging.providers.errors import status_error
from app.judging.providers.http import Connection, HttpJudge, ProviderBatchApi, segment
from app.judging.providers.wire import WireResponse
from app.judging.retries import ProviderCallError
from app.judging.types import ErrorKind, JudgeConfig, TokenLogprob

# Local servers (vLLM, Ollama, llama.cpp) need no key; the SDK insisted on one, and sent this.
_NO_KEY = "no-key"
OPENAI_HOST = "api.openai.com"
TIMED_OUT = "Request timed out."
# What every line of a batch asks, as the Batch API names the endpoint (whatever the base URL).
BATCH_ENDPOINT = "/v1/chat/completions"
# The statuses after which nothing more happens to a batch.
_ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
_NOT_RUN: dict[str, ErrorKind] = {"batch_expired": "expired", "batch_cancelled": "cancelled"}
# Kinds of a batch create that was answered, so certainly made no batch of the uploaded file.
_REFUSED: frozenset[ErrorKind] = frozenset(
    {"bad_request", "auth", "unsupported_parameter", "rate_limited"}
)
# As the SDK asks for a file's content.
_BINARY = {"Accept": "application/binary"}


def _json_token_logprobs(choice: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return tuple(
        TokenLogprob(
            token=token_text(item["token"]),
            logprob=logprob(item["logprob"]),
            top=tuple(
                (token_text(alt["token"]), logprob(alt["logprob"]))
                for alt in item.get("top_logprobs") or ()
            ),
        )
        for item in content
    )


def completion_from_json(body: Any) -> Completion:
    """The provider-neutral view of a chat completion, from its decoded JSON (InvalidAnswerError,
    LookupError, TypeError or AttributeError when it is not one)."""
    choices = body.get("choices")
    if choices is not None and not isinstance(choices, list):
        raise InvalidAnswerError(f"choices is a {type(choices).__name__}, not a list")
    usage = body.get("usage") or {}
    details = usage.get("completion_tokens_details") or {}
    return Completion(
        text=answer_text(choices[0]["message"].get("content") if choices else None),
        provider_model=provider_model(body.get("model")),
        tokens_in=token_count(usage.get("prompt_tokens")),
        tokens_out=token_count(usage.get("completion_tokens")),
        reasoning_tokens=token_count(details.get("reasoning_tokens")),
        logprobs=_json_token_logprobs(choices[0]) if choices else None,
    )


def sdk_style_message(response: WireResponse) -> str:
    """The error text the SDK gives a status error: the code, then the body's error message."""
    try:
        body = json.loads(response.content.decode("utf-8", "replace").strip())
    except ValueError:
        return f"Error code: {response.status}"
    return status_text(response.status, body)


def status_text(status: int, body: object) -> str:
    """The SDK's error text for `status` with this decoded body."""
    text = f"Error code: {status}"
    error = body.get("error", body) if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"{text} - {message}" if isinstance(message, str) and message else text


def organization_headers() -> dict[str, str]:
    """What the SDK adds for api.openai.com from OPENAI_ORG_ID and OPENAI_PROJECT_ID."""
    variables = {"OpenAI-Organization": "OPENAI_ORG_ID", "OpenAI-Project": "OPENAI_PROJECT_ID"}
    return {
        name: value
        for name, variable in variables.items()
        if (value := os.environ.get(variable)) is not None
    }


class OpenAIBatchApi(ProviderBatchApi):
    """OpenAI's Batch API: a JSONL file uploaded through the Files API, one batch over it."""

    max_requests = 50_000
    # The input file's limit, 200 MB.
    max_bytes = 200_000_000
    batches_path, cursor = "/batches", "after"

    def request_size(self, request: BatchRequest) -> int:
        """The bytes of the request's line in the input file."""
        return len(_input_line(request))

    async def submit(
        self, requests: Sequence[BatchRequest], metadata: Mapping[str, str]
    ) -> ReportedBatchJob:
        """Upload the requests as a JSONL file and create a 24 h batch over it."""
        check_requests(requests, self.max_requests)
        content = b"".join(_input_line(request) for request in requests)
        check_size(len(content), self.max_bytes)
        file_id = await self._upload(content)
        create = {
            "input_file_id": file_id,
            "endpoint": BATCH_ENDPOINT,
            "completion_window": "24h",
            "metadata": dict(metadata),
        }
        try:
            batch = await self._http.call_json("POST", self._batches, json_bytes(create))
        except ProviderCallError as error:
            if error.kind in _REFUSED:  # no batch reads the file: do not leave it behind
                with contextlib.suppress(ProviderCallError):
                    await self._delete_file(file_id)
            raise
        return self._job(batch)

    async def _upload(self, content: bytes) -> str:
        boundary = secrets.token_hex(16)
        headers = {"Content-Type": f"multipart/form-data; boundary={boundary}"}
        path = f"{self._base}/files"
        uploaded = await self._http.call_json(
            "POST", path, upload_form(boundary, content), headers, transfer=True
        )
        try:
            return required_text(uploaded["id"])
        except (LookupError, TypeError, ValueError) as err:
            raise invalid_response(err) from err

    def parse_job(self, batch: Any) -> ReportedBatchJob:
        """A listed or answered Batch object."""
        return batch_job(batch, self._http.secret)

    def created_at(self, batch: Any) -> datetime | None:
        """A Batch object's creation time (Unix seconds)."""
        return utc_from_unix(batch["created_at"])

    def listed_matches(self, batch: Any, metadata: Mapping[str, str], request_count: int) -> bool:
        """Whether the batch carries `metadata` (the count is not needed: OpenAI keeps it)."""
        listed = batch.get("metadata") or {}
        return all(listed.get(key) == value for key, value in metadata.items())

    async def results(self, job: ReportedBatchJob) -> AsyncGenerator[list[RequestResult]]:
        """The lines of the output and error files, downloaded to disk and parsed a chunk at a
        time; none for a batch that failed whole."""
        if not job.ended:
            raise ValueError(f"batch {job.id} has not ended: {job.state}")
        secret = self._http.secret

        def parse(custom_id: str, line: dict[str, Any]) -> RequestResult:
            return _line_result(custom_id, line, secret)

        for file_id in (job.output_file_id, job.error_file_id):
            if file_id is not None:
                path = f"{self._base}/files/{segment(file_id)}/content"
                file = await self._http.download(path, _BINARY)
                async for chunk in file_results(file, parse):
                    yield chunk

    async def cleanup(self, job: ReportedBatchJob) -> None:
        """Delete the batch's input, output and error files (already gone is fine)."""
        for file_id in (job.input_file_id, job.output_file_id, job.error_file_id):
            if file_id is not None:
                await self._delete_file(file_id)

    async def _delete_file(self, file_id: str) -> None:
        path = f"{self._base}/files/{segment(file_id)}"
        await self._http.call("DELETE", path, allow=(404,))


class OpenAIJudge(HttpJudge):
    """A judge behind a Chat Completions endpoint; we retry, the HTTP layer does not."""

    endpoint = "/chat/completions"
    timed_out = TIMED_OUT
    batch_api_type = OpenAIBatchApi

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        self._headers = {"Authorization": f"Bearer {config.api_key or _NO_KEY}"}
        if config.base_url_host == OPENAI_HOST:
            self._headers |= organization_headers()

    def request_body(self, request: ChatRequest) -> dict[str, Any]:
        """The Chat Completions request the SDK would send for `request`; a reasoning model's
        without `temperature` and logprobs, which it refuses."""
        config = self.config
        body: dict[str, Any] = {"messages": request.messages(), "model": config.model}
        if not config.is_reasoning:
            body["temperature"] = config.temperature
        if config.use_json_mode:
            body["response_format"] = {"type": "json_object"}
        if request.want_logprobs and not config.is_reasoning:
            body["logprobs"], body["top_logprobs"] = True, TOP_LOGPROBS
        if config.max_completion_tokens is not None:
            body["max_completion_tokens"] = config.max_completion_tokens
        if config.reasoning_effort is not None:
            body["reasoning_effort"] = config.reasoning_effort
        return body

    completion = staticmethod(completion_from_json)
    status_message = staticmethod(sdk_style_message)


def _input_line(request: BatchRequest) -> bytes:
    line = {
        "custom_id": request.custom_id,
        "method": "POST",
        "url": BATCH_ENDPOINT,
        "body": request.body,
    }
    return json_bytes(line) + b"\n"


def upload_form(boundary: str, content: bytes) -> bytes:
    """The Files API upload as the SDK sends it: purpose `batch`, then the file."""
    dash = f"--{boundary}\r\n".encode()
    return b"".join((
        dash, b'Content-Disposition: form-data; name="purpose"\r\n\r\nbatch\r\n',
        dash, b'Content-Disposition: form-data; name="file"; filename="batch.jsonl"\r\n',
        b"Content-Type: application/octet-stream\r\n\r\n", content,
        f"\r\n--{boundary}--\r\n".encode(),
    ))  # fmt: skip


def batch_job(batch: Any, secret: str | None) -> ReportedBatchJob:
    """A Batch object as a ReportedBatchJob (LookupError, TypeError, ValueError if not one)."""
    status, counts = required_text(batch["status"]), batch.get("request_counts") or {}
    return ReportedBatchJob(
        id=required_text(batch["id"]),
        state=status,
        ended=status in _ENDED,
        failed_whole=status == "failed",
        total=int(counts.get("total", 0)),
        succeeded=int(counts.get("completed", 0)),
        failed=int(counts.get("failed", 0)),
        expires_at=utc_from_unix(batch.get("expires_at")),
        input_file_id=optional_text(batch.get("input_file_id")),
        output_file_id=optional_text(batch.get("output_file_id")),
        error_file_id=optional_text(batch.get("error_file_id")),
        error=_validation_errors(batch.get("errors"), secret),
    )


def _validation_errors(errors: object, secret: str | None) -> str | None:
    data = errors.get("data") if isinstance(errors, dict) else None
    if not isinstance(data, list) or not data:
        return None
    lines = (
        f"line {error.get('line')}: {error.get('message')}"
        if error.get("line") is not None
        else str(error.get("message"))
        for error in data
        if isinstance(error, dict)
    )
    return redact("; ".join(lines), secret)


def batch_results(content: bytes, secret: str | None) -> list[RequestResult]:
    """The outcome of each line of an output or error file (malformed lines skipped)."""
    return [
        too_long_result(custom_id) if line is None else _line_result(custom_id, line, secret)
        for custom_id, line in jsonl_objects(content)
    ]


def _line_result(custom_id: str, line: dict[str, Any], secret: str | None) -> RequestResult:
    response = line.get("response")
    status = response.get("status_code") if isinstance(response, dict) else None
    if isinstance(status, int) and not isinstance(status, bool):
        body = response.get("body") if isinstance(response, dict) else None
        if not 200 <= status < 300:
            error = status_error(status, status_text(status, body), {})
        else:
            try:
                return RequestResult(custom_id, completion_from_json(body), None, None)
            except (ValueError, LookupError, TypeError, AttributeError) as err:
                error = invalid_response(err)
    else:
        error = _not_run(line.get("error"))
    return RequestResult(custom_id, None, error.kind, redact(error.message, secret))


def _not_run(error: object) -> ProviderCallError:
    """A line without a response: not run (expired, cancelled) or failed before reaching the
    model."""
    if not isinstance(error, dict):
        return ProviderCallError("server_error", "the batch gave neither a response nor an error")
    code, message = error.get("code"), error.get("message")
    text = f"{code}: {message}" if message else str(code)
    return ProviderCallError(_NOT_RUN.get(str(code), "server_error"), text)
