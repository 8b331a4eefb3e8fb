"""The judge interface, and the request and answer values between the call flow and providers."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from app.judging.types import (
    Criteria,
    JudgeConfig,
    PairCallResult,
    Rubric,
    ScoreCallResult,
    TokenLogprob,
)
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


def redact(message: str, secret: str | None) -> str:
    """A short error message with anything key-like removed."""
    if secret:
        message = message.replace(secret, "[redacted]")
    return _KEY_LIKE.sub("[redacted]", message)[:MAX_ERROR_CHARS]


class Judge(Protocol):
    """One configured judge model."""

    config: JudgeConfig
    config_hash: str

    async def judge_pair(
        self,
        prompt: str,
        first_text: str,
        second_text: str,
        *,
        criteria: Criteria | None = None,
        reference: str | None = None,
        deadline: float,
        rng: random.Random | None = None,
    ) -> PairCallResult:
        """Ask which of two shown responses is better; failures come back as results."""
        ...

    async def judge_scores(
        self,
        prompt: str,
        shown_texts: Sequence[str],
        rubric: Rubric,
        *,
        criteria: Criteria | None = None,
        deadline: float,
        rng: random.Random | None = None,
    ) -> ScoreCallResult:
        """Score responses shown in the given order; failures come back as results."""
        ...

    async def aclose(self) -> None:
        """Release the judge's HTTP client."""
        ...
