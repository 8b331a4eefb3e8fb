"""Issue 21, honest answers: what a verdict's confidence means, and when a judge's pairs disagree.

Pure: the protocol and panel rules, without a database.
"""

from __future__ import annotations

import itertools

import pytest

from app.comparisons.panels import JudgeResult, panel_verdict
from app.comparisons.protocols import (
    CallOutcome,
    Pick,
    Protocol,
    judge_verdict,
    mapped_winner,
    order_of_round,
)
from app.comparisons.queries import stored_result_read

SWAP = Protocol("swap")
SINGLE = Protocol("single")


def pair(index: int, picks: tuple[Pick, Pick], confidence: float | None) -> list[CallOutcome]:
    rounds = (2 * index, 2 * index + 1)
    return [
        CallOutcome(r, order_of_round(r), mapped_winner(p, order_of_round(r)), confidence)
        for r, p in zip(rounds, picks, strict=True)
    ]


VOTE_A: tuple[Pick, Pick] = ("first", "second")
VOTE_B: tuple[Pick, Pick] = ("second", "first")
POSITION_TIE: tuple[Pick, Pick] = ("first", "first")


@pytest.mark.parametrize("confidence", [0.2, 0.45, 0.0])
def test_agreeing_pair_never_names_a_winner_below_a_coin_flip(confidence: float) -> None:
    # Both orders picked A, yet the judge's own probability of A is below one half: the winner
    # is named with the 0.5 floor, and says so; the pair agreed with itself, so it is not
    # "inconsistent" (issue 37).
    verdict = judge_verdict(SWAP, pair(0, VOTE_A, confidence))
    assert verdict is not None
    assert (verdict.winner, verdict.position_consistent) == ("A", True)
    assert verdict.confidence == 0.5
    assert verdict.confidence_basis == "floored"


def test_agreeing_pair_keeps_its_calls_mean_confidence_from_a_coin_flip_up() -> None:
    verdict = judge_verdict(SWAP, pair(0, VOTE_B, 0.75))
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == ("B", 0.75, "calls")


def test_single_call_below_a_coin_flip_does_not_name_its_winner_with_it() -> None:
    call = CallOutcome(0, "BA", "B", 0.3)
    verdict = judge_verdict(SINGLE, [call])
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == ("B", 0.5, "floored")
    assert (verdict.position_consistent, verdict.bias_detected) == (None, None)


def test_a_tie_keeps_its_three_way_confidence() -> None:
    verdict = judge_verdict(SWAP, pair(0, ("tie", "tie"), 0.4))
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == ("tie", 0.4, "calls")


def test_disagreeing_pair_labels_its_fixed_half_as_inconsistent() -> None:
    verdict = judge_verdict(SWAP, pair(0, POSITION_TIE, 0.9))
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == (
        "tie",
        0.5,
        "inconsistent",
    )


@pytest.mark.parametrize(
    ("protocol", "votes", "confidence"),
    [
        (Protocol("shuffle", pairs=2), [VOTE_A, VOTE_B], 0.5),
        (Protocol("shuffle", pairs=4), [VOTE_A, VOTE_A, VOTE_B, VOTE_B], 0.5),
        (Protocol("adaptive", max_pairs=3), [POSITION_TIE, VOTE_A, VOTE_B], 1 / 3),
    ],
)
def test_pairs_that_split_say_so_and_give_the_vote_share(
    protocol: Protocol, votes: list[tuple[Pick, Pick]], confidence: float
) -> None:
    outcomes = [c for i, picks in enumerate(votes) for c in pair(i, picks, 0.9)]
    verdict = judge_verdict(protocol, outcomes)
    assert verdict is not None
    assert verdict.winner == "tie"
    assert verdict.pairs_agree is False
    assert verdict.confidence == confidence
    assert verdict.confidence_basis == "votes"


def test_a_majority_whose_pairs_differ_says_its_pairs_disagree() -> None:
    outcomes = [c for i, v in enumerate([VOTE_A, VOTE_B, VOTE_A]) for c in pair(i, v, 0.9)]
    verdict = judge_verdict(Protocol("shuffle", pairs=3), outcomes)
    assert verdict is not None
    assert (verdict.winner, verdict.pairs_agree, verdict.position_consistent) == ("A", False, True)


def test_pairs_that_all_vote_alike_agree_and_one_pair_cannot_tell() -> None:
    both = [c for i, v in enumerate([VOTE_B, VOTE_B]) for c in pair(i, v, 0.9)]
    shuffled = judge_verdict(Protocol("shuffle", pairs=2), both)
    swapped = judge_verdict(SWAP, pair(0, VOTE_B, 0.9))
    assert shuffled is not None
    assert swapped is not None
    assert shuffled.pairs_agree is True
    assert swapped.pairs_agree is None


def result(name: str, winner: str, confidence: float, source: str | None) -> JudgeResult:
    return JudgeResult(
        name,
        winner,  # type: ignore[arg-type]
        confidence,
        position_consistent=True,
        confidence_source=source,
    )


def test_panel_says_when_it_averages_confidences_of_different_sources() -> None:
    verdict = panel_verdict([result("a", "A", 0.9, "logprobs"), result("b", "A", 0.7, "stated")])
    assert verdict is not None
    assert verdict.confidence == pytest.approx(0.8)
    assert verdict.confidence_source == "mixed"


def test_panel_of_one_source_keeps_it_and_an_even_split_is_a_vote_share() -> None:
    same = panel_verdict([result("a", "B", 0.9, "stated"), result("b", "B", 0.7, "stated")])
    split = panel_verdict([result("a", "A", 0.9, "stated"), result("b", "B", 0.7, "stated")])
    assert same is not None
    assert split is not None
    assert same.confidence_source == "stated"
    assert (split.winner, split.confidence, split.confidence_source) == ("tie", 0.5, "votes")


PROTOCOLS = [
    SWAP,
    SINGLE,
    *(Protocol("shuffle", pairs=p) for p in (2, 3)),
    *(Protocol("adaptive", max_pairs=m) for m in (1, 3)),
]
PICKS: list[Pick] = ["first", "second", "tie"]
SCRIPTS = [(ab, ba) for ab in PICKS for ba in PICKS]


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=str)
@pytest.mark.parametrize("confidence", [0.3, 0.9, None])
def test_inconsistent_is_said_only_of_results_that_were_not_position_consistent(
    protocol: Protocol, confidence: float | None
) -> None:
    """Every result of every combination of up to three pairs (one call for single)."""
    if protocol.kind == "single":
        runs = [[CallOutcome(0, "AB", mapped_winner(p, "AB"), confidence)] for p in PICKS]
    else:
        runs = [
            [c for i, script in enumerate(scripts) for c in pair(i, script, confidence)]
            for n in range(1, 4)
            for scripts in itertools.product(SCRIPTS, repeat=n)
        ]
    seen = set()
    for outcomes in runs:
        try:
            verdict = judge_verdict(protocol, outcomes)
        except ValueError:  # more pairs than the protocol runs
            continue
        if verdict is None:
            continue
        seen.add(verdict.confidence_basis)
        if verdict.confidence_basis == "inconsistent":
            assert verdict.position_consistent is False, outcomes
        assert verdict.bias_detected == (
            None if verdict.position_consistent is None else not verdict.position_consistent
        )
    assert seen


def test_results_stored_before_floored_existed_read_as_floored() -> None:
    stored = {"winner": "A", "confidence": 0.5, "confidence_source": "inconsistent",
              "position_consistent": True, "pairs_agree": None, "pairs_run": 1}  # fmt: skip
    assert stored_result_read(stored)["confidence_source"] == "floored"
    contradiction = {**stored, "winner": "tie", "position_consistent": False}
    assert stored_result_read(contradiction) == contradiction


def test_a_single_panel_detects_nothing() -> None:
    result = JudgeResult("one", "A", 0.8, position_consistent=None, bias_detected=None)
    verdict = panel_verdict([result])
    assert verdict is not None
    assert (verdict.position_consistent, verdict.bias_detected) == (None, None)
