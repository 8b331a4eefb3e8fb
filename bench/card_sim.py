"""The judge card's marks by seeded simulation (issue 42): how often a fair judge's card marks a
family `fail` or `watch` by chance (the false-fail rate, per family and per card), and how often a
biased judge's card fails the family its bias belongs to (the power).

Each run draws a battery with the service's own probes (`app.cards.probes.battery`, card seed =
the run) and answers every probe's two design calls (both display orders, labels drawn from the
sim's pool) with the simulated judge's own decision function (`app.judging.simulation`, the one
the `sim` provider and `fairpair sim-judge` answer with), then marks the card with the service's
own statistics (`app.cards.stats.figures`). No HTTP or database: the end-to-end path is the card
tests' (tests/cards/test_card_api.py); this measures the decision rule, every draw seeded.

Judges: `fair` (no bias; the texts' qualities as the probes state them), `fair-items` (no bias on
average, but each probe item's two texts get their own quality difference ~ N(0, 1) for the run,
so the judge's two calls on an item agree more often than chance, as a real judge's do), and
biased ones: `length_bias` (logit offset times tanh(length difference / 500)), `injection` (the
share of instructed pairs where the sim obeys the instruction), `position` (logit offset toward
the first-shown slot).

Run: PYTHONPATH=$PWD .venv/bin/python bench/card_sim.py --runs 2000 --seed 0
"""

from __future__ import annotations

import argparse
import math
import random
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from app import stats as base_stats
from app.cards import probes, stats
from app.comparisons.protocols import Pick, mapped_winner, order_of_round
from app.judging.blocks import ResponseBlock
from app.judging.simulation import _decide_pair
from app.judging.types import DEFAULT_LABEL_POOL, SimKnobs

FAMILIES = ("padding", "injection", "junk", "placebo")


@dataclass(frozen=True)
class Judge:
    """A simulated judge of the bench: its knobs, an item spread, and the family it should fail."""

    name: str
    knobs: SimKnobs
    item_spread: float = 0.0
    biased_family: str | None = None


JUDGES: tuple[Judge, ...] = (
    Judge("fair", SimKnobs()),
    Judge("fair-items", SimKnobs(), item_spread=1.0),
    Judge("length_bias=1", SimKnobs(length_bias=1.0), biased_family="padding"),
    Judge("length_bias=2", SimKnobs(length_bias=2.0), biased_family="padding"),
    Judge("length_bias=4", SimKnobs(length_bias=4.0), biased_family="padding"),
    Judge("injection=0.2", SimKnobs(injection_following=0.2), biased_family="injection"),
    Judge("injection=0.4", SimKnobs(injection_following=0.4), biased_family="injection"),
    Judge("injection=0.8", SimKnobs(injection_following=0.8), biased_family="injection"),
    Judge("position=0.5", SimKnobs(position_bias=0.5), biased_family="placebo"),
    Judge("position=1", SimKnobs(position_bias=1.0), biased_family="placebo"),
)


def _requalified(text: str, quality: float) -> str:
    """The probe text with its `[sim q=...]` line restated at `quality`."""
    body, _, _ = text.rpartition("\n[sim q=")
    return f"{body}\n[sim q={quality:+.3f}]"


def _item_texts(probe: probes.Probe, spread: float, rng: random.Random) -> tuple[str, str]:
    """The probe's two texts; with a spread, the qualities moved apart by ~ N(0, spread)."""
    if spread <= 0 or probe.family == "placebo":
        return probe.response_a, probe.response_b
    shift = rng.gauss(0.0, spread) / 2
    qa = float(probe.response_a.rpartition("[sim q=")[2].rstrip("]"))
    qb = float(probe.response_b.rpartition("[sim q=")[2].rstrip("]"))
    return _requalified(probe.response_a, qa + shift), _requalified(probe.response_b, qb - shift)


def card_calls(judge: Judge, run: int, per_family: int) -> list[stats.ProbeCall]:
    """One simulated battery run of the judge: its probes' design calls."""
    rng = random.Random(f"card-sim:{judge.name}:{run}")
    knobs = replace(judge.knobs, seed=run)
    calls: list[stats.ProbeCall] = []
    for probe in probes.battery(run, per_family, simulated=True):
        text_a, text_b = _item_texts(probe, judge.item_spread, rng)
        for round_index in (0, 1):
            order = order_of_round(round_index)
            pair = DEFAULT_LABEL_POOL[rng.randrange(len(DEFAULT_LABEL_POOL))]
            first_label, second_label = pair if rng.random() < 0.5 else pair[::-1]
            first_text, second_text = (text_a, text_b) if order == "AB" else (text_b, text_a)
            first = ResponseBlock(first_label, "", first_text, 0, 0)
            second = ResponseBlock(second_label, "", second_text, 0, 0)
            winner, _ = _decide_pair(knobs, first, second, rng, DEFAULT_LABEL_POOL, None)
            pick: Pick = (
                "tie" if winner == "tie" else ("first" if winner == first_label else "second")
            )
            mapped = mapped_winner(pick, order)
            calls.append(
                stats.ProbeCall(probe.item, probe.family, round_index, probe.wrong, mapped, pick)
            )
    return calls


@dataclass
class Tally:
    """Marks of one judge over the runs: per family and per card."""

    runs: int = 0
    fail: dict[str, int] | None = None
    flagged: dict[str, int] | None = None  # fail or watch
    card_fail: int = 0
    card_flagged: int = 0

    def add(self, figures: Iterable[stats.Figure]) -> None:
        fail = self.fail if self.fail is not None else dict.fromkeys(FAMILIES, 0)
        flagged = self.flagged if self.flagged is not None else dict.fromkeys(FAMILIES, 0)
        marks = {f.family: f.mark for f in figures}
        for family, mark in marks.items():
            fail[family] += mark == "fail"
            flagged[family] += mark in ("fail", "watch")
        self.fail, self.flagged = fail, flagged
        self.runs += 1
        self.card_fail += any(m == "fail" for m in marks.values())
        self.card_flagged += any(m in ("fail", "watch") for m in marks.values())


def tally(judge: Judge, runs: int, per_family: int, first_run: int = 0) -> Tally:
    """Mark `runs` seeded cards of the judge."""
    result = Tally()
    for run in range(first_run, first_run + runs):
        result.add(stats.figures(card_calls(judge, run, per_family)))
    return result


def binomial_ci(k: int, n: int) -> str:
    ci = base_stats.wilson_ci(k, n)
    assert ci is not None
    return f"{k / n:.3f} ({ci[0]:.3f}–{ci[1]:.3f})"


def table(results: Sequence[tuple[Judge, Tally]]) -> str:
    lines = [
        "| judge | family fail rate (padding / injection / junk / placebo) | card: any fail "
        "(95% CI) | card: any fail or watch (95% CI) | power: its family fails (95% CI) |",
        "|---|---|---|---|---|",
    ]
    for judge, t in results:
        assert t.fail is not None
        per_family = " / ".join(f"{t.fail[f] / t.runs:.3f}" for f in FAMILIES)
        power = binomial_ci(t.fail[judge.biased_family], t.runs) if judge.biased_family else "–"
        lines.append(
            f"| {judge.name} | {per_family} | {binomial_ci(t.card_fail, t.runs)} | "
            f"{binomial_ci(t.card_flagged, t.runs)} | {power} |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--per-family", type=int, default=24, help="the card's default")
    parser.add_argument("--seed", type=int, default=0, help="the first run's card and sim seed")
    args = parser.parse_args()
    started = time.process_time()
    results = [(j, tally(j, args.runs, args.per_family, args.seed)) for j in JUDGES]
    print(table(results))
    cpu = time.process_time() - started
    print(f"\n{args.runs} cards per judge, {args.per_family} probes per family; {cpu:.1f} s CPU")
    fair = results[0][1]
    bound = math.sqrt(fair.card_fail / fair.runs * (1 - fair.card_fail / fair.runs) / fair.runs)
    print(f"fair judge: any-fail {fair.card_fail / fair.runs:.4f} ± {1.96 * bound:.4f}")


if __name__ == "__main__":
    main()
