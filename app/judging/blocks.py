"""Reading the contract's nonce-delimited response blocks back out of a rendered message."""

from __future__ import annotations

import re
from dataclasses import dataclass

from app.judging.labels import closing_marker

_OPENING = re.compile(r'<response label="([^"\n]*)" nonce="([0-9a-fA-F]{16,})">\n')


@dataclass(frozen=True)
class ResponseBlock:
    """One response block: its label, nonce and the exact text inside it."""

    label: str
    nonce: str
    text: str
    start: int
    end: int


def parse_response_blocks(message: str) -> list[ResponseBlock]:
    """All top-level response blocks of a message, in order of appearance."""
    blocks: list[ResponseBlock] = []
    position = 0
    while (opening := _OPENING.search(message, position)) is not None:
        label, nonce = opening.group(1), opening.group(2)
        body_start = opening.end()
        # The text is followed by a newline and the closing marker; searching from one
        # character back lets an empty text (opening, blank line, closing) be found too.
        close_at = message.find("\n" + closing_marker(nonce), body_start - 1)
        if close_at < 0:
            position = opening.start() + 1
            continue
        end = close_at + 1 + len(closing_marker(nonce))
        text = message[body_start:close_at] if close_at >= body_start else ""
        blocks.append(ResponseBlock(label, nonce, text, opening.start(), end))
        position = end
    return blocks


def text_outside_blocks(message: str) -> str:
    """The message with every response block cut out (what the template itself says)."""
    pieces: list[str] = []
    position = 0
    for block in parse_response_blocks(message):
        pieces.append(message[position : block.start])
        position = block.end
    pieces.append(message[position:])
    return "".join(pieces)
