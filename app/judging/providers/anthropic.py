"""Judges behind Anthropic's Messages API, through the `anthropic` SDK."""

from __future__ import annotations

from typing import Unpack

import anthropic
from anthropic import Omit
from anthropic.types import Message, OutputConfigParam

from app.judging.judge import AnswerKind, ChatRequest, Completion
from app.judging.providers.errors import SdkErrorTypes, client_timeout
from app.judging.providers.http import Connection, HttpJudge
from app.judging.types import JudgeConfig

_NO_KEY = "no-key"
_SDK_ERRORS = SdkErrorTypes(
    anthropic.APIStatusError, anthropic.APIConnectionError, anthropic.APITimeoutError
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


def completion_from_message(message: Message) -> Completion:
    """The provider-neutral view of a Messages API answer."""
    text = "".join(block.text for block in message.content if block.type == "text")
    return Completion(
        text=text,
        provider_model=message.model,
        tokens_in=message.usage.input_tokens,
        tokens_out=message.usage.output_tokens,
    )


class AnthropicJudge(HttpJudge):
    """A judge reached through the Anthropic SDK; confidence is always the stated one.

    The configured temperature is not sent: API version 2026-10-21, the SDK's default,
    rejects sampling parameters.
    """

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        self._client = anthropic.AsyncAnthropic(
            base_url=config.base_url,
            api_key=config.api_key or _NO_KEY,
            http_client=self._http,
            max_retries=0,
        )

    async def aclose(self) -> None:
        """Release the judge's HTTP client."""
        await self._client.close()

    def _output_config(self, request: ChatRequest) -> OutputConfigParam | Omit:
        if not self.config.use_json_mode:
            return anthropic.omit
        schema = answer_schema(request.answer_kind)
        return {"format": {"type": "json_schema", "schema": schema}}

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        try:
            message = await self._client.messages.create(
                model=self.config.model,
                max_tokens=self.config.max_tokens,
                system=request.system,
                messages=[{"role": "user", "content": request.user}],
                output_config=self._output_config(request),
                timeout=client_timeout(timeout_s),
            )
        except anthropic.APIError as err:
            raise _SDK_ERRORS.provider_error(err) from err
        return completion_from_message(message)
