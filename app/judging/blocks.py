"""Reading the contract's nonce-delimited response blocks back out of a rendered message."""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

from app.judging.labels import closing_marker
from app.textpatterns import TextMatch, compile_linear

_OPENING = compile_linear(r'<response label="([^"\n]*)" nonce="([0-9a-fA-F]{16,})">\n')
# A newline and `closing_marker(nonce)`: all of them are found in one pass, so that an opening
# without its closing costs no scan of the rest of the message.
_CLOSING = compile_linear(r'\n</response nonce="([0-9a-fA-F]{16,})">')


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
    # Searched as UTF-8 bytes: a search of a str would encode all of it again each time.
    data = message.encode("utf-8", "surrogatepass")
    closings = _closings(data)
    chars = _CharOffsets(data)
    blocks: list[ResponseBlock] = []
    position = 0
    while (opening := _OPENING.search_bytes(data, position)) is not None:
        nonce = opening.group(2).decode()
        body_start = opening.end()
        # The text is followed by a newline and the closing marker; looking from one
        # byte back lets an empty text (opening, blank line, closing) be found too.
        close_at = _first_from(closings.get(nonce, []), body_start - 1)
        if close_at is None:
            position = opening.start() + 1
            continue
        end = close_at + 1 + len(closing_marker(nonce))
        blocks.append(_block(data, opening, close_at, chars.at(opening.start()), chars.at(end)))
        position = end
    return blocks


def _block(data: bytes, opening: TextMatch, close_at: int, start: int, end: int) -> ResponseBlock:
    body_start = opening.end()
    body = data[body_start:close_at] if close_at >= body_start else b""
    label, nonce = (opening.group(n).decode("utf-8", "surrogatepass") for n in (1, 2))
    return ResponseBlock(label, nonce, body.decode("utf-8", "surrogatepass"), start, end)


def _closings(data: bytes) -> dict[str, list[int]]:
    """Where each nonce's closing (with its newline) starts, in order."""
    found: dict[str, list[int]] = {}
    for match in _CLOSING.finditer_bytes(data):
        found.setdefault(match.group(1).decode(), []).append(match.start())
    return found


def _first_from(positions: list[int], start: int) -> int | None:
    index = bisect_left(positions, start)
    return positions[index] if index < len(positions) else None


class _CharOffsets:
    """Byte offsets of one UTF-8 text as character offsets, asked in increasing order."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._byte = self._char = 0

    def at(self, byte: int) -> int:
        """The character offset of `byte` (no smaller than the last one asked)."""
        self._char += len(self._data[self._byte : byte].decode("utf-8", "surrogatepass"))
        self._byte = byte
        return self._char


def text_outside_blocks(message: str) -> str:
    """The message with every response block cut out (what the template itself says)."""
    pieces: list[str] = []
    position = 0
    for block in parse_response_blocks(message):
        pieces.append(message[position : block.start])
        position = block.end
    pieces.append(message[position:])
    return "".join(pieces)
