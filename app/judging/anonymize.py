"""Removal of self-identification phrases, driven by a data file of names and patterns."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# "GPT-4o-mini", "Llama 3.1 70B Instruct", "Claude 3.5 Sonnet": a name plus version words.
_VERSION_WORDS = (
    "mini|pro|flash|turbo|sonnet|opus|haiku|instruct|chat|coder|max|plus|ultra|nano|lite"
)
_VERSION_SUFFIX = rf"(?:[-. ]?(?:\d[\w.]*|[a-z]{{1,4}}\d[\w.]*|{_VERSION_WORDS}))*"

_SENTENCE_START = r"(?:^[ \t]*|(?<=[.!?:;] )|(?<=[.!?:;]))"


@dataclass(frozen=True)
class Anonymizer:
    """Compiled anonymization patterns and the data they came from (for the judge version)."""

    patterns: tuple[re.Pattern[str], ...]
    source: str

    def anonymize(self, text: str) -> tuple[str, int]:
        """Return `text` without self-identification phrases, and how many were removed."""
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
