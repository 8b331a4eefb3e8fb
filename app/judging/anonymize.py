"""Removal of self-identification phrases, driven by a data file of names and patterns."""

from __future__ import annotations

import threading
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from app.textpatterns import LinearPattern, PatternError, TextMatch, compile_linear, escape

# "GPT-4o-mini", "Llama 3.1 70B Instruct", "Claude 3.5 Sonnet": a name plus version words.
_VERSION_WORDS = (
    "mini|pro|flash|turbo|sonnet|opus|haiku|instruct|chat|coder|max|plus|ultra|nano|lite"
)
_VERSION_SUFFIX = rf"(?:[-. ]?(?:\d[\w.]*|[a-z]{{1,4}}\d[\w.]*|{_VERSION_WORDS}))*"

# RE2 has no lookarounds, so the context they looked at is matched and kept instead: the
# punctuation before a sentence start is the group `before`, and a pattern's final lookahead
# `(?=...)` (in the data file) becomes the group `after`. Neither is removed, and the next match
# may start inside either, as it could with lookarounds.
_SENTENCE_START = r"(?:^[ \t]*|(?P<before>[.!?:;] ?))"
_LOOKAHEAD, _KEPT_AFTER = "(?=", "(?P<after>"
# How far `before` reaches back: `[.!?:;] ?`, two ASCII bytes.
_BEFORE_BYTES = 2


# Texts whose anonymization is remembered. A swap renders both responses again for its second
# order moments after the first; the patterns' scans were 4% of the API's CPU, half of it on
# texts just scanned. Few entries: texts run to 100,000 characters.
_RECENT_TEXTS = 16


@dataclass(frozen=True)
class Anonymizer:
    """Compiled anonymization patterns and the data they came from (for the judge version)."""

    patterns: tuple[LinearPattern, ...]
    source: str
    _recent: dict[str, tuple[str, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    # Long texts are anonymized in worker threads (app.judging.base.run_text_work).
    _recent_lock: threading.Lock = field(
        default_factory=threading.Lock, init=False, repr=False, compare=False
    )

    def anonymize(self, text: str) -> tuple[str, int]:
        """Return `text` without self-identification phrases, and how many were removed."""
        if not self.patterns:
            return text, 0
        known = self._recent.get(text)
        if known is not None:
            return known
        result = self._scan(text)
        with self._recent_lock:
            if len(self._recent) >= _RECENT_TEXTS:
                del self._recent[next(iter(self._recent))]  # the oldest
            self._recent[text] = result
        return result

    def _scan(self, text: str) -> tuple[str, int]:
        # One encoding for all patterns: searching a str would encode it again on every match.
        data, removed = text.encode("utf-8", "surrogatepass"), 0
        for pattern in self.patterns:
            data, count = _remove_matches(pattern, data)
            removed += count
        return data.decode("utf-8", "surrogatepass"), removed


NO_ANONYMIZATION = Anonymizer(patterns=(), source="")


def _remove_matches(pattern: LinearPattern, data: bytes) -> tuple[bytes, int]:
    """`data` without the matches of `pattern` (their kept context stays), and how many."""
    kept: list[bytes] = []
    kept_from = search_from = count = 0
    while (match := pattern.search_bytes(data, search_from)) is not None:
        cut_start, cut_end = _cut(pattern, match)
        # Never earlier than this match, so that even an empty match moves on.
        search_from = match.start() + 1
        if cut_start < kept_from:
            continue  # its context reached back into the removed text and so did the phrase
        kept.append(data[kept_from:cut_start])
        kept_from, count = cut_end, count + 1
        # The next phrase starts after this one, but its `before` may lie inside this one.
        search_from = max(search_from, _context_start(data, cut_end))
    kept.append(data[kept_from:])
    return b"".join(kept), count


def _cut(pattern: LinearPattern, match: TextMatch) -> tuple[int, int]:
    """The removed part of a match: without its `before` and `after` groups."""
    start, end = match.start(), match.end()
    before, after = pattern.group_number("before"), pattern.group_number("after")
    if before is not None and match.start(before) >= 0:
        start = match.end(before)
    if after is not None and match.start(after) >= 0:
        end = match.start(after)
    return start, end


def _context_start(data: bytes, position: int) -> int:
    """`position` moved back over at most `_BEFORE_BYTES` ASCII bytes (never into a character)."""
    start = position
    while start > max(0, position - _BEFORE_BYTES) and data[start - 1] < 0x80:
        start -= 1
    return start


def _alternation(words: list[str]) -> str:
    # Longest first, so that "Google DeepMind" wins over "Google".
    return "(?:" + "|".join(escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


def _kept_lookahead(pattern: str) -> str:
    """`pattern` with its lookahead as the kept group `after`.

    A `\\b` that ends the lookahead after a letter (`(?=I\\b)`) becomes "a non-word character
    or the end": RE2's `\\b` knows ASCII letters only, and "As an AI Iñaki" must stay.
    """
    at = pattern.find(_LOOKAHEAD)
    if at < 0:
        return pattern
    end = _group_end(pattern, at)
    body = pattern[at + len(_LOOKAHEAD) : end]
    if body.endswith("\\b") and body[-3:-2].isalnum() and body[-4:-3] != "\\":
        body = body[:-2] + "(?:\\W|\\z)"
    return pattern[:at] + _KEPT_AFTER + body + pattern[end:]


def _group_end(pattern: str, start: int) -> int:
    """The index of the `)` that closes the group opened at `start`."""
    depth, index, in_class = 0, start, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            index += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char in "()":
            depth += 1 if char == "(" else -1
            if depth == 0:
                return index
        index += 1
    raise PatternError(f"unbalanced group in {pattern!r}")


def _compile(data: dict[str, Any]) -> tuple[LinearPattern, ...]:
    name = _alternation(list(data["names"])) + _VERSION_SUFFIX + r"\b"
    org = _alternation(list(data["orgs"])) + r"\b"
    return tuple(
        compile_linear(
            _kept_lookahead(p)
            .replace("{start}", _SENTENCE_START)
            .replace("{name}", name)
            .replace("{org}", org),
            ignore_case=True,
            multiline=True,
        )
        for p in data["patterns"]
    )


def anonymizer_from_toml(source: str) -> Anonymizer:
    """Build an anonymizer from TOML text with `names`, `orgs` and `patterns`."""
    return Anonymizer(patterns=_compile(tomllib.loads(source)), source=source)


@cache
def default_anonymizer() -> Anonymizer:
    """The anonymizer of the packaged `data/anonymize.toml`."""
    source = resources.files("app.judging").joinpath("data/anonymize.toml").read_text("utf-8")
    return anonymizer_from_toml(source)
