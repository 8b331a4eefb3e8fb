"""Seeded comparisons of two models, with judge verdicts and queue labels, for win-rate tests."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime

from app.comparisons.protocols import Pick
from tests.labels.builders import BASE_TIME, Rows, Swap

MODEL, BASELINE = "m-new", "m-base"
# The swap picks that give each verdict for response A (a disagreeing pair gives tie).
PICKS: dict[str, tuple[Pick, Pick]] = {
    "A": ("first", "second"),
    "B": ("second", "first"),
    "tie": ("first", "first"),
}
OUTCOME = {"A": 1.0, "tie": 0.5, "B": 0.0}


def flipped(winner: str) -> str:
    """The same verdict seen from the other slot."""
    return {"A": "B", "B": "A", "tie": "tie"}[winner]


@dataclass
class Seeded:
    """The rows and, by hand, the outcomes for MODEL the answer must be computed from."""

    rows: Rows = field(default_factory=Rows)
    human: list[float] = field(default_factory=list)
    judged: list[float] = field(default_factory=list)
    unlabelled: list[float] = field(default_factory=list)
    not_from_queue: int = 0
    disputed: int = 0

    def pair(
        self,
        model_wins: str,
        model_is_a: bool,
        *,
        tags: dict[str, str] | None = None,
        at: datetime = BASE_TIME,
        models: tuple[str, str] = (MODEL, BASELINE),
        **fields: object,
    ) -> str:
        """A comparison of `models` (MODEL in slot A or B) whose verdict for MODEL is
        `model_wins` (A: won, B: lost, tie) by judge-a, with judge-b always answering tie."""
        winner = model_wins if model_is_a else flipped(model_wins)
        swaps = (Swap("judge-a", *PICKS[winner]), Swap("judge-b", *PICKS["tie"]))
        comparison_id = self.rows.comparison(*swaps, tags=tags, at=at, **fields)  # type: ignore[arg-type]
        first, second = models if model_is_a else models[::-1]
        self.rows.comparisons[-1].update(model_a=first, model_b=second)
        return comparison_id


def seeded(n: int = 240, labelled: int = 80, seed: int = 0) -> Seeded:
    """`n` comparisons of MODEL with BASELINE: a judge that agrees with the humans 70% of the
    time; the first `labelled` labelled from the queue; a few labelled outside it (counted only),
    two disputed; and comparisons no filter should let in."""
    rng = random.Random(seed)
    data = Seeded()
    for i in range(n):
        human = rng.choices(("A", "tie", "B"), weights=(5, 2, 3))[0]
        judge = human if rng.random() < 0.7 else rng.choice(("A", "tie", "B"))
        model_is_a = i % 2 == 0
        comparison_id = data.pair(judge, model_is_a, tags={"team": "x" if i % 3 else "y"})
        gold = human if model_is_a else flipped(human)
        if i < labelled:
            data.rows.label(comparison_id, "ann", gold, from_queue=True)
            data.human.append(OUTCOME[human])
            data.judged.append(OUTCOME[judge])
        else:
            data.unlabelled.append(OUTCOME[judge])
        if i < 3 or labelled <= i < labelled + 7:  # labelled outside the queue
            data.rows.label(comparison_id, "bob", flipped(gold))
            data.not_from_queue += 1
    for i in range(2):  # disputed: two queue labelers disagree; not in the labelled slice
        comparison_id = data.pair("A", i == 0)
        data.rows.label(comparison_id, "ann", "A", from_queue=True)
        data.rows.label(comparison_id, "cy", "B", from_queue=True)
        data.unlabelled.append(1.0)
        data.disputed += 1
    others(data)
    return data


def others(data: Seeded) -> None:
    """Comparisons that are not outcomes of MODEL against BASELINE in the default scope."""
    data.pair("A", True, models=(MODEL, "m-other"))
    data.pair("A", True, models=(BASELINE, "m-other"))
    data.pair("A", True, placebo=True)
    data.pair("A", True, status="failed")
    data.pair("A", True, origin="canary")
    data.pair("A", True, at=BASE_TIME.replace(year=BASE_TIME.year - 1))
