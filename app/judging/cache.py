"""The judge-call cache, as the judging layer sees it: what identifies a request, and what a
stored answer gives back.

A judge with `cache: true` asks its cache after rendering, before sending: an exact repeat of a
request its version answered before (the same rendered messages, so the same labels and display
order, and the same parameters) is answered from the stored call instead of the provider. The
store behind `CallCache` is the kernel's (app/jobs/callcache.py): this layer has no database.
A hit copies the stored call's parsed fields, not its raw output: in privacy mode there is none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.judging.judge import ChatRequest
from app.judging.types import JudgeConfig

# The stored fields each kind of call copies from the call it repeats.
PAIR_ANSWER = ("pick", "confidence", "confidence_source")
SCORES_ANSWER = ("scores",)


@dataclass(frozen=True)
class CachedAnswer:
    """A stored call that answered the same request: its id, what the provider reported, and
    the answer fields asked for (`PAIR_ANSWER`, `SCORES_ANSWER`)."""

    call_id: int
    provider_model: str | None
    raw_output: str | None
    answer: Mapping[str, Any]


class CallCache(Protocol):
    """Where one judge's stored answers are looked up."""

    def key(self, material: str) -> str:
        """The stored key of a request's `request_material` (an HMAC in privacy mode)."""
        ...

    async def find(self, key: str, fields: Sequence[str]) -> CachedAnswer | None:
        """The stored answer to the request `key` names, or None (then the judge is asked)."""
        ...


def request_material(config: JudgeConfig, config_hash: str, request: ChatRequest) -> str:
    """Everything that decides what the provider is asked: the judge version, the parameters
    sent (some, like `max_tokens`, are outside the version) and the rendered messages."""
    parameters = {
        "model": config.model,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "max_completion_tokens": config.max_completion_tokens,
        "reasoning_effort": config.reasoning_effort,
        "thinking_budget_tokens": config.thinking_budget_tokens,
        "json_mode": config.json_mode,
        "logprobs": request.want_logprobs,
    }
    return json.dumps(
        [config_hash, parameters, request.answer_kind, request.system, request.user],
        sort_keys=True,
        separators=(",", ":"),
    )
