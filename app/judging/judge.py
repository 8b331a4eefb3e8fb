"""The request and answer values between the judge call flow and its providers."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from app.judging.types import TokenLogprob
from app.textpatterns import compile_linear

AnswerKind = Literal["pair", "scores"]

_KEY_LIKE = compile_linear(r"\b(?:sk|fp|key)[-_][A-Za-z0-9_-]{8,}|Bearer\s+\S+", ignore_case=True)
MAX_ERROR_CHARS = 300
# JUDGING.md: with `logprobs`, ask for the 20 most likely alternatives of every token.
TOP_LOGPROBS = 20


@dataclass(frozen=True)
class ChatRequest:
    """One chat request to a judge: a system and a user message."""

    system: str
    user: str
    answer_kind: AnswerKind
    want_logprobs: bool

    def messages(self) -> list[dict[str, str]]:
        """The messages as an OpenAI-compatible endpoint receives them."""
        return [{"role": "system", "content": self.system}, {"role": "user", "content": self.user}]


@dataclass(frozen=True)
class Completion:
    """What a provider answered to one request."""

    text: str
    provider_model: str | None
    tokens_in: int | None
    tokens_out: int | None
    logprobs: tuple[TokenLogprob, ...] | None = None
    # A reasoning model's shown reasoning (Anthropic's thinking blocks): stored, never parsed.
    thinking: str | None = None
    # Of tokens_out, those the model spent reasoning (OpenAI's completion_tokens_details).
    reasoning_tokens: int | None = None


def redact(message: str, secret: str | None) -> str:
    """A short error message with anything key-like removed."""
    if secret:
        message = message.replace(secret, "[redacted]")
    # A provider's error text may hold NUL, which no PostgreSQL text column stores.
    message = message.replace("\x00", "")
    return _KEY_LIKE.sub("[redacted]", message)[:MAX_ERROR_CHARS]
