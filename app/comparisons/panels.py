"""What the voters' verdicts on a comparison add up to (who votes: `app.jobs.panels`).

Pure functions (PRODUCT.md, capability 2): verdicts are built from counts and exactly rounded
sums, whatever the order of the panel.

Rules decided here, where PRODUCT.md is silent:

- Verdict: the majority of the voters' decisive winners, i.e. A when more voters with a result say
  A than B, B in the mirror case, else ``tie``. Audits and judges without a result never vote.
- Agreement: voters whose winner equals the verdict / voters with a result.
- Confidence: the mean confidence of the voters whose winner equals the verdict (those without a
  confidence ignored, ``None`` when none has one); 0.5 when no voter's winner equals the verdict
  (an even A/B split without tie votes: each side's share of the voters).
- Its source: the backing voters' one ``confidence_source``, ``"mixed"`` when the mean is over
  confidences of different sources (the answer says so rather than hiding it), ``"votes"`` for
  an even split, ``None`` when no backing voter has a confidence.
- Position consistency: ``False`` when any voter was inconsistent, ``None`` when no voter could tell
  (``single``), else ``True``. ``bias_detected`` is its negation, ``None`` with it: a panel that
  saw one order only detected nothing, which is not the same as detecting no bias.
"""

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.comparisons.protocols import Winner
from app.jobs.panels import Role

SPLIT_CONFIDENCE = 0.5
MIXED = "mixed"
SPLIT_SOURCE = "votes"


@dataclass(frozen=True)
class JudgeResult:
    """One panel judge's verdict on a comparison, as the panel sees it."""

    name: str
    winner: Winner | None  # None: the judge has no result
    confidence: float | None = None
    position_consistent: bool | None = None
    bias_detected: bool | None = False
    role: Role = "voter"
    confidence_source: str | None = None


def stored_result(name: str, role: Role, stored: Mapping[str, Any] | None) -> JudgeResult:
    """A judge's result as the panel sees it, from the result stored with the comparison."""
    if stored is None:
        return JudgeResult(name=name, winner=None, role=role)
    return JudgeResult(
        name=name,
        winner=stored["winner"],
        confidence=stored["confidence"],
        position_consistent=stored["position_consistent"],
        # A judge detects position bias exactly when one of its pairs disagreed with itself.
        bias_detected=None
        if stored["position_consistent"] is None
        else stored["position_consistent"] is False,
        role=role,
        confidence_source=stored.get("confidence_source"),
    )


@dataclass(frozen=True)
class PanelVerdict:
    """The panel's verdict on a comparison."""

    winner: Winner
    confidence: float | None
    agreement: float
    position_consistent: bool | None
    bias_detected: bool | None
    confidence_source: str | None = None


def panel_verdict(results: Sequence[JudgeResult]) -> PanelVerdict | None:
    """The majority of the voters' decisive winners, or None when no voter has a result."""
    voters = [result for result in results if result.role == "voter" and result.winner is not None]
    if not voters:
        return None
    winner = _decisive_majority([result.winner for result in voters])
    backing = [result for result in voters if result.winner == winner]
    consistent = _position_consistent(voters)
    return PanelVerdict(
        winner=winner,
        confidence=_backing_confidence(backing),
        agreement=len(backing) / len(voters),
        position_consistent=consistent,
        bias_detected=None if consistent is None else not consistent,
        confidence_source=panel_confidence_source(voters, winner),
    )


def panel_confidence_source(results: Sequence[JudgeResult], winner: str | None) -> str | None:
    """The source of a stored panel verdict's confidence (see the module docstring)."""
    if winner is None:
        return None
    voters = [result for result in results if result.role == "voter" and result.winner is not None]
    return _backing_source([result for result in voters if result.winner == winner])


def _decisive_majority(winners: Sequence[Winner | None]) -> Winner:
    a_votes, b_votes = winners.count("A"), winners.count("B")
    if a_votes == b_votes:
        return "tie"
    return "A" if a_votes > b_votes else "B"


def _backing_confidence(backing: Sequence[JudgeResult]) -> float | None:
    if not backing:
        return SPLIT_CONFIDENCE
    confidences = [result.confidence for result in backing if result.confidence is not None]
    # fsum is exactly rounded, so the mean does not depend on the order of the judges.
    return math.fsum(confidences) / len(confidences) if confidences else None


def _backing_source(backing: Sequence[JudgeResult]) -> str | None:
    if not backing:
        return SPLIT_SOURCE
    sources = {result.confidence_source for result in backing if result.confidence is not None}
    if len(sources) > 1:
        return MIXED
    return sources.pop() if sources else None


def _position_consistent(voters: Sequence[JudgeResult]) -> bool | None:
    known = {result.position_consistent for result in voters} - {None}
    if not known:
        return None
    return False not in known
