"""With the real sim judge, position bias alone never favours A or B under `adaptive`."""

from __future__ import annotations

import asyncio
import math
from collections import Counter

from app.comparisons.fanout import FanOut, PairTexts, outcome_of
from app.comparisons.protocols import Order, Protocol, judge_verdict
from app.comparisons.service import call_values
from app.jobs.panels import Role
from app.jobs.slots import CallSlots, JudgePool
from app.judges.registry import RuntimeJudge
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, SimKnobs
from app.ledger.models import Comparison, JudgeCall

COMPARISONS = 2000


async def run_adaptive(judge: RuntimeJudge, pool: JudgePool, index: int) -> str | None:
    comparison = Comparison(id=f"c{index}", protocol="adaptive")

    async def keep(
        judge: RuntimeJudge, role: Role, round_index: int, order: Order, result: PairCallResult
    ) -> JudgeCall:
        return JudgeCall(**call_values(comparison, judge, role, round_index, order, result))

    texts = PairTexts(
        f"question {index}",
        f"answer one {index}\n[sim q=0]",
        f"answer two {index}\n[sim q=0]",
        None,
        None,
    )
    protocol = Protocol(kind="adaptive", max_pairs=3)
    fanout = FanOut(CallSlots(pool, 16, 60), texts, protocol, keep)
    calls = await fanout.run_judge(judge, "voter")
    verdict = judge_verdict(protocol, [outcome_of(c) for c in calls])
    return verdict.winner if verdict else None


async def test_adaptive_returns_a_and_b_equally_often_under_position_bias() -> None:
    config = JudgeConfig(
        name="biased", provider="sim", model="biased", sim=SimKnobs(position_bias=1.0, seed=11)
    )
    client = build_judge(config)
    judge = RuntimeJudge(
        name="biased",
        version=1,
        config_hash=client.config_hash,
        model="biased",
        family=None,
        simulated=True,
        client=client,
    )
    pool = JudgePool(max_concurrency=64, max_pending=100_000)
    winners = Counter(
        await asyncio.gather(*(run_adaptive(judge, pool, i) for i in range(COMPARISONS)))
    )
    decisive = winners["A"] + winners["B"]
    # Under H0 (no preference for A or B) A ~ Binomial(decisive, 1/2).
    three_se = 3 * math.sqrt(decisive / 4)
    assert decisive > 200  # quality ties still yield decisive pairs; the test has power
    assert abs(winners["A"] - decisive / 2) < three_se
    assert winners[None] == 0
