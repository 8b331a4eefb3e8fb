"""Answer parsing and logprob confidence, following JUDGING.md's rules literally."""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Callable

import pytest

from app.judging.parsing import (
    ParsedPair,
    UnparseableAnswerError,
    find_json_object,
    logprob_confidence,
    pair_confidence,
    parse_pair_answer,
    parse_score_answer,
)
from app.judging.types import DEFAULT_RUBRIC, TokenLogprob


@pytest.mark.parametrize(
    ("answer", "pick", "stated"),
    [
        ('{"winner": "Q", "confidence": 0.8, "reason": "r"}', "first", 0.8),
        ('{"winner": " p ", "confidence": 1}', "second", 1.0),
        ('{"winner": "TIE", "confidence": "0.5"}', "tie", 0.5),
        ('{"winner": "Q", "confidence": 1.7}', "first", None),
        ('{"winner": "Q", "confidence": true}', "first", None),
        ('Thinking... {"note": "a } inside { a string"} then more', None, None),
        (
            'Sure!\n```json\n{"winner": "P", "reason": "has {braces} and \\"quotes\\""}\n```',
            "second",
            None,
        ),
        ("After careful thought: [[Q]]", "first", None),
        ("Both fine. [[tie]]", "tie", None),
        ("[[q]] and again [[Q]]", "first", None),
    ],
)
def test_pair_answers_parse_by_json_then_embedded_object_then_marker(
    answer: str, pick: str | None, stated: float | None
) -> None:
    if pick is None:
        with pytest.raises(UnparseableAnswerError):
            parse_pair_answer(answer, "Q", "P")
        return
    assert parse_pair_answer(answer, "Q", "P") == ParsedPair(pick, stated)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "answer",
    [
        '{"winner": "A", "confidence": 0.9}',
        '{"winner": "first"}',
        '{"winner": 1}',
        '{"choice": "Q"}',
        "Q is better.",
        "[[Q]] or maybe [[P]]",
        "[[X]]",
        "",
    ],
)
def test_pair_answers_naming_no_shown_label_are_unparseable(answer: str) -> None:
    with pytest.raises(UnparseableAnswerError):
        parse_pair_answer(answer, "Q", "P")


@pytest.mark.parametrize("answer", ["[" * 5000, '{"a":' * 5000, "x " + '{"a":[' * 5000])
def test_deeply_nested_answers_are_unparseable_not_a_crash(answer: str) -> None:
    # json raises RecursionError (not ValueError) past ~1000 levels.
    with pytest.raises(UnparseableAnswerError):
        parse_pair_answer(answer, "Q", "P")


def test_first_balanced_object_is_found_despite_braces_in_strings() -> None:
    text = 'x {"a": "}{", "b": {"c": "\\"}"}} y {"winner": "Q"}'
    assert find_json_object(text) == {"a": "}{", "b": {"c": '"}'}}


def test_scores_parse_in_label_order_case_insensitively() -> None:
    answer = '{"scores": {"qf": 4, "KT ": "2.5", "ZN": 5}, "reason": "r"}'
    assert parse_score_answer(answer, ["KT", "ZN", "QF"], DEFAULT_RUBRIC) == (2.5, 5.0, 4.0)


@pytest.mark.parametrize(
    "answer",
    [
        '{"scores": {"QF": 4}}',
        '{"scores": {"QF": 4, "KT": 6}}',
        '{"scores": {"QF": 4, "KT": 0}}',
        '{"scores": {"QF": 4, "KT": "good"}}',
        '{"scores": {"QF": 4, "KT": 3, "ZZ": 3}}',
        '{"scores": [4, 3]}',
        "QF: 4, KT: 3",
    ],
)
def test_scores_missing_out_of_range_or_stray_are_unparseable(answer: str) -> None:
    with pytest.raises(UnparseableAnswerError):
        parse_score_answer(answer, ["QF", "KT"], DEFAULT_RUBRIC)


def _tokens(*items: tuple[str, list[tuple[str, float]]]) -> list[TokenLogprob]:
    return [TokenLogprob(text, top[0][1] if top else 0.0, tuple(top)) for text, top in items]


def _answer_prefix() -> list[tuple[str, list[tuple[str, float]]]]:
    return [("{", []), ('"', []), ("winner", []), ('":', []), (' "', [(' "', 0.0)])]


def test_logprob_confidence_sums_prefix_alternatives_of_a_label_split_across_tokens() -> None:
    tokens = _tokens(
        *_answer_prefix(),
        ("K", [("K", -0.2), ("R", -1.8), ("Rs", -3.0), ("t", -4.0), ("Z", -0.5)]),
        ("M", [("M", 0.0)]),
        ('",', []),
    )
    p_km, p_rs, p_tie = math.exp(-0.2), math.exp(-1.8) + math.exp(-3.0), math.exp(-4.0)
    expected = p_km / (p_km + p_rs + p_tie)
    assert logprob_confidence(tokens, "KM", "RS", "first") == pytest.approx(expected, rel=1e-12)
    assert logprob_confidence(tokens, "KM", "RS", "second") == pytest.approx(
        p_rs / (p_km + p_rs + p_tie), rel=1e-12
    )


def test_logprob_confidence_with_a_candidate_missing_from_top_logprobs() -> None:
    tokens = _tokens(*_answer_prefix(), ("Q", [("Q", -0.1), ("P", -2.4)]), ('"', []))
    expected = math.exp(-0.1) / (math.exp(-0.1) + math.exp(-2.4))
    assert logprob_confidence(tokens, "Q", "P", "first") == pytest.approx(expected, rel=1e-12)
    assert logprob_confidence(tokens, "Q", "P", "tie") is None


def test_logprob_position_is_the_first_matching_token_after_the_winner_key() -> None:
    tokens = _tokens(
        ("Q", [("Q", -9.0)]),
        ('{"winner', [("Q", -9.0)]),
        ('":', [("Q", -9.0)]),
        ("Response", [("Response", -0.1)]),
        (" p", [(" p", -0.3), ("Q", -1.5), ('"tie', -2.0)]),
    )
    p_p, p_q, p_tie = math.exp(-0.3), math.exp(-1.5), math.exp(-2.0)
    assert logprob_confidence(tokens, "Q", "P", "second") == pytest.approx(
        p_p / (p_p + p_q + p_tie), rel=1e-12
    )


def test_confidence_falls_back_to_stated_then_none() -> None:
    no_key = _tokens(("Q", [("Q", -0.1)]))
    assert pair_confidence(ParsedPair("first", 0.7), no_key, "Q", "P") == (0.7, "stated")
    assert pair_confidence(ParsedPair("first", None), no_key, "Q", "P") == (None, None)
    assert pair_confidence(ParsedPair("tie", 0.6), None, "Q", "P") == (0.6, "stated")
    with_key = _tokens(*_answer_prefix(), ("P", [("P", -0.01)]))
    assert pair_confidence(ParsedPair("first", 0.9), with_key, "Q", "P") == (0.9, "stated")
    assert pair_confidence(ParsedPair("second", 0.9), with_key, "Q", "P") == (1.0, "logprobs")


def _median_cpu(call: Callable[[], object]) -> float:
    samples = []
    for _ in range(5):
        started = time.process_time()
        call()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def _unparseable(text: str) -> None:
    with pytest.raises(UnparseableAnswerError):
        parse_pair_answer(text, "Q", "P")


def test_a_hostile_answer_costs_a_few_json_parses_of_itself_not_one_per_brace() -> None:
    # Every brace opens an object whose nested arrays run to the end: each try read the rest of
    # the answer, 256 tries in all (8.6 s at 2 MB). A budget stops at ~4 reads of the answer.
    hostile = ('{"a":[' + "1," * 200) * 500
    valid = json.dumps({"a": [1] * (len(hostile) // 2)})
    ratio = _median_cpu(lambda: _unparseable(hostile)) / _median_cpu(lambda: json.loads(valid))
    assert ratio < 30
