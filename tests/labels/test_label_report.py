"""Issue 6: `label_sections` (the report's `human_agreement`, `confidence`, `panel`, `escalate`)
against a plain reading of STATISTICS.md over the generated rows, sklearn and hand computations."""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from app import stats
from app.comparisons.protocols import Pick
from app.db import create_engine, create_sessionmaker
from app.labels import queries
from app.labels.report import label_sections
from app.labels.schemas import LabelSections
from app.ledger.callscope import ReportFilters
from app.schema import upgrade
from tests.labels.builders import BASE_TIME, Rows, Swap
from tests.support.plans import plan_nodes, report_plans

WINDOW = ReportFilters(since=BASE_TIME - timedelta(days=1))
FILTERS = ReportFilters(since=WINDOW.since, tags=(("set", "x"),))
PICKS: list[Pick | None] = ["first", "second", "tie", None]
CONFIDENCE = [None, 0.3, 0.7, 0.9, 0.95, 1.0]


async def sections(url: str, filters: ReportFilters = FILTERS, **kwargs: Any) -> LabelSections:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        result = await label_sections(session, filters, **kwargs)
    await engine.dispose()
    return result


def gold_of(labels: list[str]) -> str | None:
    """The most frequent label, None when two share the most (disputed)."""
    ranked = Counter(labels).most_common()
    return None if len(ranked) > 1 and ranked[0][1] == ranked[1][1] else ranked[0][0]


@dataclass
class Labelled:
    """A generated comparison as the oracle sees it."""

    swaps: tuple[Swap, ...]
    labels: list[tuple[str, bool]]  # (winner, from_queue) per labeler
    panel: str | None = None


@dataclass
class Scenario:
    """Random swap calls of two judges on 80 labelled comparisons, plus rows that must not count."""

    rows: Rows = field(default_factory=Rows)
    labelled: list[Labelled] = field(default_factory=list)

    @classmethod
    def generate(cls, seed: int = 0) -> Scenario:
        rng, scenario = random.Random(seed), cls()
        for i in range(80):
            swaps = tuple(
                Swap(
                    judge,
                    rng.choices(PICKS, [5, 4, 1, 1])[0],
                    rng.choices(PICKS, [4, 5, 1, 1])[0],
                    (rng.choice(CONFIDENCE), rng.choice(CONFIDENCE)),
                    extra=rng.choice(PICKS[:3]) if i % 7 == 0 else None,
                )
                for judge in ("judge-a", "judge-b")
            )
            labels = [
                (rng.choice(["A", "A", "B", "tie"]), rng.random() < 0.3)
                for _ in range(rng.choice([1, 1, 2, 3]))
            ]
            comparison_id = scenario.rows.comparison(*swaps, tags={"set": "x"})
            for k, (winner, from_queue) in enumerate(labels):
                scenario.rows.label(comparison_id, f"person-{k}", winner, from_queue=from_queue)
            panel = scenario.rows.comparisons[-1]["winner"]
            scenario.labelled.append(Labelled(swaps, labels, panel))
        scenario.add_noise()
        return scenario

    def add_noise(self) -> None:
        """Labelled comparisons outside the report's scope, and an unlabelled one."""
        always_right = Swap("judge-a", "first", "second")
        x = {"set": "x"}
        for fields in (
            {"placebo": True, "tags": x},
            {"status": "running", "tags": x},
            {"at": BASE_TIME - timedelta(days=5), "tags": x},
            {"tags": {"set": "y"}},
        ):
            comparison_id = self.rows.comparison(always_right, **fields)
            self.rows.label(comparison_id, "person-0", "A")
        self.rows.comparison(always_right, tags=x)

    def expected(self, judge: str | None) -> dict[str, Any]:
        """human_agreement of a judge (None: the panel), read from the generated values."""
        per_comparison, verdicts, golds = [], [], []
        disputed = multi = unanimous = queue = gold_count = 0
        for item in self.labelled:
            swaps = [s for s in item.swaps if judge in (None, s.judge)]
            winners = [w for s in swaps for w in s.winners if w is not None]
            gold = gold_of([w for w, _ in item.labels])
            multi += len(item.labels) >= 2
            unanimous += len(item.labels) >= 2 and len({w for w, _ in item.labels}) == 1
            if gold is None:
                disputed += 1
                continue
            gold_count += 1
            queue += any(q for _, q in item.labels)
            if winners:
                per_comparison.append((sum(w == gold for w in winners), len(winners)))
            verdict = item.panel if judge is None else swaps[0].verdict
            if verdict is not None:
                verdicts.append(verdict)
                golds.append(gold)
        pairs = sorted(per_comparison)
        k, n = np.array(pairs, dtype=np.float64).T
        correct = sum(v == g for v, g in zip(verdicts, golds, strict=True))
        return {
            "n_calls": int(n.sum()),
            "n_comparisons": len(pairs),
            "n_verdicts": len(verdicts),
            "call_accuracy": k.sum() / n.sum(),
            "call_accuracy_ci95": stats.cluster_bootstrap_ratio_ci(k, n),
            "verdict_accuracy": correct / len(verdicts),
            "verdict_accuracy_ci95": stats.wilson_ci(correct, len(verdicts)),
            "cohen_kappa": cohen_kappa_score(verdicts, golds, labels=["A", "B", "tie"]),
            "labeler_agreement": unanimous / multi,
            "labeler_agreement_ci95": stats.wilson_ci(unanimous, multi),
            "from_queue_share": queue / gold_count,
            "from_queue_share_ci95": stats.wilson_ci(queue, gold_count),
            "disputed": disputed,
            "sampled": False,
            "n_used": len(pairs),
            "tier": "preliminary",
            "reason": None,
        }


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return Scenario.generate()


def assert_matches(section: dict[str, Any], expected: dict[str, Any]) -> None:
    assert section.keys() == expected.keys()
    for key, value in expected.items():
        assert section[key] == (
            value if isinstance(value, str | int | None) else pytest.approx(value, abs=1e-12)
        ), key


@pytest.mark.parametrize("judge", ["judge-a", "judge-b", None])
async def test_human_agreement_matches_a_plain_reading_of_the_spec(
    clean_pg: str, scenario: Scenario, judge: str | None
) -> None:
    await scenario.rows.insert(clean_pg)
    result = await sections(clean_pg)
    section = (result.panel if judge is None else result.by_judge[judge]).human_agreement
    expected = scenario.expected(judge)
    assert expected["disputed"] > 0
    assert 0 < expected["labeler_agreement"] < 1
    assert_matches(section.model_dump(), expected)


async def test_judge_filter_narrows_the_judges_not_the_panel(
    clean_pg: str, scenario: Scenario
) -> None:
    await scenario.rows.insert(clean_pg)
    result = await sections(
        clean_pg,
        ReportFilters(since=FILTERS.since, judge="judge-b", tags=FILTERS.tags),
        judges=["judge-c"],
    )
    assert set(result.by_judge) == {"judge-b", "judge-c"}
    assert_matches(
        result.by_judge["judge-b"].human_agreement.model_dump(), scenario.expected("judge-b")
    )
    assert_matches(result.panel.human_agreement.model_dump(), scenario.expected(None))
    empty = result.by_judge["judge-c"]
    assert (empty.human_agreement.n_calls, empty.human_agreement.tier) == (0, "insufficient")
    assert empty.human_agreement.call_accuracy is None
    assert empty.confidence.by_source == {}


async def test_report_is_the_same_on_sqlite(
    clean_pg: str, scenario: Scenario, tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    await asyncio.to_thread(upgrade, url)
    for database in (clean_pg, url):
        await scenario.rows.insert(database)
    on_postgres, on_sqlite = await sections(clean_pg), await sections(url)
    assert on_postgres.by_judge["judge-a"].confidence.by_source["stated"].brier is not None
    # Float sums may add up in another order; every count and every rate of counts is equal.
    assert rounded_tree(on_sqlite.model_dump()) == rounded_tree(on_postgres.model_dump())


def rounded_tree(value: Any) -> Any:
    """A JSON-like value with every float rounded to 12 decimals."""
    if isinstance(value, dict):
        return {k: rounded_tree(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [rounded_tree(v) for v in value]
    return round(value, 12) if isinstance(value, float) else value


def escalation_rows(rows: Rows, judge: str, right: int, wrong: int) -> None:
    """Comparisons with gold A that the judge gets right (A) or wrong (B) `right`/`wrong` times."""
    for i in range(right + wrong):
        swap = Swap(judge, "first", "second") if i < right else Swap(judge, "second", "first")
        rows.label(rows.comparison(swap), "person-0", "A")


@pytest.mark.parametrize(
    ("right", "wrong", "flags", "tier"),
    [
        (60, 60, ["escalate"], "moderate"),  # 0.50, CI [0.41, 0.59]
        (72, 28, ["escalate_watch"], "moderate"),  # 0.72, CI [0.63, 0.80]
        (90, 10, [], "moderate"),
        (20, 20, [], "preliminary"),  # 0.50, but no flag below moderate
        (150, 150, ["escalate"], "high"),
    ],
)
async def test_escalate_follows_the_ci_rule_from_tier_moderate(
    clean_pg: str, right: int, wrong: int, flags: list[str], tier: str
) -> None:
    rows = Rows()
    escalation_rows(rows, "judge-a", right, wrong)
    await rows.insert(clean_pg)
    result = await sections(clean_pg, WINDOW)
    section = result.by_judge["judge-a"].human_agreement
    assert (section.verdict_accuracy, section.tier) == (right / (right + wrong), tier)
    assert result.flags == {"judge-a": flags}


# Confidence: (AB confidence, BA confidence) of 40 comparisons with gold A; the AB call is right
# (first = A), the BA call wrong (first = B). Edges 0.1 and 0.9 belong to the upper decile.
CONFIDENCES = [(0.1, 0.9), (0.95, 1.0), (0.55, 0.0), (1.0, 0.35), (0.9, 0.12)] * 8


def bin_of(lower: float, n: int, mean: float | None, accuracy: float | None) -> dict[str, Any]:
    return {
        "lower": lower,
        "upper": round(lower + 0.1, 1),
        "n": n,
        "mean_confidence": mean,
        "accuracy": accuracy,
        "accuracy_ci95": with_ci(accuracy, n),
    }


def with_ci(accuracy: float | None, n: int) -> tuple[float, float] | None:
    """A decile's Wilson CI, from its accuracy and size."""
    return stats.wilson_ci(round(accuracy * n), n) if accuracy is not None else None


def rounded(values: dict[str, Any]) -> dict[str, Any]:
    return {k: round(v, 12) if isinstance(v, float) else v for k, v in values.items()}


async def test_confidence_brier_and_reliability_match_a_hand_computation(clean_pg: str) -> None:
    rows = Rows()
    for i, confidence in enumerate(CONFIDENCES):
        source = "logprobs" if i < 20 else "stated"
        rows.label(
            rows.comparison(Swap("judge-a", "first", "first", confidence, source)), "person-0", "A"
        )
    rows.label(rows.comparison(Swap("judge-a", "first", "first")), "person-0", "A")  # none
    await rows.insert(clean_pg)
    section = (await sections(clean_pg, WINDOW)).by_judge["judge-a"].confidence
    assert (section.n_comparisons, section.tier, section.reason) == (40, "preliminary", None)
    assert set(section.by_source) == {"logprobs", "stated"}
    # Per source: 20 comparisons, 4 rounds of the 5 pairs; right calls (AB) and wrong (BA).
    right = [0.1, 0.95, 0.55, 1.0, 0.9]
    wrong = [0.9, 1.0, 0.0, 0.35, 0.12]
    brier = (sum((1 - c) ** 2 for c in right) + sum(c**2 for c in wrong)) / 10
    for source in ("logprobs", "stated"):
        calibration = section.by_source[source]
        assert calibration.n == 40
        assert calibration.brier == pytest.approx(brier, abs=1e-12)
        assert calibration.confident_wrong_rate == pytest.approx(2 / 10)  # 0.9 and 1.0, wrong
        assert calibration.confident_wrong_rate_ci95 == stats.wilson_ci(8, 40)
        table = {b.lower: rounded(b.model_dump()) for b in calibration.reliability}
        assert table[0.1] == rounded(bin_of(0.1, 8, 0.11, 0.5))  # 0.1 right, 0.12 wrong
        assert table[0.9] == rounded(bin_of(0.9, 20, 0.95, 0.6))  # .95 1 .9 right | .9 1 wrong
        assert table[0.0] == bin_of(0.0, 4, 0.0, 0.0)
        assert table[0.2] == bin_of(0.2, 0, None, None)
        confidences = [c for pair in CONFIDENCES[:20] for c in pair]
        correct = [True, False] * 20
        assert list(table.values()) == [
            rounded({**b, "accuracy_ci95": with_ci(b["accuracy"], b["n"])})
            for b in stats.reliability_deciles(confidences, correct)
        ]
        assert calibration.brier == pytest.approx(stats.brier(confidences, correct))


async def test_confidence_estimates_are_withheld_below_tier_preliminary(clean_pg: str) -> None:
    rows = Rows()
    for _ in range(5):
        rows.label(rows.comparison(Swap("judge-a", "first", "first", (0.8, 0.7))), "p", "A")
    await rows.insert(clean_pg)
    section = (await sections(clean_pg, WINDOW)).by_judge["judge-a"].confidence
    assert (section.tier, section.reason) == ("insufficient", "insufficient_data")
    stated = section.by_source["stated"]
    assert (stated.n, stated.brier, stated.confident_wrong_rate) == (10, None, None)
    assert [b.n for b in stated.reliability if b.n] == [5, 5]


async def test_the_label_counts_look_up_only_the_labelled_comparisons(
    clean_pg: str, scenario: Scenario
) -> None:
    """Every statement of the report that joins labels to calls reads `judge_calls` and
    `comparisons` through their indexes, restricted to the labelled comparisons' ids: never all
    the calls in scope (at 10,000,000 calls that was 2.6-3.5 s a statement, with or without
    labels). Planned as the report plans (nested loops off), with sequential scans off, so that
    the plan shows which condition an index can serve."""
    await scenario.rows.insert(clean_pg)
    plans = await report_plans(
        clean_pg,
        FILTERS,
        lambda statement: "FROM labels" in statement and "judge_calls" in statement,
        "ANALYZE",  # what autovacuum would know
        "SET enable_seqscan = off",
        "SET enable_nestloop = off",
        as_json=True,
    )
    assert len(plans) == 4  # labelled comparisons, confidence, baseline, series accuracy
    for plan in plans:
        scans = [node for node in plan_nodes(plan[0]["Plan"]) if reads_calls(node)]
        assert scans
        for node in scans:
            looked_up = node.get("Index Cond", "") + node.get("Recheck Cond", "")
            assert "id)::text = ANY" in looked_up  # comparison_id for the calls, id otherwise


def reads_calls(node: dict[str, Any]) -> bool:
    """A scan of the calls or of the comparisons' rows."""
    return node.get("Relation Name") in ("judge_calls", "comparisons")


async def test_call_accuracys_ci_keeps_the_most_recent_counted_comparisons(
    clean_pg: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Past the bound, the CI uses the most recent comparisons that call accuracy counts (a gold
    label and a parsed call), by label time: disputed comparisons labelled later take no place
    among them."""
    monkeypatch.setattr(queries, "MAX_OBSERVATIONS", 25)
    rows = Rows()
    for i in range(60):  # the 25 most recent match their gold label, the older ones never do
        labelled = rows.comparison(Swap("judge-a", "first", "second"))
        rows.label(labelled, "ann", "A" if i >= 35 else "B", at=BASE_TIME + timedelta(minutes=i))
    for _ in range(10):
        disputed = rows.comparison(Swap("judge-a", "first", "second"))
        for labeler, winner in (("ann", "A"), ("bob", "B")):
            rows.label(disputed, labeler, winner, at=BASE_TIME + timedelta(hours=2))
    await rows.insert(clean_pg)
    section = (await sections(clean_pg, WINDOW)).by_judge["judge-a"].human_agreement
    assert (section.n_comparisons, section.n_used, section.sampled) == (60, 25, True)
    assert section.call_accuracy == pytest.approx(25 / 60)
    assert section.call_accuracy_ci95 == pytest.approx((1.0, 1.0))
    assert section.disputed == 10
