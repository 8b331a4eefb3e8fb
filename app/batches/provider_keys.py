"""What a provider-mode request is known by, and how it and its result are kept.

It owns the ids and keys (the `custom_id` a provider job carries, the keyed hash a delivery
asks by, the item's draws seed), what ties two deliveries of one item together (`AnswerKey`), and
the stored form of a request's body and result (sealed: encrypted in privacy mode). They live
apart from the deferral and the rounds because both sides must agree on them byte for byte: a
key or a sealed value that changed between them would lose a paid answer.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Mapping
from typing import Any, NamedTuple

import orjson

from app.config import Settings
from app.judges import crypto
from app.judging.batchapi import RequestResult
from app.judging.judge import Completion
from app.judging.retries import CallFailedError
from app.judging.types import TokenLogprob
from app.privacy import TextKeeper


def new_custom_id() -> str:
    """A short opaque id the providers accept (Anthropic: ^[a-zA-Z0-9_-]{1,64}$)."""
    return "fp_" + secrets.token_urlsafe(18)


def keyed(keeper: TextKeeper, purpose: bytes, value: bytes) -> str:
    """An HMAC under the instance's stored salt: the body quotes the texts, so a plain hash of
    it would confirm a guessed text (privacy mode). Not under the secret key: a rotation of it
    would change every draw and key, and a waiting request would be asked (and paid) again."""
    return hmac.new(keeper.salt, purpose + b":" + value, hashlib.sha256).hexdigest()


def request_key(keeper: TextKeeper, judge_name: str, body: Mapping[str, Any]) -> str:
    """What a delivery asks a judge, keyed: a later delivery finds the answer by asking the
    same (the item's draws are seeded, so its prompts are the same)."""
    encoded = orjson.dumps([judge_name, body], option=orjson.OPT_SORT_KEYS)
    return keyed(keeper, b"provider-request", encoded)


def draws_seed(keeper: TextKeeper, item_target_id: str) -> str:
    """The item's seed for labels and nonces: the same at every delivery, not guessable."""
    return keyed(keeper, b"provider-draws", item_target_id.encode())


class AnswerKey(NamedTuple):
    """What ties two deliveries of one batch item together: a judge and the key of what it was
    asked, stored as `provider_requests.(judge_name, request_key)`.

    The second delivery finds the first's answers because it asks the very same requests: its
    draws (labels, nonces, orders) come from `draws_seed`, which is the same at every delivery
    of the item, so each judge renders the same provider body, and the same body gives the same
    `request_key`. Nothing else is handed from one delivery to the next; anything that changed
    the rendered body between them (a prompt, a judge's settings, the salt) would make the
    second delivery ask, and pay, again."""

    judge_name: str
    request_key: str


def answer_key(keeper: TextKeeper, judge_name: str, body: Mapping[str, Any]) -> AnswerKey:
    """The key a deferred request is stored under and a later delivery looks its answer up by."""
    return AnswerKey(judge_name, request_key(keeper, judge_name, body))


def seal(settings: Settings, value: Any) -> tuple[str, bool]:
    """A body or result as stored: JSON, encrypted in privacy mode (it quotes the texts)."""
    text = orjson.dumps(value).decode()
    if settings.privacy == "hash":
        return crypto.encrypt(settings.secret_key, text), True
    return text, False


def unseal(settings: Settings, text: str, encrypted: bool) -> Any:
    """The stored body or result, decrypted (under the previous key during a rotation)."""
    if encrypted:
        text = crypto.decrypt(settings.secret_key, text, settings.secret_key_previous)
    return orjson.loads(text)


def result_json(result: RequestResult) -> dict[str, Any]:
    """A result as its request stores it."""
    if result.completion is None:
        return {"error_kind": result.error_kind or "server_error", "error": result.error or ""}
    completion = result.completion
    logprobs = None
    if completion.logprobs is not None:
        logprobs = [[t.token, t.logprob, [list(alt) for alt in t.top]] for t in completion.logprobs]
    return {
        "text": completion.text,
        "provider_model": completion.provider_model,
        "tokens_in": completion.tokens_in,
        "tokens_out": completion.tokens_out,
        "logprobs": logprobs,
        "thinking": completion.thinking,
        "reasoning_tokens": completion.reasoning_tokens,
    }


def answer_of(stored: Mapping[str, Any]) -> tuple[Completion, int]:
    """The completion a stored result gives the judge, or its failure as a failed call."""
    if "error_kind" in stored:
        raise CallFailedError(stored["error_kind"], stored["error"], 0)
    logprobs = None
    if stored.get("logprobs") is not None:
        logprobs = tuple(
            TokenLogprob(token, logprob, tuple((alt, lp) for alt, lp in top))
            for token, logprob, top in stored["logprobs"]
        )
    completion = Completion(
        stored["text"],
        stored["provider_model"],
        stored["tokens_in"],
        stored["tokens_out"],
        logprobs,
        # Absent from results stored before they were kept.
        thinking=stored.get("thinking"),
        reasoning_tokens=stored.get("reasoning_tokens"),
    )
    return completion, 0
