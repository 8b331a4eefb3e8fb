"""Removal of self-identification phrases, driven by a data file of names and patterns."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

# "GPT-4o-mini", "Llama 3.1 70B Instruct", "Claude 3.5 Sonnet": a name plus version words.
_VERSION_WORDS = (
    "mini|pro|flash|turbo|sonnet|opus|haiku|instruct|chat|coder|max|plus|ultra|nano|lite"
)
_VERSION_SUFFIX = rf"(?:[-. ]?(?:\d[\w.]*|[a-z]{{1,4}}\d[\w.]*|{_VERSION_WORDS}))*"

_SENTENCE_START = r"(?:^[ \t]*|(?<=[.!?:;] )|(?<=[.!?:;]))"


# Texts whose anonymization is remembered. A swap renders both responses again for its second
# order moments after the first; the patterns' scans were 4% of the API's CPU, half of it on
# texts just scanned. Few entries: texts run to 100,000 characters.
_RECENT_TEXTS = 16


@dataclass(frozen=True)
class Anonymizer:
    """Compiled anonymization patterns and the data they came from (for the judge version)."""

    patterns: tuple[re.Pattern[str], ...]
    source: str
    _recent: dict[str, tuple[str, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    def anonymize(self, text: str) -> tuple[str, int]:
        """Return `text` without self-identification phrases, and how many were removed."""
        if not self.patterns:
            return text, 0
        known = self._recent.get(text)
        if known is not None:
            return known
        result = self._scan(text)
        if len(self._recent) >= _RECENT_TEXTS:
            del self._recent[next(iter(self._recent))]  # the oldest
        self._recent[text] = result
        return result

    def _scan(self, text: str) -> tuple[str, int]:
        removed = 0
        for pattern in self.patterns:
            text, count = pattern.subn("", text)
            removed += count
        return text, removed


NO_ANONYMIZATION = Anonymizer(patterns=(), source="")


def _alternation(words: list[str]) -> str:
    # Longest first, so that "Google DeepMind" wins over "Google".
    return "(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + ")"


def _compile(data: dict[str, Any]) -> tuple[re.Pattern[str], ...]:
    name = _alternation(list(data["names"])) + _VERSION_SUFFIX + r"\b"
    org = _alternation(list(data["orgs"])) + r"\b"
    return tuple(
        re.compile(
            p.replace("{start}", _SENTENCE_START).replace("{name}", name).replace("{org}", org),
            re.IGNORECASE | re.MULTILINE,
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
