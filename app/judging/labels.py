"""Neutral labels and nonces: random names that carry no order or meaning."""

from __future__ import annotations

import random

from app.judging.types import LabelPool
from app.textpatterns import compile_linear

# Letters that read as order (A, B, C), as digits (I, O, L) or as roman numerals (V, X, D, M)
# are left out of scoring labels; pairs of neighbouring letters ("EF") are too.
_SCORE_LABEL_LETTERS = "EFGHJKNPQRSTUWYZ"
_LABEL_MAX_CHARS = 16
_LABEL_PATTERN = compile_linear(rf"[A-Za-z]{{1,{_LABEL_MAX_CHARS}}}")
# Labels that name an order or a slot, or collide with the answer "tie" (JUDGING.md: no A/B,
# no digits, no first/second).
_FORBIDDEN_LABELS = frozenset({"a", "b", "first", "second", "one", "two", "left", "right", "tie"})


def validate_label_pool(pool: LabelPool) -> None:
    """Raise ValueError unless every pair holds two distinct, usable labels."""
    if not pool:
        raise ValueError("label pool must not be empty")
    for pair in pool:
        if len(pair) != 2:
            raise ValueError(f"label pool entry {pair!r} is not a pair")
        for label in pair:
            # Length first: a label is short, and an error never echoes megabytes back.
            if len(label) > _LABEL_MAX_CHARS or not _LABEL_PATTERN.fullmatch(label):
                raise ValueError(f"label {label[: _LABEL_MAX_CHARS + 1]!r} must be 1-16 letters")
            if label.casefold() in _FORBIDDEN_LABELS:
                raise ValueError(f"label {label!r} suggests an order or is 'tie'")
        if pair[0].casefold() == pair[1].casefold():
            raise ValueError(f"labels of {pair!r} must differ")


def format_label_pair(pair: tuple[str, str]) -> str:
    """The pair as recorded, e.g. "P/Q"."""
    return f"{pair[0]}/{pair[1]}"


def draw_label_assignment(pool: LabelPool, rng: random.Random) -> tuple[tuple[str, str], str, str]:
    """Draw a pool pair and, independently, which of its labels the first-shown slot gets."""
    pair = pool[rng.randrange(len(pool))]
    if rng.random() < 0.5:
        return pair, pair[0], pair[1]
    return pair, pair[1], pair[0]


def draw_nonce(rng: random.Random, text: str) -> str:
    """A fresh 64-bit hex nonce whose closing marker does not occur in `text`."""
    while True:
        nonce = f"{rng.getrandbits(64):016x}"
        if closing_marker(nonce) not in text:
            return nonce


def closing_marker(nonce: str) -> str:
    """The line that closes the response block with this nonce."""
    return f'</response nonce="{nonce}">'


def draw_score_labels(count: int, rng: random.Random) -> tuple[str, ...]:
    """`count` distinct two-letter labels in random order, none suggesting an order."""
    candidates = [
        first + second
        for first in _SCORE_LABEL_LETTERS
        for second in _SCORE_LABEL_LETTERS
        if first != second and ord(second) - ord(first) != 1
    ]
    return tuple(rng.sample(candidates, count))
