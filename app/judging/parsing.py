"""Parsing judge answers and deriving confidence from logprobs, exactly as JUDGING.md says."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from app.judging.types import ConfidenceSource, Pick, Rubric, TokenLogprob
from app.textpatterns import compile_linear

_MARKER = compile_linear(r"\[\[([^\[\]\n]{1,40})\]\]")
_DECODER = json.JSONDecoder()
# Each failed attempt costs time in proportion to its start (the error counts the lines before
# it), so a long answer full of stray braces took quadratic time: 200,000 of them, 8 s of CPU.
# A verdict comes after a few braces at most; beyond this many, the answer has none.
_MAX_EMBEDDED_STARTS = 256
# Failed tries may parse at most this many times the answer's length in all: each may run to the
# end (nested arrays: a hostile 2 MB answer took 8.6 s), and an honest one fails within a few
# characters.
_PARSE_BUDGET = 4


class UnparseableAnswerError(ValueError):
    """The judge's answer does not follow the contract."""


@dataclass(frozen=True)
class ParsedPair:
    """A pairwise answer: the pick and the confidence the judge stated, if valid."""

    pick: Pick
    stated_confidence: float | None


def find_json_object(text: str) -> dict[str, Any] | None:
    """The whole text as a JSON object, else the first balanced JSON object inside it (among
    the first `_MAX_EMBEDDED_STARTS` opening braces)."""
    try:
        whole = json.loads(text)
    except (ValueError, RecursionError):  # deep nesting ("[[[[...") is no answer either
        whole = None
    if isinstance(whole, dict):
        return whole
    budget = _PARSE_BUDGET * len(text)
    start = text.find("{")
    for _ in range(_MAX_EMBEDDED_STARTS):
        if start < 0 or budget < 0:
            break
        value, parsed = _object_at(text, start)
        if isinstance(value, dict):
            return value
        budget -= parsed
        start = text.find("{", start + 1)
    return None


def _object_at(text: str, start: int) -> tuple[object, int]:
    """The JSON value at `start` (None if there is none), and how many characters were read."""
    # raw_decode follows JSON's own string rules, so braces inside strings are handled.
    try:
        value, end = _DECODER.raw_decode(text, start)
    except json.JSONDecodeError as err:
        return None, err.pos - start
    except RecursionError:
        return None, len(text) - start
    return value, end - start


def _normalize_label(value: str) -> str:
    return value.strip().casefold()


def _pick_for(value: str, first_label: str, second_label: str) -> Pick | None:
    normalized = _normalize_label(value)
    if normalized == _normalize_label(first_label):
        return "first"
    if normalized == _normalize_label(second_label):
        return "second"
    if normalized == "tie":
        return "tie"
    return None


def as_number(value: object) -> float | None:
    """A finite number from a JSON number or numeric string, else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
    else:
        return None
    return number if math.isfinite(number) else None


def _stated_confidence(value: object) -> float | None:
    number = as_number(value)
    return number if number is not None and 0.0 <= number <= 1.0 else None


def _pick_from_markers(text: str, first_label: str, second_label: str) -> Pick:
    picks = {_pick_for(m.group(1), first_label, second_label) for m in _MARKER.finditer(text)}
    picks.discard(None)
    if len(picks) != 1:
        raise UnparseableAnswerError("no JSON object and no single [[label]] marker")
    return picks.pop()  # type: ignore[return-value]


def parse_pair_answer(text: str, first_label: str, second_label: str) -> ParsedPair:
    """Parse a pairwise answer; raise UnparseableAnswerError when it breaks the contract."""
    answer = find_json_object(text)
    if answer is None:
        return ParsedPair(_pick_from_markers(text, first_label, second_label), None)
    winner = answer.get("winner")
    if not isinstance(winner, str):
        raise UnparseableAnswerError('the JSON answer has no string "winner"')
    pick = _pick_for(winner, first_label, second_label)
    if pick is None:
        raise UnparseableAnswerError(f"winner {winner[:40]!r} is not one of the shown labels")
    return ParsedPair(pick, _stated_confidence(answer.get("confidence")))


def parse_score_answer(text: str, labels: Sequence[str], rubric: Rubric) -> tuple[float, ...]:
    """Scores in the order of `labels`; raise UnparseableAnswerError on any gap or stray."""
    answer = find_json_object(text)
    scores = answer.get("scores") if answer is not None else None
    if not isinstance(scores, dict):
        raise UnparseableAnswerError('the answer has no JSON object "scores"')
    by_label: dict[str, float] = {}
    for key, value in scores.items():
        label = _normalize_label(str(key))
        number = as_number(value)
        if number is None or not rubric.min <= number <= rubric.max:
            raise UnparseableAnswerError(f"score for {str(key)[:20]!r} is not in the rubric range")
        if by_label.setdefault(label, number) != number:
            raise UnparseableAnswerError(f"conflicting scores for {str(key)[:20]!r}")
    wanted = {_normalize_label(label) for label in labels}
    if set(by_label) != wanted:
        raise UnparseableAnswerError("scores must name every shown label and no other")
    return tuple(by_label[_normalize_label(label)] for label in labels)


def _normalize_token(token: str) -> str:
    return token.strip("\"' :\t\n\r").casefold()


def _is_prefix(fragment: str, candidate: str) -> bool:
    return bool(fragment) and candidate.casefold().startswith(fragment)


def _winner_position(tokens: Sequence[TokenLogprob], candidates: Sequence[str]) -> int | None:
    text = "".join(t.token for t in tokens)
    key_at = text.find('"winner"')
    if key_at < 0:
        return None
    key_end = key_at + len('"winner"')
    end = 0
    for index, token in enumerate(tokens):
        end += len(token.token)
        # A token that reaches past the key counts, so `":"Q` after `winner` is found too.
        if end > key_end and any(_is_prefix(_normalize_token(token.token), c) for c in candidates):
            return index
    return None


def logprob_confidence(
    tokens: Sequence[TokenLogprob], first_label: str, second_label: str, pick: Pick
) -> float | None:
    """p(chosen) / (p(L1) + p(L2) + p(tie)) at the winner's token, or None if not derivable."""
    candidates = (first_label, second_label, "tie")
    position = _winner_position(tokens, candidates)
    if position is None:
        return None
    top = tokens[position].top
    mass = [
        sum(math.exp(lp) for tok, lp in top if _is_prefix(_normalize_token(tok), c))
        for c in candidates
    ]
    chosen = mass[{"first": 0, "second": 1, "tie": 2}[pick]]
    if chosen <= 0.0:
        return None
    return chosen / sum(mass)


def pair_confidence(
    parsed: ParsedPair,
    tokens: Sequence[TokenLogprob] | None,
    first_label: str,
    second_label: str,
) -> tuple[float | None, ConfidenceSource | None]:
    """Confidence and its source: logprobs where derivable, else the stated one, else none."""
    if tokens:
        from_logprobs = logprob_confidence(tokens, first_label, second_label, parsed.pick)
        if from_logprobs is not None:
            return from_logprobs, "logprobs"
    if parsed.stated_confidence is not None:
        return parsed.stated_confidence, "stated"
    return None, None
