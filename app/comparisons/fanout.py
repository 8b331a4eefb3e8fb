"""One comparison's judge calls: both calls of a pair at once, pairs of a judge in sequence,
judges at once; every call is handed to `persist` the moment it completes, the one that ends
the comparison marked `last` (the kernel stores it with the verdict)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

from app.comparisons.models import JudgeCall
from app.comparisons.protocols import (
    CallOutcome,
    Order,
    Protocol,
    Winner,
    mapped_winner,
    next_step,
    order_of_round,
)
from app.jobs.panels import Role
from app.jobs.slots import CallSlots
from app.judges.registry import RuntimeJudge
from app.judging.types import Criteria, PairCallResult

Persist = Callable[[RuntimeJudge, Role, int, Order, PairCallResult, bool], Awaitable[JudgeCall]]
_order_rng = random.SystemRandom()


@dataclass
class _Step:
    """One step of a judge's protocol as its calls complete: the outcomes so far (the judge's
    earlier steps and the step's completed calls) and how many of its calls are still out."""

    outcomes: list[CallOutcome]
    out: int


@dataclass(frozen=True)
class PairTexts:
    """What every call of one comparison shows."""

    prompt: str
    response_a: str
    response_b: str
    criteria: Criteria | None
    reference: str | None


class FanOut:
    """Runs the protocol of each judge through the shared pool."""

    def __init__(
        self, slots: CallSlots, texts: PairTexts, protocol: Protocol, persist: Persist
    ) -> None:
        self.slots = slots
        self.texts = texts
        self.protocol = protocol
        self.persist = persist
        self.judges_running = 0

    async def run(
        self,
        judges: list[tuple[RuntimeJudge, Role]],
        stored: Mapping[str, Sequence[JudgeCall]] | None = None,
    ) -> dict[str, list[JudgeCall]]:
        """Every judge's stored calls, by judge name; rounds in `stored` are not asked again."""
        stored = stored or {}
        self.judges_running = len(judges)
        async with asyncio.TaskGroup() as group:
            tasks = {
                judge.name: group.create_task(self.run_judge(judge, role, stored.get(judge.name)))
                for judge, role in judges
            }
        return {name: task.result() for name, task in tasks.items()}

    async def run_judge(
        self, judge: RuntimeJudge, role: Role, stored: Sequence[JudgeCall] | None = None
    ) -> list[JudgeCall]:
        """Pairs one after another, so that an early stop saves calls.

        The protocol replays over `stored` calls (a resumed batch item) and asks only for the
        rounds it still lacks, so a round is never made twice.
        """
        known = {c.round: c for c in stored or ()}
        calls: list[JudgeCall] = []
        outcomes: list[CallOutcome] = []
        while not (step := next_step(self.protocol, outcomes)).done:
            fresh = [r for r in step.rounds if r not in known]
            orders = {r: self._order(judge, r) for r in fresh}
            kept = [known[r] for r in step.rounds if r in known]
            progress = _Step([*outcomes, *map(outcome_of, kept)], len(fresh))
            made = await asyncio.gather(
                *(self.call(judge, role, r, orders[r], progress) for r in fresh)
            )
            done = sorted([*kept, *made], key=_round)
            calls.extend(done)
            outcomes.extend(outcome_of(c) for c in done)
        self.judges_running -= 1
        return calls

    def ends_comparison(self, progress: _Step) -> bool:
        """Whether a call that just completed its step is the comparison's last: its judge's
        protocol is done after the step and no other judge is still running."""
        if progress.out or self.judges_running > 1:
            return False
        return next_step(self.protocol, sorted(progress.outcomes, key=_outcome_round)).done

    def _order(self, judge: RuntimeJudge, round_index: int) -> Order:
        if self.protocol.kind == "single":
            rng = self._rng(judge, round_index, "order") or _order_rng
            return "AB" if rng.random() < 0.5 else "BA"
        return order_of_round(round_index)

    def _rng(
        self, judge: RuntimeJudge, round_index: int, purpose: str = "labels"
    ) -> random.Random | None:
        """A seeded draw per call and purpose. Separate purposes get separate streams: the
        order's draw must not decide the label pair's (with one stream, seeded `single` runs
        tied label pairs to orders)."""
        return self.slots.rng(judge.name, round_index, purpose)

    async def call(
        self, judge: RuntimeJudge, role: Role, round_index: int, order: Order, progress: _Step
    ) -> JudgeCall:
        """One judge call within the deadline, stored as soon as it completes."""
        texts = self.texts
        first, second = (
            (texts.response_a, texts.response_b)
            if order == "AB"
            else (texts.response_b, texts.response_a)
        )

        async def invoke() -> PairCallResult:
            return await judge.client.judge_pair(
                texts.prompt,
                first,
                second,
                criteria=texts.criteria,
                reference=texts.reference,
                deadline=self.slots.deadline,
                rng=self._rng(judge, round_index),
            )

        result = await self.slots.run(invoke, PairCallResult, "comparison")
        progress.out -= 1
        winner = winner_of(result.pick, order)
        outcome = CallOutcome(
            round=round_index,
            order=order,
            winner=cast(Winner | None, winner),
            confidence=result.confidence,
        )
        progress.outcomes.append(outcome)
        last = self.ends_comparison(progress)
        return await self.persist(judge, role, round_index, order, result, last)


def _round(call: JudgeCall) -> int:
    return call.round


def _outcome_round(outcome: CallOutcome) -> int:
    return outcome.round


def outcome_of(call: JudgeCall) -> CallOutcome:
    """The protocol's view of a stored call."""
    return CallOutcome(
        round=call.round,
        order=cast(Order, call.display_order),
        winner=cast(Winner | None, call.mapped_winner),
        confidence=call.confidence,
    )


def winner_of(pick: str | None, order: Order) -> str | None:
    """The mapped winner of a parsed pick (None for a failed call)."""
    return mapped_winner(pick, order) if pick is not None else None  # type: ignore[arg-type]
