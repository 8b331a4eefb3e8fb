"""Every regular expression of the service, compiled by RE2, whose matching is linear in the text.

Python's `re` backtracks: one nested or overlapping quantifier lets a short text take exponential
time, and a 35-byte response once held the event loop for seconds in the anonymizer. RE2 cannot
backtrack, so no submitted text makes a pattern slow. This module is the one place that compiles
patterns; tests/security/test_regex_linear.py fails on any other use of `re` in `app/`.

Patterns are written in Python's syntax, without lookarounds and backreferences (RE2 has neither:
capture the context instead). `\\d`, `\\w`, `\\s`, their negations and `\\Z` are rewritten to what
they mean under `re` for a str (Unicode digits, letters and spaces), so a pattern matches what it
matched before. Two differences stay: `\\b` looks at ASCII word characters only, and `$` without
multiline mode is the end of the text (Python also allows a final newline before it).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

import re2  # type: ignore[import-untyped]

# Python's str.isspace() characters (what `\s` matches under `re`); RE2's `\s` is ASCII only.
_SPACE = r"\t\n\v\f\r\x1c-\x1f \x85\p{Z}"
_WORD = r"\p{L}\p{N}_"
_OUTSIDE_CLASS = {
    "d": r"\p{Nd}",
    "D": r"\P{Nd}",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    "Z": r"\z",
}
_INSIDE_CLASS = {"d": r"\p{Nd}", "D": r"\P{Nd}", "w": _WORD, "s": _SPACE}


class PatternError(ValueError):
    """A pattern RE2 cannot compile (a lookaround, a backreference, a syntax error)."""


class TextMatch(Protocol):
    """What a match offers (re2's match object, which mirrors `re.Match`)."""

    def group(self, *groups: int | str) -> Any:
        """The text of a group (None when it did not take part)."""

    def start(self, group: int = 0) -> int:
        """Where a group (by number: see `group_number`) starts (-1 when it did not take part)."""

    def end(self, group: int = 0) -> int:
        """Where a group (by number) ends (-1 when it did not take part)."""

    def __getitem__(self, group: int | str) -> Any:
        """The text of a group."""


def _python_classes(pattern: str) -> str:
    """`pattern` with `re`'s Unicode meaning of `\\d`, `\\w`, `\\s` (and negations) and `\\Z`."""
    out: list[str] = []
    in_class = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\" and index + 1 < len(pattern):
            escaped = pattern[index + 1]
            table = _INSIDE_CLASS if in_class else _OUTSIDE_CLASS
            if in_class and escaped in "WSZ":
                raise PatternError(f"\\{escaped} inside a character class is not supported")
            out.append(table.get(escaped, char + escaped))
            index += 2
            continue
        if char == "[" and not in_class:
            in_class = True
            out.append(char)
            index += 1
            # A `]` first in the class (after an optional `^`) is a literal, not its end.
            for literal in ("^", "]"):
                if pattern.startswith(literal, index):
                    out.append(literal)
                    index += 1
            continue
        if char == "]" and in_class:
            in_class = False
        out.append(char)
        index += 1
    return "".join(out)


def _options() -> Any:
    options = re2.Options()
    options.log_errors = False  # a bad pattern is reported by PatternError, not on stderr
    return options


class LinearPattern:
    """A compiled pattern with the part of `re.Pattern`'s interface the service uses."""

    def __init__(self, pattern: str, *, ignore_case: bool = False, multiline: bool = False) -> None:
        flags = ("i" if ignore_case else "") + ("m" if multiline else "")
        self.pattern = pattern
        source = (f"(?{flags})" if flags else "") + _python_classes(pattern)
        try:
            self._compiled = re2.compile(source, _options())
        except re2.error as err:
            raise PatternError(f"invalid pattern {pattern!r}: {err}") from err

    @property
    def group_names(self) -> frozenset[str]:
        """The names of the pattern's named groups."""
        return frozenset(self._compiled.groupindex)

    def group_number(self, name: str) -> int | None:
        """The number of a named group (for `start` and `end`), or None without one."""
        number: int | None = self._compiled.groupindex.get(name)
        return number

    def search(self, text: str, pos: int = 0) -> TextMatch | None:
        """The leftmost match at or after `pos` (the text before `pos` still counts for `^`, `\\b`).

        On a str every call encodes the whole text; to search one text many times, use
        `search_bytes` on its UTF-8 encoding (see `app.judging.anonymize`).
        """
        match: TextMatch | None = self._compiled.search(text, pos)
        return match

    def search_bytes(self, data: bytes, pos: int = 0) -> TextMatch | None:
        """`search` over UTF-8 bytes: positions are byte offsets, and no call re-encodes."""
        match: TextMatch | None = self._compiled.search(data, pos)
        return match

    def finditer_bytes(self, data: bytes) -> Iterator[TextMatch]:
        """`finditer` over UTF-8 bytes (positions are byte offsets)."""
        matches: Iterator[TextMatch] = self._compiled.finditer(data)
        return matches

    def fullmatch(self, text: str) -> TextMatch | None:
        """A match of the whole text, or None."""
        match: TextMatch | None = self._compiled.fullmatch(text)
        return match

    def finditer(self, text: str) -> Iterator[TextMatch]:
        """Every non-overlapping match, left to right (one pass over the text)."""
        matches: Iterator[TextMatch] = self._compiled.finditer(text)
        return matches

    def subn(self, replacement: str, text: str) -> tuple[str, int]:
        """Every match replaced by the literal `replacement`, and how many there were."""
        result: tuple[str, int] = self._compiled.subn(lambda _match: replacement, text)
        return result

    def sub(self, replacement: str, text: str) -> str:
        """Every match replaced by the literal `replacement`."""
        return self.subn(replacement, text)[0]


def compile_linear(
    pattern: str, *, ignore_case: bool = False, multiline: bool = False
) -> LinearPattern:
    """Compile `pattern` with RE2; raise PatternError if RE2 cannot express it."""
    return LinearPattern(pattern, ignore_case=ignore_case, multiline=multiline)


def escape(text: str) -> str:
    """`text` as a pattern that matches exactly it."""
    escaped: str = re2.escape(text)
    return escaped
