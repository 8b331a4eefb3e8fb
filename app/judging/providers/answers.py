"""The values of a judge's answer, checked where it enters: the provider edge.

A judge server (a vLLM box, a proxy, a hostile endpoint) may answer 200 with JSON whose fields
have any type and size. Past this edge every Completion holds what the API documents and what
the call records can store: text without NUL (no PostgreSQL text holds one), a model name that
fits its column, and token counts that are small non-negative integers, so that a cost is never
negative and a sum never overflows. An answer that breaks this is an `InvalidAnswerError`, which
the HTTP judge turns into a failed call of kind `invalid_response` with the answer kept.
"""

from __future__ import annotations

import math

from app.judging.retries import ProviderCallError

# The width of the call records' `provider_model` column.
MAX_PROVIDER_MODEL_CHARS = 200
# Far above any model's context (a few million tokens): a larger count is not a count.
MAX_TOKENS = 10_000_000
# How much of an invalid answer is kept as the call's raw output.
MAX_RAW_CHARS = 65_536


class InvalidAnswerError(ValueError):
    """A decoded answer whose values are not what the provider's API documents."""


def answer_text(value: object) -> str:
    """The answer's text: a string without NUL (a missing text is the empty answer)."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise InvalidAnswerError(f"content is a {type(value).__name__}, not a string")
    if "\x00" in value:
        raise InvalidAnswerError("content holds a NUL character")
    return value


def provider_model(value: object) -> str | None:
    """The model the provider says answered: a short string without NUL, or none."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise InvalidAnswerError(f"model is a {type(value).__name__}, not a string")
    if len(value) > MAX_PROVIDER_MODEL_CHARS or "\x00" in value:
        raise InvalidAnswerError(f"model is not a model name ({len(value)} characters)")
    return value


def token_count(value: object) -> int | None:
    """A token count: a whole number from 0 to MAX_TOKENS (a float such as 12.0 counts), or none."""
    if value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidAnswerError(f"a token count is {value!r:.40}, not a whole number")
    if not 0 <= value <= MAX_TOKENS:
        raise InvalidAnswerError(f"a token count of {value!r:.40} is out of range")
    return value


def logprob(value: object) -> float:
    """A token's log probability: a finite number."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise InvalidAnswerError(f"a logprob is {value!r:.40}, not a finite number")
    return float(value)


def token_text(value: object) -> str:
    """A token's text."""
    if not isinstance(value, str):
        raise InvalidAnswerError(f"a token is a {type(value).__name__}, not a string")
    return value


def invalid_answer(err: Exception, content: bytes) -> ProviderCallError:
    """The failure of a 2xx answer that is JSON but not a completion: `invalid_response`, not
    retried (the server answered, and likely charged, and would answer alike), with the start
    of the answer as the raw output."""
    raw = content[: MAX_RAW_CHARS * 4].decode("utf-8", "replace")[:MAX_RAW_CHARS]
    # The body decoded as JSON, so it holds no raw NUL; an escaped one stays escaped.
    return ProviderCallError(
        "invalid_response", f"invalid response: {err!r}", raw_output=raw.replace("\x00", "")
    )
