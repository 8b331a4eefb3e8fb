"""Protocols, cost against accuracy (issue 12: 3): the sim judge, then LLMBar's recorded verdicts.

    .venv/bin/python bench/bench_protocols.py [--comparisons 2000] [--seed 7]

Sim: each comparison draws latent qualities q_A, q_B ~ N(0, 1) (the `[sim q=..]` lines), so the
truth is the sign of q_A - q_B; the sim answers with logistic noise (beta 1.5) plus a position bias
of 0, 0.5 or 1.0 (logit toward the first-shown slot). Every protocol runs in process through the
service's own path (`build_judge` with a sim config, `FanOut`, `judge_verdict`) on the same
comparisons with seeded draws. Per protocol and bias: accuracy (verdict = truth; a tie scores
1/2: a coin would break it), accuracy among decisive verdicts, the tie rate, PC (the first pair's
two calls agree) and judge calls per comparison.

LLMBar (`/work/shared/data/replay/llmbar`, or FAIRPAIR_LLMBAR): 419 gold-labelled pairs, each
judged by six LLMs under four prompting strategies in both orders. `single` shows one order drawn
uniformly, so its expected accuracy is the mean over the two orders (the paper's Acc.); `swap`
takes the winner when both orders agree and a tie otherwise. Computed from the recorded verdicts
directly (a replay cannot show what further pairs would add); an unparsed verdict counts as wrong
and leaves swap without a decisive verdict. The script first checks its figures against the
published per-run Acc., positional agreement and both-right.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from app.comparisons.fanout import FanOut, PairTexts, outcome_of
from app.comparisons.models import Comparison, JudgeCall
from app.comparisons.panels import Role
from app.comparisons.pool import JudgePool
from app.comparisons.protocols import Order, Protocol, judge_verdict
from app.comparisons.service import call_row
from app.judges.registry import RuntimeJudge
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, PairCallResult, SimKnobs

LLMBAR = Path(os.environ.get("FAIRPAIR_LLMBAR", "/work/shared/data/replay/llmbar"))
PROTOCOLS = {
    "single": Protocol(kind="single"),
    "swap": Protocol(kind="swap"),
    "shuffle (2 pairs)": Protocol(kind="shuffle", pairs=2),
    "shuffle (3 pairs)": Protocol(kind="shuffle", pairs=3),
    "adaptive (max 3)": Protocol(kind="adaptive", max_pairs=3),
}
BIASES = (0.0, 0.5, 1.0)


@dataclass
class Tally:
    """Counts over comparisons of one (protocol, bias) cell."""

    n: int = 0
    correct: int = 0
    ties: int = 0
    calls: int = 0
    pairs: int = 0
    consistent_pairs: int = 0

    def row(self) -> tuple[float, float, float, str, float]:
        decisive = self.n - self.ties
        pc = f"{self.consistent_pairs / self.pairs:.3f}" if self.pairs else "n/a"
        return (
            (self.correct + self.ties / 2) / self.n,
            self.correct / decisive if decisive else 0.0,
            self.ties / self.n,
            pc,
            self.calls / self.n,
        )


def sim_judge(position_bias: float, seed: int, beta: float) -> RuntimeJudge:
    config = JudgeConfig(
        name="sim",
        provider="sim",
        model="sim",
        sim=SimKnobs(position_bias=position_bias, beta=beta, seed=seed),
        max_concurrency=256,
    )
    client = build_judge(config)
    return RuntimeJudge(
        name="sim",
        version=1,
        config_hash=client.config_hash,
        model="sim",
        family=None,
        simulated=True,
        client=client,
    )


async def one_comparison(
    judge: RuntimeJudge,
    pool: JudgePool,
    protocol: Protocol,
    index: int,
    q: tuple[float, float],
    seed: int,
) -> tuple[str | None, list[JudgeCall]]:
    comparison = Comparison(id=f"c{index}", protocol=protocol.kind)

    async def keep(
        judge: RuntimeJudge, role: Role, round_index: int, order: Order, result: PairCallResult
    ) -> JudgeCall:
        return call_row(comparison, judge, role, round_index, order, result)

    texts = PairTexts(
        f"Question {index}: which answer is better?",
        f"The first answer to question {index}.\n[sim q={q[0]:.4f}]",
        f"The second answer to question {index}.\n[sim q={q[1]:.4f}]",
        None,
        None,
    )
    fanout = FanOut(
        pool, 16, texts, protocol, time.monotonic() + 600, keep, draw_seed=f"{seed}:{index}"
    )
    calls = await fanout.run_judge(judge, "voter")
    verdict = judge_verdict(protocol, [outcome_of(c) for c in calls])
    return (verdict.winner if verdict else None), calls


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
            tallies[name, bias] = tally(results, qualities)
        await judge.client.aclose()
    return tallies


def tally(
    results: list[tuple[str | None, list[JudgeCall]]], qualities: list[tuple[float, float]]
) -> Tally:
    t = Tally()
    for (winner, calls), (qa, qb) in zip(results, qualities, strict=True):
        t.n += 1
        t.calls += len(calls)
        t.ties += winner in ("tie", None)
        t.correct += winner == ("A" if qa > qb else "B")
        first_pair = [c for c in calls if c.round in (0, 1)]
        if len(first_pair) == 2 and all(c.mapped_winner for c in first_pair):
            t.pairs += 1
            t.consistent_pairs += first_pair[0].mapped_winner == first_pair[1].mapped_winner
    return t


def print_sim(tallies: dict[tuple[str, float], Tally], comparisons: int, beta: float) -> None:
    print(f"## sim judge: {comparisons} comparisons per cell, q ~ N(0, 1), beta {beta:g}")
    print(
        "| position bias | protocol | accuracy (tie = 1/2) | accuracy when decisive | tie rate "
        "| PC (first pair) | calls / comparison |"
    )
    print("|---|---|---|---|---|---|---|")
    for bias in BIASES:
        for name in PROTOCOLS:
            acc, acc_d, ties, pc, calls = tallies[name, bias].row()
            print(
                f"| {bias:g} | {name} | {acc:.3f} | {acc_d:.3f} | {ties:.3f} | {pc} | {calls:.2f} |"
            )


# ---- LLMBar ------------------------------------------------------------------------------------


def load_llmbar() -> tuple[dict[str, dict[str, str]], list[dict[str, str | None]]]:
    items = {}
    for line in (LLMBAR / "items.jsonl").read_text().splitlines():
        item = json.loads(line)
        items[item["id"]] = {"gold": str(item["label"]), "subset": item["subset"]}
    verdicts = [json.loads(line) for line in (LLMBAR / "verdicts.jsonl").read_text().splitlines()]
    return items, verdicts


def published_percent(value: str) -> float:
    """'79 / 100 = 79.0%' or '79.0%' as a share."""
    return float(value.rpartition("=")[2].strip().rstrip("%")) / 100


def check_against_published(
    items: dict[str, dict[str, str]], verdicts: list[dict[str, str | None]]
) -> int:
    """Acc., positional agreement and both-right per (subset, judge, strategy) as published."""
    runs: dict[str, list[dict[str, str | None]]] = defaultdict(list)
    for v in verdicts:
        runs[f"{items[str(v['id'])]['subset']}/{v['judge']}/{v['strategy']}"].append(v)
    published = json.loads((LLMBAR / "published_statistics.json").read_text())
    for key, rows in runs.items():
        figures, want = llmbar_figures(rows, items), published[key]
        for ours, theirs in (
            ("single_acc", "correct_average"),
            ("pc", "equal"),
            ("swap_acc", "correct_both"),
        ):
            assert abs(figures[ours] - published_percent(want[theirs])) < 0.0006, (key, ours)
    return len(runs)


def llmbar_figures(
    rows: list[dict[str, str | None]], items: dict[str, dict[str, str]]
) -> dict[str, float]:
    """single: one order drawn uniformly; swap: the winner when both orders agree, else a tie."""
    n = len(rows)
    right = agree = decisive = swap_right = 0
    for v in rows:
        gold = items[str(v["id"])]["gold"]
        one, two = v["winner_output_1_first"], v["winner_output_2_first"]
        right += (one == gold) + (two == gold)
        agree += one == two  # the paper's positional agreement: two unparsed answers agree too
        decisive += one is not None and one == two
        swap_right += one == two == gold
    return {
        "n": n,
        "single_acc": right / (2 * n),
        "pc": agree / n,
        "swap_acc": swap_right / n,
        "swap_half": (swap_right + (n - decisive) / 2) / n,
        "swap_acc_decisive": swap_right / decisive if decisive else 0.0,
        "swap_ties": (n - decisive) / n,
    }


def print_llmbar() -> None:
    items, verdicts = load_llmbar()
    checked = check_against_published(items, verdicts)
    print(
        f"## LLMBar recorded verdicts, per judge over its 4 strategies x 419 items (Acc., "
        f"positional agreement and both-right equal the {checked} published runs)"
    )
    print(
        "| judge | PC | single: accuracy (1 call) | swap: accuracy (tie = 1/2, 2 calls) "
        "| swap: accuracy when decisive | swap: tie rate |"
    )
    print("|---|---|---|---|---|---|")
    by_judge: dict[str, list[dict[str, str | None]]] = defaultdict(list)
    for v in verdicts:
        by_judge[str(v["judge"])].append(v)
    for judge, rows in [*sorted(by_judge.items()), ("all", verdicts)]:
        f = llmbar_figures(rows, items)
        print(
            f"| {judge} | {f['pc']:.3f} | {f['single_acc']:.3f} | {f['swap_half']:.3f} "
            f"| {f['swap_acc_decisive']:.3f} | {f['swap_ties']:.3f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--comparisons", type=int, default=2000)
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
