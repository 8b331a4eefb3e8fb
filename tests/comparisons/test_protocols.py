"""Pair protocols: every vote combination, early stop, failures, symmetry and a bias simulation."""

import itertools
import math
import random
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from types import SimpleNamespace
from typing import Any, cast, get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.comparisons.panels import JudgeResult, PanelVerdict, panel_verdict
from app.comparisons.protocols import (
    ADAPTIVE_MAX_PAIRS,
    DISAGREEMENT_CONFIDENCE,
    SHUFFLE_PAIRS,
    WINNERS,
    CallOutcome,
    JudgeVerdict,
    NextStep,
    Order,
    Pick,
    Protocol,
    ProtocolKind,
    Winner,
    is_design_round,
    judge_verdict,
    mapped_winner,
    next_step,
    order_of_round,
    planned_calls,
    planned_pairs,
)

PairScript = tuple[Pick | None, Pick | None]  # the AB call's pick, the BA call's pick; None: failed

VOTE_A: PairScript = ("first", "second")
VOTE_B: PairScript = ("second", "first")
AGREED_TIE: PairScript = ("tie", "tie")
POSITION_TIE: PairScript = ("first", "first")  # disagreement driven by position: votes tie
FAILED: PairScript = ("first", None)

SCRIPT_OF_VOTE: dict[Winner | None, PairScript] = {
    "A": VOTE_A,
    "B": VOTE_B,
    "tie": POSITION_TIE,
    None: FAILED,
}

SWAP = Protocol("swap")
SINGLE = Protocol("single")


def call(round_index: int, pick: Pick | None, confidence: float | None = None) -> CallOutcome:
    order = order_of_round(round_index)
    winner = None if pick is None else mapped_winner(pick, order)
    return CallOutcome(round_index, order, winner, confidence)


def pair_calls(
    index: int, script: PairScript, confidences: tuple[float | None, float | None] = (None, None)
) -> list[CallOutcome]:
    rounds = (2 * index, 2 * index + 1)
    return [call(r, p, c) for r, p, c in zip(rounds, script, confidences, strict=True)]


def run(protocol: Protocol, scripts: Sequence[PairScript]) -> tuple[JudgeVerdict | None, int]:
    """Drive a pair protocol as the fan-out does; return the verdict and the pairs it took."""
    outcomes: list[CallOutcome] = []
    while not (step := next_step(protocol, outcomes)).done:
        outcomes += pair_calls(step.rounds[0] // 2, scripts[step.rounds[0] // 2])
    return judge_verdict(protocol, outcomes), len(outcomes) // 2


def run_votes(
    protocol: Protocol, votes: Sequence[Winner | None]
) -> tuple[JudgeVerdict | None, int]:
    return run(protocol, [SCRIPT_OF_VOTE[vote] for vote in votes])


# --- vocabulary ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("round_index", "order"), [(0, "AB"), (1, "BA"), (2, "AB"), (3, "BA"), (9, "BA")]
)
def test_even_rounds_show_a_first_and_odd_rounds_b_first(round_index: int, order: Order) -> None:
    assert order_of_round(round_index) == order


@pytest.mark.parametrize(
    ("pick", "order", "winner"),
    [
        ("first", "AB", "A"),
        ("second", "AB", "B"),
        ("tie", "AB", "tie"),
        ("first", "BA", "B"),
        ("second", "BA", "A"),
        ("tie", "BA", "tie"),
    ],
)
def test_picks_map_to_the_response_shown_in_that_slot(
    pick: Pick, order: Order, winner: Winner
) -> None:
    assert mapped_winner(pick, order) == winner


@pytest.mark.parametrize(
    ("protocol", "calls"),
    [
        (SWAP, 2),
        (Protocol("shuffle", pairs=2), 4),
        (Protocol("shuffle", pairs=5), 10),
        (Protocol("adaptive", max_pairs=1), 2),
        (Protocol("adaptive"), 6),
        (SINGLE, 1),
    ],
)
def test_planned_calls_bound_every_protocol(protocol: Protocol, calls: int) -> None:
    assert planned_calls(protocol) == calls


@pytest.mark.parametrize(
    ("kind", "round_index", "design"),
    [
        ("swap", 0, True),
        ("swap", 1, True),
        ("shuffle", 1, True),
        ("shuffle", 2, False),
        ("adaptive", 0, True),
        ("adaptive", 3, False),
        ("single", 0, True),
        ("single", 1, False),
    ],
)
def test_design_rounds_are_the_first_pair_or_the_single_call(
    kind: ProtocolKind, round_index: int, design: bool
) -> None:
    assert is_design_round(kind, round_index) is design


@pytest.mark.parametrize(
    "make",
    [
        lambda: Protocol("shuffle", pairs=1),
        lambda: Protocol("shuffle", pairs=6),
        lambda: Protocol("adaptive", max_pairs=0),
        lambda: Protocol("adaptive", max_pairs=6),
        lambda: Protocol("majority"),  # type: ignore[arg-type]
    ],
)
def test_protocol_rejects_out_of_range_settings(make: Callable[[], Protocol]) -> None:
    with pytest.raises(ValueError, match=r"pairs|kind"):
        make()


@pytest.mark.parametrize(
    ("protocol", "outcomes"),
    [
        (SWAP, [CallOutcome(0, "BA", "A")]),  # round 0 shows A first
        (SWAP, [call(0, "first"), call(0, "first")]),
        (SWAP, [call(2, "first"), call(3, "first")]),  # swap has one pair
        (Protocol("shuffle", pairs=3), [call(0, "first"), call(4, "first")]),  # pair 1 missing
    ],
)
def test_malformed_outcomes_are_rejected(protocol: Protocol, outcomes: list[CallOutcome]) -> None:
    with pytest.raises(ValueError, match=r"round|pair"):
        judge_verdict(protocol, outcomes)
    with pytest.raises(ValueError, match=r"round|pair"):
        next_step(protocol, outcomes)


# --- swap ------------------------------------------------------------------------------------

SWAP_TABLE: list[tuple[Pick, Pick, Winner, bool]] = [
    # AB pick, BA pick, winner, position consistent
    ("first", "first", "tie", False),
    ("first", "second", "A", True),
    ("first", "tie", "tie", False),
    ("second", "first", "B", True),
    ("second", "second", "tie", False),
    ("second", "tie", "tie", False),
    ("tie", "first", "tie", False),
    ("tie", "second", "tie", False),
    ("tie", "tie", "tie", True),
]


@pytest.mark.parametrize(("ab_pick", "ba_pick", "winner", "consistent"), SWAP_TABLE)
def test_swap_verdict_for_every_pick_combination(
    ab_pick: Pick, ba_pick: Pick, winner: Winner, consistent: bool
) -> None:
    verdict, pairs_run = run(SWAP, [(ab_pick, ba_pick)])
    assert verdict is not None
    assert (verdict.winner, verdict.position_consistent, verdict.bias_detected) == (
        winner,
        consistent,
        not consistent,
    )
    assert pairs_run == verdict.pairs_run == 1


@pytest.mark.parametrize(
    ("ab_pick", "ba_pick"), [(ab, ba) for ab, ba, _, ok in SWAP_TABLE if not ok]
)
def test_inconsistent_orders_give_tie_and_flag_bias(ab_pick: Pick, ba_pick: Pick) -> None:
    outcomes = pair_calls(0, (ab_pick, ba_pick), (0.9, 0.8))
    assert judge_verdict(SWAP, outcomes) == JudgeVerdict(
        "tie", 0.5, False, True, pairs_run=1, confidence_basis="inconsistent"
    )


@pytest.mark.parametrize(
    ("confidences", "expected"),
    [((0.8, 0.6), 0.7), ((0.8, None), 0.8), ((None, 0.6), 0.6), ((None, None), None)],
)
def test_agreeing_swap_pair_has_the_mean_confidence_of_its_calls(
    confidences: tuple[float | None, float | None], expected: float | None
) -> None:
    verdict = judge_verdict(SWAP, pair_calls(0, VOTE_B, confidences))
    assert verdict == JudgeVerdict("B", expected, True, False, pairs_run=1)


PICKS_OR_FAILED: list[Pick | None] = ["first", "second", "tie", None]
EVERY_PAIR_SCRIPT: list[PairScript] = [(ab, ba) for ab in PICKS_OR_FAILED for ba in PICKS_OR_FAILED]


@pytest.mark.parametrize("script", [script for script in EVERY_PAIR_SCRIPT if None in script])
def test_failed_call_under_swap_gives_no_result(script: PairScript) -> None:
    assert run(SWAP, [script]) == (None, 1)


def test_swap_with_only_one_call_stored_has_no_result() -> None:
    assert judge_verdict(SWAP, [call(0, "first")]) is None
    assert next_step(SWAP, [call(0, "first")]).done


def test_swap_runs_rounds_0_and_1_then_stops() -> None:
    assert next_step(SWAP, []) == NextStep(rounds=(0, 1))
    assert next_step(SWAP, pair_calls(0, VOTE_A)).done


# --- shuffle ---------------------------------------------------------------------------------

SHUFFLE_TABLE: list[tuple[int, list[Winner | None], Winner | None, float | None, int]] = [
    # pairs, scripted votes, winner, confidence, pairs run
    (2, ["A", "A"], "A", 1.0, 2),
    (2, ["B", "B"], "B", 1.0, 2),
    (2, ["A", "B"], "tie", 0.5, 2),  # a split: the best-backed option's share
    (2, ["A", "tie"], "tie", 0.5, 2),
    (2, ["tie", "tie"], "tie", 0.5, 2),  # contradictions back a tie with 0.5 each
    (2, ["tie", "B"], "tie", 0.5, 2),
    (3, ["A", "A", "B"], "A", 1.0, 2),
    (3, ["B", "A", "B"], "B", 2 / 3, 3),
    (3, ["A", "B", "tie"], "tie", 1 / 3, 3),
    (3, ["tie", "tie", "A"], "tie", 0.5, 2),
    (3, ["A", "tie", "A"], "A", 2 / 3, 3),
    (4, ["A", "A", "A", "B"], "A", 1.0, 3),
    (4, ["A", "B", "A", "A"], "A", 0.75, 4),
    (4, ["A", "B", "tie", "A"], "tie", 1 / 3, 3),  # nothing can reach 3 of 4 any more
    (4, ["A", "A", "B", "B"], "tie", 0.5, 4),
    (4, ["tie", "tie", "tie", "A"], "tie", 0.5, 3),
    (5, ["A", "A", "A", "B", "B"], "A", 1.0, 3),
    (5, ["A", "B", "A", "B", "A"], "A", 0.6, 5),
    (5, ["A", "B", "tie", "B", "tie"], "tie", 0.4, 5),
    (5, ["A", "B", "A", "B", "tie"], "tie", 0.4, 5),
    (5, ["tie", "tie", "tie", "A", "A"], "tie", 0.5, 3),
]


@pytest.mark.parametrize(("pairs", "votes", "winner", "confidence", "pairs_run"), SHUFFLE_TABLE)
def test_shuffle_takes_the_majority_of_planned_pairs_and_stops_early(
    pairs: int,
    votes: list[Winner | None],
    winner: Winner,
    confidence: float,
    pairs_run: int,
) -> None:
    verdict, used = run_votes(Protocol("shuffle", pairs=pairs), votes)
    assert verdict is not None
    assert (verdict.winner, used, verdict.pairs_run) == (winner, pairs_run, pairs_run)
    assert verdict.confidence == pytest.approx(confidence)


def _full_run_winner(votes: Sequence[Winner], planned: int) -> Winner:
    counts = Counter(votes)
    return next((option for option in WINNERS if 2 * counts[option] > planned), "tie")


def _oracle(planned: int, votes: Sequence[Winner | None]) -> tuple[Winner | None, int]:
    """Brute force: stop at the first prefix whose outcome no continuation can change."""
    for run_pairs in range(1, planned + 1):
        prefix = [vote for vote in votes[:run_pairs] if vote is not None]
        unrun = planned - run_pairs
        prefix_counts = Counter(prefix)
        has_majority = any(2 * prefix_counts[o] > planned for o in WINNERS)
        reachable = {
            o
            for rest in itertools.product(WINNERS, repeat=unrun)
            for o in WINNERS
            if 2 * Counter([*prefix, *rest])[o] > planned
        }
        if has_majority or not reachable or run_pairs == planned:
            break
    failed_or_unrun = planned - len(prefix)
    outcomes = {
        _full_run_winner([*prefix, *rest], planned)
        for rest in itertools.product(WINNERS, repeat=failed_or_unrun)
    }
    return (outcomes.pop() if len(outcomes) == 1 else None), run_pairs


@pytest.mark.parametrize("pairs", [2, 3, 4, 5])
def test_shuffle_matches_a_brute_force_oracle_for_every_vote_combination(pairs: int) -> None:
    protocol = Protocol("shuffle", pairs=pairs)
    for votes in itertools.product([*WINNERS, None], repeat=pairs):
        verdict, used = run_votes(protocol, votes)
        expected_winner, expected_used = _oracle(pairs, votes)
        assert (verdict.winner if verdict else None, used) == (expected_winner, expected_used), (
            votes
        )


def test_shuffle_verdict_is_undecided_before_the_run_is_done() -> None:
    protocol = Protocol("shuffle", pairs=3)
    outcomes = pair_calls(0, VOTE_A)
    assert next_step(protocol, outcomes) == NextStep(rounds=(2, 3))
    assert judge_verdict(protocol, outcomes) is None


def test_shuffle_position_consistency_needs_every_voting_pair_to_agree() -> None:
    consistent, _ = run(Protocol("shuffle", pairs=3), [VOTE_A, AGREED_TIE, VOTE_A])
    inconsistent, _ = run(Protocol("shuffle", pairs=3), [VOTE_A, POSITION_TIE, VOTE_A])
    assert consistent == JudgeVerdict("A", 2 / 3, True, False, 3, "votes", pairs_agree=False)
    assert inconsistent == JudgeVerdict("A", 2 / 3, False, True, 3, "votes", pairs_agree=False)


# --- failures --------------------------------------------------------------------------------

FAILURE_TABLE: list[tuple[Protocol, list[Winner | None], Winner | None, int]] = [
    # protocol, scripted votes (None: a failed pair), winner (None: no result), pairs run
    (Protocol("shuffle", pairs=2), [None], None, 1),  # nothing can reach 2 of 2 any more
    (Protocol("shuffle", pairs=2), ["A", None], None, 2),
    (Protocol("shuffle", pairs=3), [None, "A", "A"], "A", 3),
    (Protocol("shuffle", pairs=3), [None, "A", "B"], None, 3),
    (Protocol("shuffle", pairs=3), ["A", None, "A"], "A", 3),
    (Protocol("shuffle", pairs=3), [None, "tie", "tie"], "tie", 3),
    (Protocol("shuffle", pairs=4), ["tie", "tie", "A", None], "tie", 4),  # A, B out of reach
    (Protocol("shuffle", pairs=5), ["A", "B", None, "A", "B"], None, 5),
    (Protocol("shuffle", pairs=5), ["A", "B", "tie", None], None, 4),  # A or B could still win
    (Protocol("adaptive", max_pairs=1), [None], None, 1),
    (Protocol("adaptive", max_pairs=3), [None, "A", "A"], "A", 3),
    (Protocol("adaptive", max_pairs=3), [None, "A", "B"], None, 3),
    (Protocol("adaptive", max_pairs=3), ["tie", None, "B"], None, 3),
]


@pytest.mark.parametrize(("protocol", "votes", "winner", "pairs_run"), FAILURE_TABLE)
def test_failed_pairs_give_no_result_unless_the_winner_is_decided(
    protocol: Protocol, votes: list[Winner | None], winner: Winner | None, pairs_run: int
) -> None:
    verdict, used = run_votes(protocol, votes)
    assert (verdict.winner if verdict else None, used) == (winner, pairs_run)


def test_decided_tie_with_a_failed_pair_counts_only_pairs_that_voted() -> None:
    verdict, _ = run_votes(Protocol("shuffle", pairs=4), ["tie", "tie", "A", None])
    # A split: A's one vote and the two contradictions' halves each back their option with 1/3.
    assert verdict == JudgeVerdict("tie", 1 / 3, False, True, 4, "votes", pairs_agree=False)


def test_adaptive_cut_short_after_a_disagreement_has_no_result() -> None:
    # A deadline can stop escalation: the pairs that would have decided never ran.
    assert judge_verdict(Protocol("adaptive"), pair_calls(0, POSITION_TIE)) is None


# --- adaptive --------------------------------------------------------------------------------


@pytest.mark.parametrize(("script", "winner"), [(VOTE_A, "A"), (VOTE_B, "B"), (AGREED_TIE, "tie")])
def test_adaptive_stops_after_an_agreeing_first_pair(script: PairScript, winner: Winner) -> None:
    outcomes = pair_calls(0, script, (1.0, 0.5))
    assert next_step(Protocol("adaptive"), outcomes).done
    assert judge_verdict(Protocol("adaptive"), outcomes) == JudgeVerdict(
        winner, 0.75, True, False, pairs_run=1
    )


ADAPTIVE_TABLE: list[tuple[int, list[PairScript], Winner, float, int]] = [
    # max pairs, scripted pairs, winner, confidence, pairs run
    (3, [POSITION_TIE, VOTE_A, VOTE_A], "A", 2 / 3, 3),
    (3, [POSITION_TIE, VOTE_B, VOTE_A], "tie", 1 / 3, 3),
    (3, [POSITION_TIE, AGREED_TIE], "tie", 0.75, 2),
    (3, [POSITION_TIE, POSITION_TIE], "tie", 0.5, 2),
    (2, [POSITION_TIE, VOTE_A], "tie", 0.5, 2),
    (4, [POSITION_TIE, VOTE_B, VOTE_B, VOTE_B], "B", 0.75, 4),
    (5, [POSITION_TIE, VOTE_A, VOTE_A, VOTE_A], "A", 0.75, 4),
    (5, [POSITION_TIE, VOTE_A, VOTE_B, VOTE_A, VOTE_B], "tie", 0.4, 5),
]


@pytest.mark.parametrize(("max_pairs", "scripts", "winner", "confidence", "used"), ADAPTIVE_TABLE)
def test_adaptive_escalates_only_after_a_disagreeing_first_pair(
    max_pairs: int, scripts: list[PairScript], winner: Winner, confidence: float, used: int
) -> None:
    verdict, pairs_run = run(Protocol("adaptive", max_pairs=max_pairs), scripts)
    assert verdict is not None
    assert (verdict.winner, verdict.position_consistent, verdict.bias_detected) == (
        winner,
        False,
        True,
    )
    assert verdict.confidence == pytest.approx(confidence)
    assert pairs_run == verdict.pairs_run == used


@pytest.mark.parametrize("max_pairs", [1, 2, 3, 4, 5])
def test_pure_position_bias_gets_tie_under_adaptive_as_under_swap(max_pairs: int) -> None:
    always_first: PairScript = ("first", "first")
    verdict, _ = run(Protocol("adaptive", max_pairs=max_pairs), [always_first] * max_pairs)
    swap_verdict, _ = run(SWAP, [always_first])
    assert verdict is not None
    assert swap_verdict is not None
    assert (verdict.winner, verdict.bias_detected) == (swap_verdict.winner, True) == ("tie", True)


@pytest.mark.parametrize("script", EVERY_PAIR_SCRIPT)
def test_adaptive_with_one_pair_is_swap(script: PairScript) -> None:
    outcomes = pair_calls(0, script, (0.6, 0.9))
    adaptive = Protocol("adaptive", max_pairs=1)
    assert judge_verdict(adaptive, outcomes) == judge_verdict(SWAP, outcomes)
    assert next_step(adaptive, outcomes) == next_step(SWAP, outcomes) == NextStep(rounds=())


# --- single ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pick", "order", "winner"),
    [
        ("first", "AB", "A"),
        ("first", "BA", "B"),
        ("second", "AB", "B"),
        ("second", "BA", "A"),
        ("tie", "AB", "tie"),
        ("tie", "BA", "tie"),
        (None, "AB", None),
        (None, "BA", None),
    ],
)
def test_single_returns_its_one_calls_mapped_winner(
    pick: Pick | None, order: Order, winner: Winner | None
) -> None:
    outcome = CallOutcome(0, order, None if pick is None else mapped_winner(pick, order), 0.7)
    expected = None if winner is None else JudgeVerdict(winner, 0.7, None, None, pairs_run=0)
    assert judge_verdict(SINGLE, [outcome]) == expected


def test_single_runs_round_0_once() -> None:
    assert next_step(SINGLE, []) == NextStep(rounds=(0,))
    assert next_step(SINGLE, [CallOutcome(0, "BA", "B")]).done
    assert judge_verdict(SINGLE, []) is None
    with pytest.raises(ValueError, match="single"):
        next_step(SINGLE, [CallOutcome(1, "BA", "B")])


# --- symmetry --------------------------------------------------------------------------------

MIRROR: dict[Winner, Winner] = {"A": "B", "B": "A", "tie": "tie"}


def mirrored(kind: ProtocolKind, outcome: CallOutcome) -> CallOutcome:
    """The same call seen with A and B swapped: the display it had belongs to the other round."""
    order: Order = "BA" if outcome.order == "AB" else "AB"
    round_index = outcome.round if kind == "single" else outcome.round ^ 1
    winner = None if outcome.winner is None else MIRROR[outcome.winner]
    return CallOutcome(round_index, order, winner, outcome.confidence)


picks = st.sampled_from(PICKS_OR_FAILED)
confidences = st.none() | st.floats(min_value=0.0, max_value=1.0)
scripted_calls = st.tuples(st.tuples(picks, picks), st.tuples(confidences, confidences))


@given(
    protocol=st.builds(
        Protocol,
        kind=st.sampled_from(get_args(ProtocolKind)),
        pairs=st.integers(2, 5),
        max_pairs=st.integers(1, 5),
    ),
    script=st.lists(scripted_calls, min_size=5, max_size=5),
    single_order=st.sampled_from(["AB", "BA"]),
)
def test_swapping_a_and_b_mirrors_the_verdict(
    protocol: Protocol,
    script: list[tuple[PairScript, tuple[float | None, float | None]]],
    single_order: Order,
) -> None:
    outcomes: list[CallOutcome] = []
    while not (step := next_step(protocol, outcomes)).done:
        assert next_step(protocol, [mirrored(protocol.kind, c) for c in outcomes]) == step
        (ab_pick, ba_pick), (ab_conf, ba_conf) = script[step.rounds[0] // 2]
        if protocol.kind == "single":
            winner = None if ab_pick is None else mapped_winner(ab_pick, single_order)
            outcomes.append(CallOutcome(0, single_order, winner, ab_conf))
        else:
            outcomes += pair_calls(step.rounds[0] // 2, (ab_pick, ba_pick), (ab_conf, ba_conf))
    mirror_outcomes = [mirrored(protocol.kind, c) for c in outcomes]
    verdict = judge_verdict(protocol, outcomes)
    expected = None if verdict is None else replace(verdict, winner=MIRROR[verdict.winner])
    assert next_step(protocol, mirror_outcomes).done
    assert judge_verdict(protocol, mirror_outcomes) == expected


# --- why pairs: a position-biased judge ------------------------------------------------------

FIRST_SHOWN_WINS = 0.73
COMPARISONS = 2_000


def position_biased_pick(rng: random.Random) -> Pick:
    """A judge facing two equally good responses: it picks the one shown first 73% of the time."""
    return "first" if rng.random() < FIRST_SHOWN_WINS else "second"


def within_three_standard_errors(winners: Counter[Winner | None]) -> bool:
    # Var(nA - nB) = n(pA + pB) - n(pA - pB)^2 <= nA + nB in expectation: a conservative bound.
    return abs(winners["A"] - winners["B"]) <= 3 * math.sqrt(winners["A"] + winners["B"])


@pytest.mark.parametrize(
    "protocol", [Protocol("adaptive"), SWAP, Protocol("shuffle", pairs=3)], ids=str
)
def test_pair_protocols_favour_neither_response_for_a_position_biased_judge(
    protocol: Protocol,
) -> None:
    rng = random.Random(7)
    winners: Counter[Winner | None] = Counter()
    for _ in range(COMPARISONS):
        outcomes: list[CallOutcome] = []
        while not (step := next_step(protocol, outcomes)).done:
            outcomes += [call(r, position_biased_pick(rng)) for r in step.rounds]
        verdict = judge_verdict(protocol, outcomes)
        winners[verdict.winner if verdict else None] += 1
    assert winners[None] == 0
    assert within_three_standard_errors(winners), winners


def test_majority_of_an_odd_number_of_single_calls_hands_position_bias_to_a() -> None:
    # The seeds' multi-shuffle: rounds 0, 1, 2 alternate AB, BA, AB; round 2 shows A first again.
    rng = random.Random(7)
    winners: Counter[Winner | None] = Counter()
    for _ in range(COMPARISONS):
        calls = Counter(
            mapped_winner(position_biased_pick(rng), order_of_round(r)) for r in range(3)
        )
        winners["A" if calls["A"] > calls["B"] else "B" if calls["B"] > calls["A"] else "tie"] += 1
    assert not within_three_standard_errors(winners), winners
    assert winners["A"] > winners["B"]


def test_seeded_single_draws_order_and_label_pair_independently() -> None:
    """With a draw seed, `single`'s display order and the call's label pair come from separate
    streams: every label pair shows up under both orders at its share (χ² of independence)."""
    from scipy.stats import chi2_contingency

    from app.comparisons.fanout import FanOut
    from app.jobs.slots import CallSlots
    from app.judging.labels import draw_label_assignment
    from app.judging.types import DEFAULT_LABEL_POOL

    judge = cast(Any, SimpleNamespace(name="seeded"))
    table: Counter[tuple[str, tuple[str, str]]] = Counter()
    for seed in range(4000):
        slots = CallSlots(cast(Any, None), 1, 0.0, draw_seed=str(seed))
        fanout = FanOut(slots, cast(Any, None), Protocol(kind="single"), cast(Any, None))
        order = fanout._order(judge, 0)
        rng = fanout._rng(judge, 0)
        assert rng is not None
        pair, _, _ = draw_label_assignment(DEFAULT_LABEL_POOL, rng)
        table[(order, pair)] += 1
    counts = [[table[(order, pair)] for pair in DEFAULT_LABEL_POOL] for order in ("AB", "BA")]
    assert chi2_contingency(counts).pvalue > 0.001


# --- one rule for a judge that contradicts itself ---------------------------------------------

PAIR_PROTOCOLS = [
    SWAP,
    *(Protocol("shuffle", pairs=p) for p in SHUFFLE_PAIRS),
    *(Protocol("adaptive", max_pairs=m) for m in ADAPTIVE_MAX_PAIRS),
]
CONTRADICTIONS: list[PairScript] = [
    ("first", "first"),
    ("second", "second"),
    ("first", "tie"),
    ("tie", "second"),
]


@pytest.mark.parametrize("protocol", PAIR_PROTOCOLS, ids=str)
@pytest.mark.parametrize("script", CONTRADICTIONS)
def test_a_judge_whose_every_pair_contradicted_itself_gets_the_same_tie_under_every_protocol(
    protocol: Protocol, script: PairScript
) -> None:
    verdict, _ = run(protocol, [script] * planned_pairs(protocol))
    assert verdict is not None
    assert (verdict.winner, verdict.confidence, verdict.confidence_basis) == (
        "tie",
        DISAGREEMENT_CONFIDENCE,
        "inconsistent",
    )
    assert (verdict.position_consistent, verdict.bias_detected) == (False, True)
    # What a panel averages is the same number whatever the protocol.
    result = JudgeResult("j", verdict.winner, verdict.confidence, False, True)
    assert panel_verdict([result]) == PanelVerdict("tie", 0.5, 1.0, False, True)


def test_the_only_single_protocol_verdict_cannot_be_a_contradiction() -> None:
    verdict = judge_verdict(SINGLE, [call(0, "first", 0.9)])
    assert verdict is not None
    assert verdict.confidence_basis != "inconsistent"


@pytest.mark.parametrize(
    ("protocol", "scripts", "confidence", "basis"),
    [
        # A contradicting pair backs a tie with the swap rule's 0.5, an agreeing one with 1.
        (Protocol("adaptive", max_pairs=3), [POSITION_TIE, AGREED_TIE], 0.75, "votes"),
        (Protocol("shuffle", pairs=3), [AGREED_TIE, POSITION_TIE], 0.75, "votes"),
        (Protocol("shuffle", pairs=3), [AGREED_TIE, AGREED_TIE], 1.0, "votes"),
        (Protocol("shuffle", pairs=2), [VOTE_A, POSITION_TIE], 0.5, "votes"),  # a split
    ],
)
def test_a_contradicting_pair_backs_a_tie_with_half_a_vote(
    protocol: Protocol, scripts: list[PairScript], confidence: float, basis: str
) -> None:
    verdict, _ = run(protocol, scripts)
    assert verdict is not None
    assert (verdict.winner, verdict.confidence_basis) == ("tie", basis)
    assert verdict.confidence == pytest.approx(confidence)
