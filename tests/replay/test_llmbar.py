"""Issue 6 acceptance: LLMBar replayed through the API reproduces its published statistics.

All 419 pairs are judged through `POST /v1/compare` by the 24 replayed runs (`tests.replay.llmbar`)
and LLMBar's gold labels are posted through `POST /v1/comparisons/{id}/labels`. Per subset (the
report filtered by tag `subset:<name>`), for each of the 92 runs whose verdicts were all parsed:

| LLMBar (published_statistics.json) | fairpair |
|---|---|
| `equal` (both orders name the same output) | `consistency.position_consistency` |
| `kappa_agreement` (κ between the two orders) | `consistency.order_kappa` |
| `correct_average` (Acc.: mean of the two orders' accuracies) | `human_agreement.call_accuracy` |

The 28 runs with unparsed verdicts differ, as LLMBar's evaluate.py scores them: an unparsed verdict
is wrong and stays in the denominator (all pairs), two unparsed verdicts are "equal", and for κ an
unparsed verdict counts as output 2. fairpair counts a failed call nowhere but in `calls.failed`:
accuracy over parsed design calls, consistency and κ over swap pairs with both calls parsed.
`test_unparsed_verdicts_explain_the_differences` derives both readings from the raw verdicts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from sklearn.metrics import cohen_kappa_score

from app.db import create_engine, create_sessionmaker, utcnow
from app.labels.report import label_sections
from app.labels.schemas import LabelSections
from app.ledger.callscope import ReportFilters
from tests.replay.llmbar import ServedBar, load_items, load_runs, published, served_llmbar

pytestmark = pytest.mark.slow
SUBSETS = ("Natural", "Neighbor", "GPTInst", "GPTOut", "Manual")


@dataclass(frozen=True)
class RawRun:
    """One run on one subset, read from the recorded verdicts."""

    first: list[str | None]  # the winner with output_1 shown first, per pair
    second: list[str | None]  # with output_2 shown first
    gold: list[str]

    @property
    def n(self) -> int:
        return len(self.gold)

    @property
    def unparsed(self) -> int:
        return sum(w is None for w in self.first + self.second)

    @property
    def correct(self) -> int:
        """Parsed verdicts naming the gold output, both orders."""
        orders = (self.first, self.second)
        return sum(w == g for ws in orders for w, g in zip(ws, self.gold, strict=True))

    def parsed_pairs(self) -> list[tuple[str, str]]:
        return [
            (a, b)
            for a, b in zip(self.first, self.second, strict=True)
            if a is not None and b is not None
        ]


def raw_run(subset: str, judge: str) -> RawRun:
    items, recorded = load_items(), load_runs()[judge]
    ids = sorted(i for i in recorded if items[i].subset == subset)
    return RawRun(
        [recorded[i][0] for i in ids],
        [recorded[i][1] for i in ids],
        [str(items[i].label) for i in ids],
    )


def runs() -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """(subset, judge) of the runs with every verdict parsed, and of the others."""
    keys = sorted(published())
    full = [key for key in keys if raw_run(*key).unparsed == 0]
    return full, [key for key in keys if key not in full]


FULLY_PARSED, WITH_UNPARSED = runs()


def run_ids(keys: list[tuple[str, str]]) -> list[str]:
    """`subset/judge--strategy` test ids."""
    return [f"{subset}/{judge}" for subset, judge in keys]


def count_of(figure: str) -> tuple[int, int]:
    """`"68 / 100 = 68.0%"` as (68, 100)."""
    k, n = figure.split(" = ")[0].split(" / ")
    return int(k), int(n)


@pytest.fixture(scope="module")
async def llmbar(
    pg_template: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServedBar]:
    async with served_llmbar(pg_template, tmp_path_factory.mktemp("llmbar")) as served:
        yield served


@pytest.fixture(scope="module")
async def bias_report(llmbar: ServedBar) -> dict[str, dict[str, dict[str, Any]]]:
    """`GET /v1/bias-report?tag=subset:<name>`: each subset's judge sections by judge."""
    sections = {}
    for subset in SUBSETS:
        response = await llmbar.client.get(
            "/v1/bias-report", headers=llmbar.headers, params={"tag": f"subset:{subset}"}
        )
        assert response.status_code == 200, response.text
        sections[subset] = {j["judge"]: j for j in response.json()["judges"]}
    return sections


@pytest.fixture(scope="module")
async def labels(llmbar: ServedBar) -> dict[str, LabelSections]:
    """`label_sections` per subset, until the lead merges them into the bias report."""
    engine = create_engine(llmbar.database_url)
    found = {}
    async with create_sessionmaker(engine)() as session:
        for subset in SUBSETS:
            filters = ReportFilters(since=utcnow() - timedelta(days=1), tags=(("subset", subset),))
            found[subset] = await label_sections(session, filters)
    await engine.dispose()
    return found


def test_every_call_is_answered_as_recorded(llmbar: ServedBar) -> None:
    assert set(llmbar.statuses.values()) == {200}
    for judge, transport in llmbar.transports.items():
        assert transport.unmatched == []
        recorded = load_runs()[judge]
        unparsed = sum(w is None for pair in recorded.values() for w in pair)
        # Each call once; an unparsed one twice (its repair retry).
        assert len(transport.shown) == 2 * len(recorded) + unparsed


def test_the_runs_split_into_92_fully_parsed_and_28_others() -> None:
    assert (len(FULLY_PARSED), len(WITH_UNPARSED)) == (92, 28)


@pytest.mark.parametrize(("subset", "judge"), FULLY_PARSED, ids=run_ids(FULLY_PARSED))
def test_fully_parsed_run_reproduces_the_published_figures(
    bias_report: dict[str, dict[str, dict[str, Any]]],
    labels: dict[str, LabelSections],
    subset: str,
    judge: str,
) -> None:
    figures = published()[(subset, judge)]
    correct_false, n = count_of(figures["correct_False"])
    correct_true, _ = count_of(figures["correct_True"])
    equal, _ = count_of(figures["equal"])
    section = bias_report[subset][judge]
    consistency = section["consistency"]
    assert consistency["pairs"] == n
    assert consistency["position_consistency"] == equal / n
    assert consistency["order_kappa"] == pytest.approx(figures["kappa_agreement"], abs=1e-12)
    agreement = labels[subset].by_judge[judge].human_agreement
    assert (agreement.n_calls, agreement.n_comparisons) == (2 * n, n)
    assert agreement.call_accuracy == (correct_false + correct_true) / (2 * n)
    assert 100 * agreement.call_accuracy == pytest.approx(
        float(figures["correct_average"].rstrip("%")), rel=1e-12
    )
    if "human_agreement" in section:  # once merged into the report
        assert section["human_agreement"]["call_accuracy"] == agreement.call_accuracy


def test_bias_report_carries_the_label_sections(
    bias_report: dict[str, dict[str, dict[str, Any]]], labels: dict[str, LabelSections]
) -> None:
    """Runs once the lead merges `label_sections` into `GET /v1/bias-report`."""
    if not all("human_agreement" in s for s in bias_report["Natural"].values()):
        pytest.skip("the label sections are not merged into GET /v1/bias-report yet")
    for subset, judges in bias_report.items():
        for judge, section in judges.items():
            expected = labels[subset].by_judge[judge]
            assert section["human_agreement"] == expected.human_agreement.model_dump(mode="json")
            assert section["confidence"] == expected.confidence.model_dump(mode="json")


@pytest.mark.parametrize(("subset", "judge"), WITH_UNPARSED, ids=run_ids(WITH_UNPARSED))
def test_unparsed_verdicts_explain_the_differences(
    bias_report: dict[str, dict[str, dict[str, Any]]],
    labels: dict[str, LabelSections],
    subset: str,
    judge: str,
) -> None:
    figures, raw = published()[(subset, judge)], raw_run(subset, judge)
    section = bias_report[subset][judge]
    assert section["calls"]["failed"] == raw.unparsed > 0
    # Accuracy: LLMBar divides by every call, fairpair by the parsed ones.
    agreement = labels[subset].by_judge[judge].human_agreement
    assert float(figures["correct_average"].rstrip("%")) == pytest.approx(
        100 * raw.correct / (2 * raw.n), rel=1e-12
    )
    assert agreement.n_calls == 2 * raw.n - raw.unparsed
    assert agreement.call_accuracy == raw.correct / (2 * raw.n - raw.unparsed)
    # Consistency: LLMBar counts two unparsed verdicts as equal, over every pair.
    pairs = raw.parsed_pairs()
    both_unparsed = sum(a is None and b is None for a, b in zip(raw.first, raw.second, strict=True))
    consistent = sum(a == b for a, b in pairs)
    assert count_of(figures["equal"]) == (consistent + both_unparsed, raw.n)
    consistency = section["consistency"]
    assert consistency["pairs"] == len(pairs) < raw.n
    assert consistency["position_consistency"] == consistent / len(pairs)
    # κ: LLMBar reads an unparsed verdict as output 2; fairpair leaves the pair out.
    assert figures["kappa_agreement"] == pytest.approx(
        cohen_kappa_score([a or "2" for a in raw.first], [b or "2" for b in raw.second]), abs=1e-12
    )
    assert consistency["order_kappa"] == pytest.approx(
        cohen_kappa_score(*zip(*pairs, strict=True)), abs=1e-12
    )


def test_panel_and_gold_labels_cover_every_pair(labels: dict[str, LabelSections]) -> None:
    items = Counter(item.subset for item in load_items().values())
    for subset, sections in labels.items():
        panel = sections.panel.human_agreement
        assert (panel.n_comparisons, panel.disputed, panel.labeler_agreement) == (
            items[subset],
            0,
            None,
        )
        assert panel.n_verdicts == items[subset]
        assert len(sections.by_judge) == 24
