"""Judges behind any OpenAI-compatible Chat Completions endpoint, api.openai.com included.

Every server (OpenAI, vLLM, Ollama, llama.cpp, LM Studio, OpenRouter, the sim) gets the Chat
Completions JSON the `openai` SDK sends, over the judge's Wire, and answers and failures map to
the `Completion` and error kinds the SDK's would. The SDK itself is not used: its request and
response models cost about 2 ms of CPU a call, nothing beside a remote model's seconds but most
of a fast local judge's budget, and its HTTP client is the one issue 20 replaced.
tests/judging/test_openai_json_path.py holds this path equal to the SDK's requests and errors.
"""

from __future__ import annotations

import json
import os
from typing import Any, Unpack

from app.judging.judge import TOP_LOGPROBS, ChatRequest, Completion
from app.judging.providers.http import Connection, HttpJudge
from app.judging.providers.wire import WireResponse
from app.judging.types import JudgeConfig, TokenLogprob

# Local servers (vLLM, Ollama, llama.cpp) need no key; the SDK insisted on one, and sent this.
_NO_KEY = "no-key"
OPENAI_HOST = "api.openai.com"
TIMED_OUT = "Request timed out."


def _json_token_logprobs(choice: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return tuple(
        TokenLogprob(
            token=item["token"],
            logprob=item["logprob"],
            top=tuple((alt["token"], alt["logprob"]) for alt in item.get("top_logprobs") or ()),
        )
        for item in content
    )


def completion_from_json(body: Any) -> Completion:
    """The provider-neutral view of a chat completion, from its decoded JSON."""
    choices = body.get("choices")
    usage = body.get("usage")
    return Completion(
        text=(choices[0]["message"].get("content") if choices else None) or "",
        provider_model=body.get("model"),
        tokens_in=usage.get("prompt_tokens") if usage else None,
        tokens_out=usage.get("completion_tokens") if usage else None,
        logprobs=_json_token_logprobs(choices[0]) if choices else None,
    )


def sdk_style_message(response: WireResponse) -> str:
    """The error text the SDK gives a status error: the code, then the body's error message."""
    text = f"Error code: {response.status}"
    try:
        body = json.loads(response.content.decode("utf-8", "replace").strip())
    except ValueError:
        return text
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


class OpenAIJudge(HttpJudge):
    """A judge behind a Chat Completions endpoint; we retry, the HTTP layer does not."""

    endpoint = "/chat/completions"
    timed_out = TIMED_OUT

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        self._headers = {"Authorization": f"Bearer {config.api_key or _NO_KEY}"}
        if config.base_url_host == OPENAI_HOST:
            self._headers |= organization_headers()

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        """The Chat Completions request the SDK would send for `request`."""
        body: dict[str, Any] = {
            "messages": request.messages(),
            "model": self.config.model,
            "temperature": self.config.temperature,
        }
        if self.config.use_json_mode:
            body["response_format"] = {"type": "json_object"}
        if request.want_logprobs:
            body["logprobs"], body["top_logprobs"] = True, TOP_LOGPROBS
        return body

    def completion(self, body: Any) -> Completion:
        """The provider-neutral view of a decoded answer."""
        return completion_from_json(body)

    def status_message(self, response: WireResponse) -> str:
        """The text the SDK gives an error status."""
        return sdk_style_message(response)
