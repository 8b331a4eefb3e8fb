"""Protocols, cost against accuracy (issue 12: 3): the sim judge, then LLMBar's recorded verdicts.

    .venv/bin/python bench/bench_protocols.py [--comparisons 2000] [--seed 7]

Sim: each comparison draws latent qualities q_A, q_B ~ N(0, 1) (the `[sim q=..]` lines), so the
truth is the sign of q_A - q_B; the sim answers with logistic noise (beta 1.5) plus a position bias
of 0, 0.5 or 1.0 (a logit offset toward the first-shown slot). Every protocol runs in process
through the service's own path (`build_judge` with a sim config, `FanOut.run_judge`, `call_row`,
`judge_verdict`), with every draw seeded: the qualities, the sim's answers, and the labels, nonces
and `single`'s display order (the slots' `draw_seed`). All protocols see the same comparisons and
the same draws: round r of a comparison is the same call under every protocol, so their
differences are not sampling noise between protocols. Before printing, the script checks its
`single` accuracy, `swap` accuracy and PC against the values JUDGING.md's formula implies for the
same qualities.

LLMBar (the repository's `tests/data/replay/llmbar/`, or `llmbar/` under `FAIRPAIR_REPLAY_DATA`):
419 gold-labelled pairs, each judged by six LLMs under four prompting strategies in both orders. The
recorded verdicts become `CallOutcome`s (A = output_1; round 0 shows output_1 first) and go through
the service's `judge_verdict`. `single` shows one order drawn uniformly, so its expected accuracy is
the mean over the two orders (the paper's Acc.). A replay is deterministic, so further pairs would
repeat the first: only `single` and `swap` are compared. The script first checks, per published run
(subset, judge, strategy), its counts of right answers per order, both right and equal verdicts
against `published_statistics.json`.

Figures, both parts: accuracy = (right + tie / 2) / comparisons (a tie is worth a coin flip, and
`single` never ties); a comparison without a result (an unparsed verdict: LLMBar only) counts as
wrong, as in the paper's Acc. Decisive accuracy = right / (right + wrong); wrong = share of all
comparisons with a decisive wrong verdict; PC = consistent / swap pairs with both calls parsed
(STATISTICS.md), from each comparison's first pair.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import math
import os
import random
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.comparisons.fanout import FanOut, PairTexts, outcome_of
from app.comparisons.protocols import CallOutcome, Order, Protocol, Winner, judge_verdict
from app.comparisons.service import call_values
from app.jobs.panels import Role
from app.jobs.slots import CallSlots, JudgePool
from app.judges.registry import RuntimeJudge
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, SimKnobs
from app.ledger.models import Comparison, JudgeCall

REPO = Path(__file__).resolve().parent.parent
# The copy the replay tests read (tests/data/replay/README.md), each data file gzipped.
IN_REPO_DATA = REPO / "tests/data/replay"
PROTOCOLS = {
    "single": Protocol(kind="single"),
    "swap": Protocol(kind="swap"),
    "shuffle (2 pairs)": Protocol(kind="shuffle", pairs=2),
    "shuffle (3 pairs)": Protocol(kind="shuffle", pairs=3),
    "adaptive (max 3)": Protocol(kind="adaptive", max_pairs=3),
}
BIASES = (0.0, 0.5, 1.0)
OUTPUT_AS_WINNER: dict[str | None, Winner | None] = {"1": "A", "2": "B", None: None}


@dataclass
class Tally:
    """Verdicts and calls over the comparisons of one table row."""

    n: float = 0
    right: float = 0
    wrong: float = 0
    ties: float = 0
    no_result: float = 0
    calls: int = 0
    failed_calls: int = 0
    pairs: int = 0
    consistent_pairs: int = 0

    def add(self, winner: str | None, truth: str, weight: float = 1.0) -> None:
        """One verdict (`weight` < 1: one of several equally likely verdicts)."""
        self.n += weight
        if winner is None:
            self.no_result += weight
        elif winner == "tie":
            self.ties += weight
        elif winner == truth:
            self.right += weight
        else:
            self.wrong += weight

    def add_pair(self, first: Winner | None, second: Winner | None) -> None:
        """The first swap pair's two mapped winners (None: failed), for PC."""
        if first is not None and second is not None:
            self.pairs += 1
            self.consistent_pairs += first == second

    @property
    def accuracy(self) -> float:
        return (self.right + self.ties / 2) / self.n

    @property
    def pc(self) -> float | None:
        return self.consistent_pairs / self.pairs if self.pairs else None

    def cells(self) -> list[str]:
        """Accuracy, decisive accuracy, tie rate, wrong share and PC, formatted."""
        decisive = self.right + self.wrong
        return [
            f"{self.accuracy:.3f}",
            f"{self.right / decisive:.3f}" if decisive else "n/a",
            f"{self.ties / self.n:.3f}",
            f"{self.wrong / self.n:.3f}",
            f"{self.pc:.3f}" if self.pc is not None else "n/a",
        ]


# ---- sim judge ----------------------------------------------------------------------------------


def sim_judge(position_bias: float, seed: int, beta: float) -> RuntimeJudge:
    """The in-process sim provider, built as the registry builds any judge."""
    config = JudgeConfig(
        name="sim",
        provider="sim",
        model="sim",
        sim=SimKnobs(position_bias=position_bias, beta=beta, seed=seed),
        max_concurrency=256,
    )
    client = build_judge(config)
    return RuntimeJudge("sim", 1, client.config_hash, "sim", None, True, client)


async def one_comparison(
    judge: RuntimeJudge,
    pool: JudgePool,
    protocol: Protocol,
    index: int,
    q: tuple[float, float],
    seed: int,
) -> list[JudgeCall]:
    """One comparison's calls, through `FanOut` as `POST /v1/compare` runs them."""
    comparison = Comparison(id=f"c{index}", protocol=protocol.kind)

    async def keep(
        judge: RuntimeJudge, role: Role, round_index: int, order: Order, result: PairCallResult
    ) -> JudgeCall:
        return JudgeCall(**call_values(comparison, judge, role, round_index, order, result))

    # repr keeps every digit, so the sim's q is exactly the q that decides the truth.
    texts = PairTexts(
        f"Question {index}: which answer is better?",
        f"The first answer to question {index}.\n[sim q={q[0]!r}]",
        f"The second answer to question {index}.\n[sim q={q[1]!r}]",
        None,
        None,
    )
    slots = CallSlots(pool, 16, 3600, draw_seed=f"{seed}:{index}")
    fanout = FanOut(slots, texts, protocol, keep)
    return await fanout.run_judge(judge, "voter")


def tally_sim(
    protocol: Protocol, results: list[list[JudgeCall]], qualities: list[tuple[float, float]]
) -> Tally:
    t = Tally()
    for calls, (qa, qb) in zip(results, qualities, strict=True):
        verdict = judge_verdict(protocol, [outcome_of(c) for c in calls])
        t.add(verdict.winner if verdict else None, "A" if qa > qb else "B")
        t.calls += len(calls)
        t.failed_calls += sum(c.mapped_winner is None for c in calls)
        if protocol.kind != "single":
            first = {c.round: outcome_of(c).winner for c in calls if c.round < 2}
            t.add_pair(first[0], first[1])
    return t


async def run_sim(comparisons: int, seed: int, beta: float) -> dict[tuple[str, float], Tally]:
    rng = random.Random(seed)
    qualities = [(rng.gauss(0, 1), rng.gauss(0, 1)) for _ in range(comparisons)]
    tallies: dict[tuple[str, float], Tally] = {}
    pool = JudgePool(max_concurrency=256, max_pending=10**7)
    for bias in BIASES:
        judge = sim_judge(bias, seed, beta)
        for name, protocol in PROTOCOLS.items():
            results = await asyncio.gather(
                *(
                    one_comparison(judge, pool, protocol, i, q, seed)
                    for i, q in enumerate(qualities)
                )
            )
            tallies[name, bias] = tally_sim(protocol, results, qualities)
        await judge.client.aclose()
    check_sim(tallies, qualities, beta)
    return tallies


def sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z)) if z >= 0 else math.exp(z) / (1 + math.exp(z))


def check_sim(
    tallies: dict[tuple[str, float], Tally], qualities: list[tuple[float, float]], beta: float
) -> None:
    """Observed against JUDGING.md's formula for the same qualities, within 4 standard errors.

    Given d = beta (q_A - q_B) and bias b, the AB call names A with p = sigma(d + b) and the BA call
    with r = sigma(d - b). single's expected accuracy is the mean over both orders of the right
    call's probability; swap's (tie = 1/2) is the same, p r + (p (1 - r) + r (1 - p)) / 2; a pair
    is consistent with p r + (1 - p)(1 - r).
    """
    for bias in BIASES:
        right, consistent = [], []
        for qa, qb in qualities:
            p, r = sigmoid(beta * (qa - qb) + bias), sigmoid(beta * (qa - qb) - bias)
            right.append((p + r) / 2 if qa > qb else 1 - (p + r) / 2)
            consistent.append(p * r + (1 - p) * (1 - r))
        expected = {"accuracy": sum(right) / len(right), "pc": sum(consistent) / len(consistent)}
        for name, figure in (("single", "accuracy"), ("swap", "accuracy"), ("swap", "pc")):
            observed = getattr(tallies[name, bias], figure)
            se = math.sqrt(expected[figure] * (1 - expected[figure]) / len(qualities))
            assert abs(observed - expected[figure]) < 4 * se, (name, bias, figure, observed)


def print_sim(tallies: dict[tuple[str, float], Tally], comparisons: int, beta: float) -> None:
    failed = sum(t.failed_calls for t in tallies.values())
    print(
        f"## sim judge: {comparisons} comparisons per row, q ~ N(0, 1), beta {beta:g}, "
        f"{failed} failed calls (single accuracy, swap accuracy and PC match JUDGING.md's formula)"
    )
    print(
        "| position bias | protocol | accuracy (tie = 1/2) | decisive accuracy | tie rate "
        "| wrong | PC | calls / comparison |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for bias in BIASES:
        for name in PROTOCOLS:
            t = tallies[name, bias]
            cells = [f"{bias:g}", name, *t.cells(), f"{t.calls / t.n:.2f}"]
            print(f"| {' | '.join(cells)} |")


# ---- LLMBar -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BarVerdicts:
    """One run's verdicts on one pair: the winner as an output index, per order shown."""

    run: str  # subset/judge/strategy, as published_statistics.json keys it
    judge: str
    gold: str  # "1" or "2"
    output_1_first: str | None
    output_2_first: str | None


def replay_data() -> Path:
    """`FAIRPAIR_REPLAY_DATA` (a folder of the same layout), else the repository's copy."""
    return Path(os.environ.get("FAIRPAIR_REPLAY_DATA", IN_REPO_DATA))


def read_data(path: Path) -> str:
    """The data set `path` names: its gzipped copy (`<path>.gz`, as stored here), else `path`."""
    packed = path.with_name(f"{path.name}.gz")
    if packed.is_file():
        with gzip.open(packed, "rt", encoding="utf-8") as handle:
            return handle.read()
    if not path.is_file():
        sys.exit(
            f"no replay data {path}(.gz): FAIRPAIR_REPLAY_DATA must keep {IN_REPO_DATA}'s layout"
        )
    return path.read_text(encoding="utf-8")


def load_llmbar(llmbar: Path) -> list[BarVerdicts]:
    items = {row["id"]: row for row in _jsonl(llmbar / "items.jsonl")}
    return [
        BarVerdicts(
            run=f"{items[v['id']]['subset']}/{v['judge']}/{v['strategy']}",
            judge=v["judge"],
            gold=str(items[v["id"]]["label"]),
            output_1_first=v["winner_output_1_first"],
            output_2_first=v["winner_output_2_first"],
        )
        for v in _jsonl(llmbar / "verdicts.jsonl")
    ]


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in read_data(path).splitlines() if line]


def published_count(value: str) -> tuple[int, int]:
    """'79 / 100 = 79.0%' as (79, 100)."""
    k, _, rest = value.partition("/")
    return int(k), int(rest.partition("=")[0])


def check_against_published(llmbar: Path, verdicts: list[BarVerdicts]) -> int:
    """Per run, the paper's counts: right per order, both right, equal (unparsed = wrong)."""
    runs: dict[str, list[BarVerdicts]] = defaultdict(list)
    for v in verdicts:
        runs[v.run].append(v)
    published = json.loads(read_data(llmbar / "published_statistics.json"))
    assert set(runs) == set(published), set(runs) ^ set(published)
    for run, rows in runs.items():
        ours = {
            "correct_False": sum(v.output_1_first == v.gold for v in rows),
            "correct_True": sum(v.output_2_first == v.gold for v in rows),
            "correct_both": sum(v.output_1_first == v.output_2_first == v.gold for v in rows),
            # The paper's positional agreement: two unparsed answers are "equal" too.
            "equal": sum(v.output_1_first == v.output_2_first for v in rows),
        }
        for key, count in ours.items():
            assert published_count(published[run][key]) == (count, len(rows)), (run, key)
    return len(runs)


def tally_llmbar(rows: Iterable[BarVerdicts]) -> tuple[Tally, Tally]:
    """`single` (each order with weight 1/2) and `swap`, through the service's `judge_verdict`."""
    single, swap = Tally(), Tally()
    for v in rows:
        truth = OUTPUT_AS_WINNER[v.gold]
        assert truth is not None
        ab = CallOutcome(0, "AB", OUTPUT_AS_WINNER[v.output_1_first])
        ba = CallOutcome(1, "BA", OUTPUT_AS_WINNER[v.output_2_first])
        for call in (ab, CallOutcome(0, "BA", ba.winner)):
            verdict = judge_verdict(PROTOCOLS["single"], [call])
            single.add(verdict.winner if verdict else None, truth, weight=0.5)
        verdict = judge_verdict(PROTOCOLS["swap"], [ab, ba])
        swap.add(verdict.winner if verdict else None, truth)
        swap.add_pair(ab.winner, ba.winner)
    return single, swap


def print_llmbar() -> None:
    llmbar = replay_data() / "llmbar"
    verdicts = load_llmbar(llmbar)
    checked = check_against_published(llmbar, verdicts)
    print(
        f"## LLMBar recorded verdicts, per judge: 4 strategies x 419 pairs (the counts per order, "
        f"both right and equal match all {checked} published runs)"
    )
    print(
        "| judge | PC | single: accuracy | single: wrong | swap: accuracy (tie = 1/2) "
        "| swap: decisive rate | swap: decisive accuracy | swap: wrong | unparsed calls |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    by_judge: dict[str, list[BarVerdicts]] = defaultdict(list)
    for v in verdicts:
        by_judge[v.judge].append(v)
    for judge, rows in [*sorted(by_judge.items()), ("all six", verdicts)]:
        single, swap = tally_llmbar(rows)
        unparsed = sum((v.output_1_first is None) + (v.output_2_first is None) for v in rows)
        accuracy, decisive_accuracy, _, wrong, pc = swap.cells()
        decisive = (swap.right + swap.wrong) / swap.n
        print(
            f"| {judge} | {pc} | {single.accuracy:.3f} | {single.wrong / single.n:.3f} "
            f"| {accuracy} | {decisive:.3f} | {decisive_accuracy} | {wrong} | {unparsed} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.partition("\n")[0])
    parser.add_argument("--comparisons", type=int, default=2000, help="sim comparisons per row")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--beta", type=float, default=1.5, help="the sim's weight of q_A - q_B")
    args = parser.parse_args()
    started = time.perf_counter()
    tallies = asyncio.run(run_sim(args.comparisons, args.seed, args.beta))
    print_sim(tallies, args.comparisons, args.beta)
    print()
    print_llmbar()
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
