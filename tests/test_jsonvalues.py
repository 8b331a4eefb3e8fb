"""The JSON value counter agrees with a parse on any JSON text, however windows cut it."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import app.jsonvalues
from app.jsonvalues import count_json_values

# Strings rich in what the counter must see through: quotes, backslashes, brackets, commas.
TRICKY = st.text(alphabet=st.sampled_from(list('"\\[]{},: ax\u00e9\U0001f600')), max_size=8)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | TRICKY
DOCUMENTS = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY, inner, max_size=4),
    max_leaves=30,
)
LAYOUTS = st.sampled_from(
    [{}, {"separators": (",", ":")}, {"indent": 2}, {"ensure_ascii": False}, {"indent": "\t"}]
)


def values_in(document: Any) -> int:
    """The oracle: every object, array and scalar of the parsed document."""
    count, stack = 0, [document]
    while stack:
        node = stack.pop()
        count += 1
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return count


@settings(max_examples=400, deadline=None)
@given(document=DOCUMENTS, layout=LAYOUTS, window=st.integers(1, 9))
def test_the_count_is_the_parsed_documents_whatever_the_layout_and_windows(
    document: Any, layout: dict[str, Any], window: int
) -> None:
    text = json.dumps(document, **layout).encode()
    expected = values_in(json.loads(text))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(app.jsonvalues, "WINDOW_BYTES", window)
        assert count_json_values(text, limit=10**9) == expected
    assert count_json_values(text, limit=10**9) == expected


@pytest.mark.parametrize(
    ("text", "values"),
    [
        (b"1", 1),
        (b"[]", 1),
        (b'[""]', 2),
        (b"[ { } , [ ] ]", 3),
        (b'{"a\\\\":["\\"]",{}]}', 4),
        (b'{"k":1,"k":2}', 3),  # a repeated key is counted each time: the parser reads each
    ],
)
def test_edge_texts_count_as_parsed(text: bytes, values: int) -> None:
    assert count_json_values(text, limit=100) == values


def test_the_count_stops_soon_after_the_limit() -> None:
    text = b"[" + b",".join([b"1"] * 3_000_000) + b"]"
    counted = count_json_values(text, limit=10)
    assert 10 < counted < 3_000_001
