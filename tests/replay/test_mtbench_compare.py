"""A cheap MTBench replay: what DevBench lacks, ties (verdict C) and anonymized answers.

MTBench compares 30 models with `vicuna-13b-v1.3` (2,400 swap pairs per judge); serving them all
would take minutes, so each judge serves a deterministic sample: the first pairs, in recorded order,
of every (AB verdict, BA verdict) class, plus every pair whose model answer the service's
anonymizer changes (so the replay must recognise the anonymized text). Pairs whose answers have a
twin (two models gave the identical text to a question) are left out: the judge could not tell
which of them it was shown, and neither can the replay.
"""

from __future__ import annotations

from collections import Counter
from functools import cache
from pathlib import Path

import pytest

from app.judging.anonymize import default_anonymizer
from tests.replay.replay import (
    Item,
    ReplayBook,
    ReplayTransport,
    SwapPair,
    call_view,
    expected_answer,
    expected_calls,
    load_items,
    load_verdicts,
    recorded_judges,
    shown_by_key,
    swap_pairs,
)
from tests.replay.serving import answer_view, replay_app, serve, stored_comparisons

pytestmark = pytest.mark.slow
REFERENCE = "vicuna-13b-v1.3"
PER_CLASS = 2


def has_twin(item: Item, model: str) -> bool:
    """Whether another model gave the identical answer to this question."""
    return list(item.answers.values()).count(item.answers[model]) > 1


@cache
def anonymized_answers() -> frozenset[tuple[str, str]]:
    """(question, model) of the MTBench answers that anonymization changes."""
    anonymizer = default_anonymizer()
    return frozenset(
        (item.question_id, model)
        for item in load_items("MTBench").values()
        for model, answer in item.answers.items()
        if anonymizer.anonymize(answer)[1]
    )


def sample(judge: str) -> list[SwapPair]:
    """The judge's sampled swap pairs (see the module docstring)."""
    items = load_items("MTBench")
    pairs = [
        p
        for p in swap_pairs(load_verdicts("MTBench", judge), REFERENCE)
        if not has_twin(items[p.question_id], p.model)
        and not has_twin(items[p.question_id], REFERENCE)
    ]
    taken: Counter[tuple[str | None, str | None]] = Counter()
    chosen = []
    for pair in pairs:
        verdicts = (pair.a_first, pair.b_first)
        anonymized = (pair.question_id, pair.model) in anonymized_answers()
        if anonymized or taken[verdicts] < PER_CLASS:
            taken[verdicts] += 1
            chosen.append(pair)
    return chosen


async def test_ties_unparsed_and_anonymized_answers_replay_exactly(
    clean_pg: str, tmp_path: Path
) -> None:
    judges = recorded_judges("MTBench")
    book = ReplayBook(load_items("MTBench").values())
    transports = {j: ReplayTransport(book, load_verdicts("MTBench", j)) for j in judges}
    async with replay_app(clean_pg, tmp_path, transports) as app:
        served = [s for j in judges for s in await serve(app, "MTBench", j, sample(j), REFERENCE)]
        stored = await stored_comparisons(app, "MTBench")
    assert [t.unmatched for t in transports.values()] == [[], [], []]
    classes = Counter((s.pair.a_first, s.pair.b_first) for s in served)
    assert {("C", "C"), ("A", "C"), ("C", "B"), ("B", None), (None, None)} <= set(classes)
    assert book.anonymized_matches > 0
    shown = {judge: shown_by_key(transport) for judge, transport in transports.items()}
    for s in served:
        assert answer_view(s) == expected_answer(s.pair), s.pair
        calls = stored[s.comparison_id]["judges"][0]["calls"]
        assert [call_view(c) for c in calls] == expected_calls(s.pair, shown[s.judge], REFERENCE)
