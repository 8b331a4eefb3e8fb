"""An independent reading of STATISTICS.md over the raw stored rows, with scipy/statsmodels/sklearn.

It loops over the rows a test generated (never over the database), so that the report's SQL and
its Python finishing are checked against a second, plain implementation of the definitions.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import numpy as np
from scipy import stats as sps
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import proportion_confint

from app.comparisons.protocols import Pick, ProtocolKind
from tests.reports.builders import BASE_TIME, StoredData

PRIMACY = {("first", "first"), ("first", "tie"), ("tie", "first")}
RECENCY = {("second", "second"), ("second", "tie"), ("tie", "second")}
FAMILIES = ("openai", "anthropic", "google", None)
# (family, participation, P(first), P(second), P(tie), P(failed)) per judge.
JUDGES: dict[str, tuple[str | None, float, tuple[float, float, float, float]]] = {
    "j-open": ("openai", 0.9, (0.55, 0.30, 0.10, 0.05)),
    "j-anth": ("anthropic", 0.8, (0.42, 0.42, 0.12, 0.04)),
    "j-none": (None, 0.25, (0.35, 0.50, 0.15, 0.0)),
}


def wilson(k: int, n: int) -> tuple[float, float]:
    """statsmodels' Wilson interval."""
    low, high = proportion_confint(k, n, method="wilson")
    return float(low), float(high)


def holm(ps: list[float]) -> list[float]:
    """statsmodels' Holm adjustment."""
    return [float(p) for p in multipletests(ps, method="holm")[1]]


def generate(data: StoredData, comparisons: int = 400, seed: int = 7) -> None:
    """Random traffic of three judges: protocols, failures, ties, labels, families, tags,
    versions."""
    rng = random.Random(seed)
    for i in range(comparisons):
        protocol: ProtocolKind = rng.choice(("swap", "swap", "adaptive", "single"))
        placebo = rng.random() < 0.1
        len_a = rng.randint(20, 2000)
        comparison_id = data.comparison(
            len_a=len_a,
            len_b=len_a if placebo else rng.randint(20, 2000),
            placebo=placebo,
            protocol=protocol,
            family_a=rng.choice(FAMILIES),
            family_b=rng.choice(FAMILIES),
            tags={"team": rng.choice("ab"), "env": rng.choice(("prod", "dev"))},
            status="running" if rng.random() < 0.03 else "complete",
            at=BASE_TIME + timedelta(minutes=7 * i),
        )
        for judge, (family, share, weights) in JUDGES.items():
            if rng.random() < share:
                _judge_calls(data, rng, comparison_id, protocol, judge, family, weights, i)


def _judge_calls(
    data: StoredData,
    rng: random.Random,
    comparison_id: str,
    protocol: str,
    judge: str,
    family: str | None,
    weights: tuple[float, ...],
    i: int,
) -> None:
    rounds = [0] if protocol == "single" else [0, 1]
    if protocol == "adaptive" and rng.random() < 0.3:
        rounds += [2, 3]
    for round_index in rounds:
        pick: Pick | None = rng.choices(("first", "second", "tie", None), weights)[0]
        data.call(
            comparison_id,
            judge=judge,
            round_index=round_index,
            order=rng.choice(("AB", "BA")) if protocol == "single" else None,
            pick=pick,
            label_pair=rng.choice(("P/Q", "X/Y", "K/M")),
            first_slot_second_label=rng.random() < 0.5,
            version=1 if i < 200 or judge != "j-open" else 2,
            family=family,
            error_kind=rng.choice(("timeout", "unparseable")) if pick is None else None,
            at=BASE_TIME + timedelta(minutes=7 * i, seconds=round_index),
        )


@dataclass
class Oracle:
    """The spec's figures computed row by row from the generated data."""

    data: StoredData

    def __post_init__(self) -> None:
        self.comparisons = {c["id"]: c for c in self.data.comparisons if c["status"] != "running"}
        self.rows = [c for c in self.data.calls if c["comparison_id"] in self.comparisons]

    def calls(self, judge: str, placebo: bool = False) -> list[dict[str, Any]]:
        """The judge's calls on (non-)placebo comparisons."""
        return [
            c
            for c in self.rows
            if c["judge_name"] == judge
            and self.comparisons[c["comparison_id"]]["placebo"] == placebo
        ]

    def design(self, judge: str, placebo: bool = False) -> list[dict[str, Any]]:
        """Parsed design calls."""
        return [c for c in self.calls(judge, placebo) if c["design"] and c["pick"]]

    def decisive(self, judge: str, placebo: bool = False) -> list[dict[str, Any]]:
        """Decisive design calls."""
        return [c for c in self.design(judge, placebo) if c["pick"] != "tie"]

    def pairs(self, judge: str) -> list[tuple[str, str]]:
        """(AB pick, BA pick) of each swap pair."""
        by_comparison: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
        for c in self.design(judge):
            by_comparison[c["comparison_id"]][c["round"]] = c
        return [
            (r[0]["pick"], r[1]["pick"])
            for r in by_comparison.values()
            if 0 in r and 1 in r and r[0]["display_order"] == "AB" and r[1]["display_order"] == "BA"
        ]

    def position(self, judge: str) -> dict[str, Any]:
        """first_pick_rate, ci95, z, p_value, tie_rate."""
        decisive, design = self.decisive(judge), self.design(judge)
        n, k = len(decisive), sum(c["pick"] == "first" for c in decisive)
        pairs = self.pairs(judge)
        primacy = sum(p in PRIMACY for p in pairs)
        recency = sum(p in RECENCY for p in pairs)
        if len(pairs) >= 20:
            p = mcnemar([[0, primacy], [recency, 0]], exact=True).pvalue
        else:
            p = sps.binomtest(k, n).pvalue
        return {
            "n": n,
            "first_pick_rate": k / n,
            "ci95": wilson(k, n),
            "z": (k - n / 2) / np.sqrt(n / 4),
            "p_value": float(p),
            "tie_rate": sum(c["pick"] == "tie" for c in design) / len(design),
        }

    def consistency(self, judge: str) -> dict[str, Any]:
        """PC, counts, PF and κ."""
        pairs = self.pairs(judge)
        n = len(pairs)
        primacy = sum(p in PRIMACY for p in pairs)
        recency = sum(p in RECENCY for p in pairs)
        ab = [{"first": "A", "second": "B", "tie": "tie"}[p1] for p1, _ in pairs]
        ba = [{"first": "B", "second": "A", "tie": "tie"}[p2] for _, p2 in pairs]
        consistent = n - primacy - recency
        return {
            "pairs": n,
            "position_consistency": consistent / n,
            "ci95": wilson(consistent, n),
            "primacy_pairs": primacy,
            "recency_pairs": recency,
            "preference_fairness": (recency - primacy) / n,
            "order_kappa": float(cohen_kappa_score(ab, ba, labels=["A", "B", "tie"])),
        }

    def label(self, judge: str, placebo: bool = False) -> dict[str, tuple[int, int]]:
        """Per label pair: (second-label picks, decisive calls)."""
        counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for c in self.decisive(judge, placebo):
            second = (c["pick"] == "first") == c["first_slot_second_label"]
            counts[c["label_pair"]][0] += second
            counts[c["label_pair"]][1] += 1
        return {pair: (k, n) for pair, (k, n) in counts.items()}

    def label_p(self, judge: str) -> float:
        """The χ² omnibus over label pairs."""
        zs = [(k - n / 2) / np.sqrt(n / 4) for k, n in self.label(judge).values()]
        return float(sps.chi2.sf(sum(z * z for z in zs), len(zs)))

    def length(self, judge: str) -> dict[str, Any]:
        """Longer-win counts and Spearman over comparisons."""
        outcomes: dict[str, list[int]] = defaultdict(list)
        for c in self.design(judge):
            outcomes[c["comparison_id"]].append({"A": 1, "B": -1, "tie": 0}[c["mapped_winner"]])
        deltas, ys, eligible, longer = [], [], 0, 0
        for comparison_id, values in outcomes.items():
            comparison = self.comparisons[comparison_id]
            delta, y = comparison["len_a"] - comparison["len_b"], float(np.mean(values))
            deltas.append(delta)
            ys.append(y)
            if y != 0 and abs(delta) >= max(
                30, 0.1 * min(comparison["len_a"], comparison["len_b"])
            ):
                eligible += 1
                longer += np.sign(y) == np.sign(delta)
        rho = sps.spearmanr(deltas, ys)
        return {
            "n": len(outcomes),
            "longer_win_n": eligible,
            "longer": longer,
            "spearman": float(rho.statistic),
            "spearman_p": float(rho.pvalue),
        }

    def self_preference(self, judge: str, family: str) -> list[float]:
        """s_c − o_c over the comparisons where the judge was conflicted and others were not."""
        decisive: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for c in self.rows:
            if c["design"] and c["pick"] in ("first", "second"):
                decisive[c["comparison_id"]].append(c)
        excess = []
        for comparison_id, comparison in self.comparisons.items():
            families = (comparison["family_a"], comparison["family_b"])
            if comparison["placebo"] or families.count(family) != 1:
                continue
            own = "A" if families[0] == family else "B"
            calls = decisive[comparison_id]
            mine = [c["mapped_winner"] == own for c in calls if c["judge_name"] == judge]
            others = [
                c["mapped_winner"] == own
                for c in calls
                if c["judge_family"] is None or c["judge_family"] not in families
            ]
            if mine and others:
                excess.append(float(np.mean(mine) - np.mean(others)))
        return excess
