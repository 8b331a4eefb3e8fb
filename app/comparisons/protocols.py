"""Pair protocols: what one judge runs next on a comparison, and what its calls add up to.

Pure functions over call outcomes, so that the async fan-out, the batch worker and the tests share
one definition of every protocol (PRODUCT.md, capability 1).

Rounds come in swap pairs: round 2k shows A first (``AB``), round 2k+1 shows B first (``BA``).
A pair votes its mapped winner when its two calls agree and ``tie`` when they disagree: a judge
that changes its mind when only the order changed was deciding by position.

Votes are counted over pairs, never over single calls. With an odd number of alternating single
calls the extra round shows A first, so a judge that prefers the first slot hands its
position-driven disagreements to A (tests/comparisons/test_protocols.py simulates it). A pair
holds one call in each order, so position cannot favour either response.

Rules decided here, where PRODUCT.md is silent:

- Majority: an option wins with more than half of the *planned* pairs' votes (P for ``shuffle``,
  ``max_pairs`` for an escalated ``adaptive``). Early stop follows the spec literally: after each
  pair, stop when one option (``A``, ``B`` or ``tie``) has a majority or none of the three can still
  reach one with the pairs left to run.
- Failures: a pair with a failed (or missing) call casts no vote. A judge has a result only when its
  winner is the same whatever the failed and unrun pairs would have voted: an option with a majority
  wins; otherwise, when neither A nor B could reach a majority even had every failed and unrun pair
  voted for it, the verdict is ``tie`` (a tie by majority and a tie by split are the same answer);
  otherwise the judge has no result (``None``), never a fabricated tie. Under ``swap`` a failed call
  therefore means no result.
- A verdict's confidence is the probability of the winner it returns, and says what it rests on
  (``confidence_basis``): ``calls``, ``votes``, ``inconsistent`` or ``floored``.
- A pair that contradicted itself (its two orders disagreed) backs its ``tie`` with 0.5 under
  every protocol: it says the judge could not tell the responses apart except by their position,
  not that they are equal. A verdict resting on such pairs only is ``tie`` with 0.5
  (``inconsistent``) whatever the protocol, so a panel averages the same number for it.
- Confidence of a verdict over several pairs (``votes``): the mean over the pairs that voted of
  how much each backs it: 1 for an agreeing pair that voted for it, 0.5 for a contradicting pair
  when the verdict is ``tie``, else 0. Without contradictions this is votes for the verdict /
  pairs that voted. A tie reached by a split, where no option has a majority, gets the backing
  of the best-backed option: ``{A, B}`` gives tie with 0.5, as a disagreeing pair does, and a
  split's confidence is never above 0.5.
- ``swap``, ``single``, and ``adaptive`` when it ran one pair only: the agreeing pair's (or the
  call's) mean call confidence (calls without one ignored; ``None`` when neither has one;
  ``calls``). A disagreeing pair gets the fixed 0.5 (``inconsistent``), by the rule above.
- A winner chosen between A and B is never named with a confidence below 0.5: when the calls
  that picked it put its probability below one half (a three-way share with ties can), the
  verdict gets 0.5 with basis ``floored``. It is not ``inconsistent``: the pair agreed with
  itself. Call-level confidence is untouched (JUDGING.md: with ties it is a three-way share and
  may be below 0.5), and so is a ``tie`` verdict's.
- Position consistency over several pairs: ``True`` when every pair that voted agreed with itself;
  ``bias_detected`` is its negation. ``single`` cannot tell: ``None`` for both.
- ``pairs_agree``: whether every pair that voted cast the same vote; ``None`` with fewer than two
  voting pairs (``swap``, ``single``, an ``adaptive`` that stopped after one pair).
- ``adaptive`` escalates when its first pair did not agree: a disagreement, or a failed call (the
  next pairs may still decide). ``max_pairs = 1`` is exactly ``swap``.
- ``pairs_run`` counts pairs with at least one stored call; ``single`` runs no pair and reports 0.
"""

import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, get_args

Pick = Literal["first", "second", "tie"]
Winner = Literal["A", "B", "tie"]
Order = Literal["AB", "BA"]
ProtocolKind = Literal["swap", "shuffle", "adaptive", "single"]

WINNERS: tuple[Winner, ...] = ("A", "B", "tie")
SHUFFLE_PAIRS = range(2, 6)
ADAPTIVE_MAX_PAIRS = range(1, 6)
DISAGREEMENT_CONFIDENCE = 0.5
# What a verdict's confidence rests on: the calls' own confidences, the pairs' votes, a fixed
# 0.5 because the judge contradicted itself across orders, or the 0.5 floor of a winner whose
# calls put it below one half.
ConfidenceBasis = Literal["calls", "votes", "inconsistent", "floored"]


@dataclass(frozen=True)
class Protocol:
    """How one judge is asked: the kind, and how many swap pairs it may take."""

    kind: ProtocolKind = "swap"
    pairs: int = 2  # shuffle only
    max_pairs: int = 3  # adaptive only

    def __post_init__(self) -> None:
        if self.kind not in get_args(ProtocolKind):
            raise ValueError(f"unknown protocol kind {self.kind!r}")
        if self.pairs not in SHUFFLE_PAIRS:
            raise ValueError(f"pairs must be in 2..5, got {self.pairs}")
        if self.max_pairs not in ADAPTIVE_MAX_PAIRS:
            raise ValueError(f"max_pairs must be in 1..5, got {self.max_pairs}")


@dataclass(frozen=True)
class CallOutcome:
    """One finished judge call: its round, what was shown first, and its mapped winner."""

    round: int
    order: Order
    winner: Winner | None  # None: the call failed
    confidence: float | None = None


@dataclass(frozen=True)
class NextStep:
    """The rounds to run next, concurrently: a pair (2k, 2k+1), round 0 of single, or none."""

    rounds: tuple[int, ...]

    @property
    def done(self) -> bool:
        """Whether the judge needs no more calls."""
        return not self.rounds


DONE = NextStep(rounds=())


@dataclass(frozen=True)
class JudgeVerdict:
    """What one judge's calls add up to on one comparison."""

    winner: Winner
    confidence: float | None
    position_consistent: bool | None
    bias_detected: bool | None  # None: one order shown (single), nothing to detect
    pairs_run: int
    confidence_basis: ConfidenceBasis = "calls"
    pairs_agree: bool | None = None


@dataclass(frozen=True)
class _Pair:
    vote: Winner | None  # None: a call of the pair failed or is missing
    agreed: bool
    confidences: tuple[float, ...]


def order_of_round(round_index: int) -> Order:
    """The display order of a round: even rounds show A first, odd rounds show B first."""
    if round_index < 0:
        raise ValueError(f"rounds start at 0, got {round_index}")
    return "AB" if round_index % 2 == 0 else "BA"


def mapped_winner(pick: Pick, order: Order) -> Winner:
    """Translate a pick by display slot into the response it names."""
    if pick == "tie":
        return "tie"
    first: Winner = "A" if order == "AB" else "B"
    second: Winner = "B" if order == "AB" else "A"
    return first if pick == "first" else second


def is_design_round(protocol_kind: ProtocolKind, round_index: int) -> bool:
    """Whether a round is a design call, the only calls bias statistics use (STATISTICS.md)."""
    if protocol_kind == "single":
        return round_index == 0
    return round_index in (0, 1)


def planned_pairs(protocol: Protocol) -> int:
    """The most swap pairs the protocol may run (0 for single, which runs one lone call)."""
    match protocol.kind:
        case "swap":
            return 1
        case "shuffle":
            return protocol.pairs
        case "adaptive":
            return protocol.max_pairs
        case "single":
            return 0


def planned_calls(protocol: Protocol) -> int:
    """The most judge calls the protocol may make for one judge."""
    return 1 if protocol.kind == "single" else 2 * planned_pairs(protocol)


def next_step(protocol: Protocol, outcomes: Sequence[CallOutcome]) -> NextStep:
    """What to run next for one judge, given its calls so far; early stop is decided here."""
    if protocol.kind == "single":
        return DONE if _single_call(outcomes) is not None else NextStep(rounds=(0,))
    pairs = _pairs_of(outcomes, planned_pairs(protocol))
    if _pairs_finished(protocol, pairs):
        return DONE
    return NextStep(rounds=(2 * len(pairs), 2 * len(pairs) + 1))


def judge_verdict(protocol: Protocol, outcomes: Sequence[CallOutcome]) -> JudgeVerdict | None:
    """One judge's verdict, or None when its calls cannot decide (see the module docstring)."""
    if protocol.kind == "single":
        return _single_verdict(_single_call(outcomes))
    pairs = _pairs_of(outcomes, planned_pairs(protocol))
    if not pairs:
        return None
    if protocol.kind == "swap" or (
        protocol.kind == "adaptive" and (pairs[0].agreed or protocol.max_pairs == 1)
    ):
        return _pair_verdict(pairs[0])
    return _majority_verdict(pairs, planned_pairs(protocol))


def _pairs_finished(protocol: Protocol, pairs: Sequence[_Pair]) -> bool:
    planned = planned_pairs(protocol)
    if len(pairs) >= planned:
        return True
    if not pairs:
        return False
    if protocol.kind == "adaptive" and pairs[0].agreed:
        return True
    votes = _votes(pairs)
    unrun = planned - len(pairs)
    if _majority(votes, planned) is not None:
        return True
    return not any(_can_reach(votes[option], unrun, planned) for option in WINNERS)


def _single_call(outcomes: Sequence[CallOutcome]) -> CallOutcome | None:
    if len(outcomes) > 1 or any(call.round != 0 for call in outcomes):
        raise ValueError("single runs exactly one call, round 0")
    return outcomes[0] if outcomes else None


def _single_verdict(call: CallOutcome | None) -> JudgeVerdict | None:
    if call is None or call.winner is None:
        return None
    confidence, basis = _calls_confidence(call.winner, call.confidence)
    return JudgeVerdict(
        winner=call.winner,
        confidence=confidence,
        position_consistent=None,
        bias_detected=None,
        pairs_run=0,
        confidence_basis=basis,
    )


def _pair_verdict(pair: _Pair) -> JudgeVerdict | None:
    if pair.vote is None:
        return None
    if not pair.agreed:
        return JudgeVerdict(
            "tie", DISAGREEMENT_CONFIDENCE, False, True, 1, confidence_basis="inconsistent"
        )
    confidence, basis = _calls_confidence(pair.vote, _mean(pair.confidences))
    return JudgeVerdict(pair.vote, confidence, True, False, 1, confidence_basis=basis)


def _calls_confidence(
    winner: Winner, confidence: float | None
) -> tuple[float | None, ConfidenceBasis]:
    """The calls' confidence in their winner, unless it contradicts a choice between A and B."""
    if winner != "tie" and confidence is not None and confidence < DISAGREEMENT_CONFIDENCE:
        return DISAGREEMENT_CONFIDENCE, "floored"
    return confidence, "calls"


def _majority_verdict(pairs: Sequence[_Pair], planned: int) -> JudgeVerdict | None:
    votes = _votes(pairs)
    voted = [pair for pair in pairs if pair.vote is not None]
    # Pairs that failed or never ran could still have voted anything.
    open_pairs = planned - len(voted)
    winner = _majority(votes, planned)
    if winner is None and any(_can_reach(votes[o], open_pairs, planned) for o in ("A", "B")):
        return None
    # A split (no majority) is a tie; the best-backed option's backing says how far that got.
    confidence = (
        _backing(voted, winner) if winner is not None else max(_backing(voted, o) for o in WINNERS)
    )
    consistent = all(pair.agreed for pair in voted)
    contradicted_only = not any(pair.agreed for pair in voted)
    return JudgeVerdict(
        winner=winner or "tie",
        confidence=confidence,
        position_consistent=consistent,
        bias_detected=not consistent,
        pairs_run=len(pairs),
        confidence_basis="inconsistent" if contradicted_only else "votes",
        pairs_agree=len(votes) == 1 if len(voted) > 1 else None,
    )


def _backing(voted: Sequence[_Pair], option: Winner) -> float:
    """Mean over the voting pairs of how much each backs `option`: a whole vote when it agreed
    with itself, the disagreement's 0.5 when it contradicted itself (its vote is then tie)."""
    weights = [
        (1.0 if pair.agreed else DISAGREEMENT_CONFIDENCE) for pair in voted if pair.vote == option
    ]
    return math.fsum(weights) / len(voted)


def _majority(votes: Mapping[Winner, int], planned: int) -> Winner | None:
    return next((option for option in WINNERS if 2 * votes.get(option, 0) > planned), None)


def _can_reach(votes: int, open_pairs: int, planned: int) -> bool:
    return 2 * (votes + open_pairs) > planned


def _votes(pairs: Iterable[_Pair]) -> Counter[Winner]:
    return Counter(pair.vote for pair in pairs if pair.vote is not None)


def _pairs_of(outcomes: Sequence[CallOutcome], planned: int) -> list[_Pair]:
    by_round = _calls_by_round(outcomes, planned)
    pair_count = max(by_round) // 2 + 1 if by_round else 0
    pairs = []
    for index in range(pair_count):
        first, second = by_round.get(2 * index), by_round.get(2 * index + 1)
        if first is None and second is None:
            raise ValueError(f"pair {index} has no call but a later pair has")
        pairs.append(_pair_of(first, second))
    return pairs


def _calls_by_round(outcomes: Sequence[CallOutcome], planned: int) -> dict[int, CallOutcome]:
    by_round: dict[int, CallOutcome] = {}
    for call in outcomes:
        if not 0 <= call.round < 2 * planned:
            raise ValueError(f"round {call.round} is outside the protocol's {planned} pairs")
        if call.order != order_of_round(call.round):
            raise ValueError(f"round {call.round} must show {order_of_round(call.round)}")
        if call.round in by_round:
            raise ValueError(f"round {call.round} appears twice")
        by_round[call.round] = call
    return by_round


def _pair_of(ab_call: CallOutcome | None, ba_call: CallOutcome | None) -> _Pair:
    calls = [call for call in (ab_call, ba_call) if call is not None]
    confidences = tuple(call.confidence for call in calls if call.confidence is not None)
    if ab_call is None or ba_call is None or ab_call.winner is None or ba_call.winner is None:
        return _Pair(vote=None, agreed=False, confidences=confidences)
    agreed = ab_call.winner == ba_call.winner
    return _Pair(vote=ab_call.winner if agreed else "tie", agreed=agreed, confidences=confidences)


def _mean(values: Sequence[float]) -> float | None:
    # fsum is exactly rounded, so the mean does not depend on the order of the calls.
    return math.fsum(values) / len(values) if values else None
