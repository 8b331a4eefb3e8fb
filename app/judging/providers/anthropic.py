"""Judges behind Anthropic's Messages API.

Requests carry the body and headers the `anthropic` SDK sends, over the judge's Wire, and answers
and failures map as the SDK's would (tests/judging/test_anthropic_json_path.py holds the two
equal against the SDK itself); the SDK's models and HTTP client are left out for their CPU cost
(issue 20).
"""

from __future__ import annotations

import json
from typing import Any, Unpack

from app.judging.judge import AnswerKind, ChatRequest, Completion
from app.judging.providers.http import Connection, HttpJudge
from app.judging.providers.wire import WireResponse
from app.judging.types import JudgeConfig

_NO_KEY = "no-key"
# The SDK's default API version (anthropic._constants.ANTHROPIC_API_VERSION); the equivalence
# test fails when an SDK upgrade moves it.
API_VERSION = "2026-10-21"
TIMED_OUT = (
    "Request timed out or interrupted. This could be due to a network timeout, dropped "
    "connection, or request cancellation. See https://docs.anthropic.com/en/api/errors#long-"
    "requests for more details."
)


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
    """The provider-neutral view of a Messages API answer, from its decoded JSON."""
    text = "".join(block["text"] for block in body["content"] if block.get("type") == "text")
    usage = body["usage"]
    return Completion(
        text=text,
        provider_model=body["model"],
        tokens_in=usage["input_tokens"],
        tokens_out=usage["output_tokens"],
    )


def sdk_style_message(response: WireResponse) -> str:
    """The error text the SDK gives a status error: the code and the decoded body as Python
    prints it, or the body's text when it is not JSON."""
    text = response.content.decode("utf-8", "replace").strip()
    try:
        body = json.loads(text)
    except ValueError:
        return text or f"Error code: {response.status}"
    return f"Error code: {response.status} - {body}"


class AnthropicJudge(HttpJudge):
    """A judge behind the Messages API; confidence is always the stated one.

    The configured temperature is not sent: API version 2026-10-21, the SDK's default,
    rejects sampling parameters.
    """

    endpoint = "/v1/messages"
    timed_out = TIMED_OUT

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        self._headers = {
            "Authorization": f"Bearer {config.api_key or _NO_KEY}",
            "anthropic-version": API_VERSION,
        }

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        """The Messages API request the SDK would send for `request`."""
        body: dict[str, Any] = {
            "max_tokens": self.config.max_tokens,
            "messages": [{"role": "user", "content": request.user}],
            "model": self.config.model,
            "system": request.system,
        }
        if self.config.use_json_mode:
            schema = answer_schema(request.answer_kind)
            body["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        return body

    def completion(self, body: Any) -> Completion:
        """The provider-neutral view of a decoded answer."""
        return completion_from_json(body)

    def status_message(self, response: WireResponse) -> str:
        """The text the SDK gives an error status."""
        return sdk_style_message(response)
