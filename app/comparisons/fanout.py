"""One comparison's judge calls: both calls of a pair at once, pairs of a judge in sequence,
judges at once; every call is handed to `persist` the moment it completes."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import cast

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
from app.judging.base import Deferred, JudgeClient
from app.judging.types import Criteria, PairCallResult
from app.ledger.models import JudgeCall

Persist = Callable[[RuntimeJudge, Role, int, Order, PairCallResult], Awaitable[JudgeCall]]
# The client a judge's calls go through (its own, or one that defers to a provider batch job).
ClientOf = Callable[[RuntimeJudge], JudgeClient]
_order_rng = random.SystemRandom()


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
        self,
        slots: CallSlots,
        texts: PairTexts,
        protocol: Protocol,
        persist: Persist,
        client_of: ClientOf | None = None,
    ) -> None:
        self.slots = slots
        self.texts = texts
        self.protocol = protocol
        self.persist = persist
        self.client_of = client_of or _own_client

    async def run(
        self,
        judges: list[tuple[RuntimeJudge, Role]],
        stored: Mapping[str, Sequence[JudgeCall]] | None = None,
    ) -> dict[str, list[JudgeCall]]:
        """Every judge's stored calls, by judge name; rounds in `stored` are not asked again."""
        stored = stored or {}
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
        rounds it still lacks, so a round is never made twice. A step whose calls were deferred
        (handed to a provider batch job) ends the judge's run here, with the calls it has: the
        next delivery replays this far and goes on from the answers.
        """
        known = {c.round: c for c in stored or ()}
        calls: list[JudgeCall] = []
        outcomes: list[CallOutcome] = []
        while not (step := next_step(self.protocol, outcomes)).done:
            fresh = [r for r in step.rounds if r not in known]
            orders = {r: self._order(judge, r) for r in fresh}
            made = await asyncio.gather(
                *(self.call(judge, role, r, orders[r]) for r in fresh), return_exceptions=True
            )
            answered = [call for call in made if isinstance(call, JudgeCall)]
            for failure in made:
                if isinstance(failure, BaseException) and not isinstance(failure, Deferred):
                    raise failure
            done = sorted([*(known[r] for r in step.rounds if r in known), *answered], key=_round)
            calls.extend(done)
            if len(answered) < len(fresh):
                return calls
            outcomes.extend(outcome_of(c) for c in done)
        return calls

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
        self, judge: RuntimeJudge, role: Role, round_index: int, order: Order
    ) -> JudgeCall:
        """One judge call within the deadline, stored as soon as it completes."""
        texts = self.texts
        first, second = (
            (texts.response_a, texts.response_b)
            if order == "AB"
            else (texts.response_b, texts.response_a)
        )

        client = self.client_of(judge)

        async def invoke() -> PairCallResult:
            return await client.judge_pair(
                texts.prompt,
                first,
                second,
                criteria=texts.criteria,
                reference=texts.reference,
                deadline=self.slots.deadline,
                rng=self._rng(judge, round_index),
            )

        result = await self.slots.run(invoke, PairCallResult, "comparison")
        return await self.persist(judge, role, round_index, order, result)


def _own_client(judge: RuntimeJudge) -> JudgeClient:
    return judge.client


def _round(call: JudgeCall) -> int:
    return call.round


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
