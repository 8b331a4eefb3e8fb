"""Issue 21, honest answers: what a verdict's confidence means, and when a judge's pairs disagree.

Pure: the protocol and panel rules, without a database.
"""

from __future__ import annotations

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
    # Both orders picked A, yet the judge's own probability of A is below one half: the picks
    # and the probabilities contradict each other, so the winner is a coin flip.
    verdict = judge_verdict(SWAP, pair(0, VOTE_A, confidence))
    assert verdict is not None
    assert verdict.winner == "A"
    assert verdict.confidence == 0.5
    assert verdict.confidence_basis == "inconsistent"


def test_agreeing_pair_keeps_its_calls_mean_confidence_from_a_coin_flip_up() -> None:
    verdict = judge_verdict(SWAP, pair(0, VOTE_B, 0.75))
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == ("B", 0.75, "calls")


def test_single_call_below_a_coin_flip_does_not_name_its_winner_with_it() -> None:
    call = CallOutcome(0, "BA", "B", 0.3)
    verdict = judge_verdict(SINGLE, [call])
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == (
        "B",
        0.5,
        "inconsistent",
    )


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
