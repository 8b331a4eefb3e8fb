"""The call that ends a comparison is marked `last` (the kernel stores it with the verdict):
never one after which another call is made, and exactly one when a judge runs alone."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from app.comparisons.fanout import FanOut, PairTexts
from app.comparisons.models import Comparison, JudgeCall
from app.comparisons.protocols import Order, Protocol
from app.comparisons.service import call_values
from app.jobs.panels import Role
from app.jobs.slots import CallSlots, JudgePool
from app.judges.registry import RuntimeJudge
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, SimKnobs

PROTOCOLS = [
    Protocol(kind="single"),
    Protocol(kind="swap"),
    Protocol(kind="shuffle", pairs=3),
    Protocol(kind="adaptive", max_pairs=3),
]


@dataclass(frozen=True)
class Persisted:
    judge: str
    round: int
    last: bool


def sim_judge(name: str, seed: int) -> RuntimeJudge:
    knobs = SimKnobs(position_bias=1.5, seed=seed)  # disagreeing pairs: adaptive escalates
    client = build_judge(JudgeConfig(name=name, provider="sim", model=name, sim=knobs))
    return RuntimeJudge(
        name=name,
        version=1,
        config_hash=client.config_hash,
        model=name,
        family=None,
        simulated=True,
        client=client,
    )


async def persisted_calls(
    protocol: Protocol, judges: list[RuntimeJudge], i: int
) -> list[Persisted]:
    comparison = Comparison(id=f"c{i}", protocol=protocol.kind)
    seen: list[Persisted] = []

    async def keep(
        judge: RuntimeJudge,
        role: Role,
        round_index: int,
        order: Order,
        result: PairCallResult,
        last: bool,
    ) -> JudgeCall:
        seen.append(Persisted(judge.name, round_index, last))
        return JudgeCall(**call_values(comparison, judge, role, round_index, order, result))

    texts = PairTexts(f"q{i}", f"one {i}\n[sim q=0]", f"two {i}\n[sim q=0.2]", None, None)
    pool = JudgePool(max_concurrency=16, max_pending=1000)
    fanout = FanOut(CallSlots(pool, 16, 60), texts, protocol, keep)
    await fanout.run([(judge, "voter") for judge in judges])
    return seen


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.kind)
async def test_a_judge_alone_marks_exactly_its_final_call_last(protocol: Protocol) -> None:
    rounds = set()
    for i in range(40):
        seen = await persisted_calls(protocol, [sim_judge("solo", seed=i)], i)
        assert [call.last for call in seen] == [False] * (len(seen) - 1) + [True]
        rounds.add(len(seen))
    if protocol.kind == "adaptive":
        assert len(rounds) > 1  # some comparisons escalated: the mark followed the protocol


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=lambda p: p.kind)
async def test_a_panel_never_marks_a_call_after_which_another_is_made(protocol: Protocol) -> None:
    for i in range(40):
        judges = [sim_judge("left", seed=i), sim_judge("right", seed=1000 + i)]
        seen = await persisted_calls(protocol, judges, i)
        marked = [index for index, call in enumerate(seen) if call.last]
        assert marked in ([], [len(seen) - 1])
