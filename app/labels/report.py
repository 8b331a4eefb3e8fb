"""The report's label sections: `human_agreement`, `confidence` and `human_baseline` (built in
`app.labels.baseline`) per judge, `panel`, `escalate`.

SQL counts from `app.labels.queries`, finished here (STATISTICS.md "Judge-human agreement",
"Confidence calibration"). Decisions where the spec leaves room:

- The tier counts gold-labelled comparisons with a parsed design call of the judge
  (`n_comparisons`); the confidence section's tier counts those with a call that has a confidence.
- `call_accuracy_ci95` resamples the judge's most recent `MAX_OBSERVATIONS` labelled comparisons
  (by label time; `sampled`, `n_used`); the point estimate uses all of them.
- `labeler_agreement` and `from_queue_share` describe the labels, not the judge: they are given at
  every tier. A comparison counts as drawn from the queue when any of its labels came from it (the
  queue offers only unlabelled comparisons, so that label was the first).
- `panel` covers the final verdicts of the comparisons in scope whatever the judge filters (the
  verdict is no single judge's); its calls are the voting judges' parsed design calls.
- `escalate` (verdict accuracy < 0.75) follows the CI rule: the whole Wilson CI below the floor
  flags, the point alone `escalate_watch`; never below tier `moderate`.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from app import stats
from app.labels import queries
from app.labels.baseline import human_baseline
from app.labels.schemas import (
    ConfidenceSection,
    HumanAgreementSection,
    JudgeLabelSections,
    LabelFlag,
    LabelSections,
    PanelLabelSections,
    Reason,
    ReliabilityBinRead,
    SourceCalibration,
)
from app.ledger.callscope import ReportFilters
from app.ledger.folder import prepare_report

ESCALATE_FLOOR = 0.75
FLAGGABLE = frozenset({"moderate", "high"})
INSUFFICIENT: Reason = "insufficient_data"


@dataclass
class LabelData:
    """Every count the label queries return for one judge (or the panel)."""

    calls: list[tuple[int, int, bool, bool, int]] = field(default_factory=list)
    verdicts: Counter[tuple[str, str]] = field(default_factory=Counter)  # (verdict, gold)
    labels: Counter[str] = field(default_factory=Counter)
    confidence: dict[str, list[Any]] = field(default_factory=lambda: defaultdict(list))
    baseline: list[Any] = field(default_factory=list)  # rows of `queries.baseline_table`

    def add(self, row: Any) -> None:
        """File one row of `queries.labelled_table`."""
        n = row.rows
        if row.gold is not None and row.n > 0:
            self.calls.append((row.k, row.n, bool(row.confident), bool(row.kept), n))
        if row.gold is not None and row.verdict is not None:
            self.verdicts[(row.verdict, row.gold)] += n
        if row.gold is None:  # disputed
            self.labels["disputed"] += n
        else:
            self.labels.update(gold=n, from_queue=n if row.from_queue else 0)
        if row.multi:
            self.labels.update(multi=n, unanimous=n if row.unanimous else 0)


ESTIMATES = (
    "call_accuracy", "call_accuracy_ci95", "verdict_accuracy", "verdict_accuracy_ci95",
    "cohen_kappa",
)  # fmt: skip


def _share(k: int, n: int) -> float | None:
    return k / n if n else None


def call_accuracy_ci(calls: list[tuple[int, int, bool, bool, int]]) -> tuple[Any, int]:
    """Cluster-bootstrap CI of Σk/Σn over the kept comparisons, and how many were used."""
    kept = sorted((k, n, count) for k, n, _, is_kept, count in calls if is_kept)
    counts = [count for *_, count in kept]
    numerators = np.repeat([k for k, _, _ in kept], counts).astype(np.float64)
    denominators = np.repeat([n for _, n, _ in kept], counts).astype(np.float64)
    ci = stats.cluster_bootstrap_ratio_ci(numerators, denominators)  # type: ignore[arg-type]
    return ci, sum(counts)


def human_agreement(data: LabelData) -> HumanAgreementSection:
    """Call and verdict accuracy, κ and the labels' own figures."""
    n_comparisons = sum(count for *_, count in data.calls)
    n_calls = sum(n * count for _, n, _, _, count in data.calls)
    hits = sum(k * count for k, _, _, _, count in data.calls)
    n_verdicts = sum(data.verdicts.values())
    labels = data.labels
    level = stats.tier("labelled", n_comparisons)
    section = HumanAgreementSection(
        n_calls=n_calls,
        n_comparisons=n_comparisons,
        n_verdicts=n_verdicts,
        # Estimated below once there are enough labelled comparisons.
        **dict.fromkeys(ESTIMATES),
        labeler_agreement=_share(labels["unanimous"], labels["multi"]),
        labeler_agreement_ci95=stats.wilson_ci(labels["unanimous"], labels["multi"]),
        from_queue_share=_share(labels["from_queue"], labels["gold"]),
        from_queue_share_ci95=stats.wilson_ci(labels["from_queue"], labels["gold"]),
        disputed=labels["disputed"],
        sampled=False,
        n_used=0,
        tier=level,
        reason=None,
    )
    if level == "insufficient":
        section.reason = INSUFFICIENT
        return section
    section.call_accuracy = _share(hits, n_calls)
    section.call_accuracy_ci95, section.n_used = call_accuracy_ci(data.calls)
    section.sampled = section.n_used < n_comparisons
    correct = sum(n for (verdict, gold), n in data.verdicts.items() if verdict == gold)
    section.verdict_accuracy = _share(correct, n_verdicts)
    section.verdict_accuracy_ci95 = stats.wilson_ci(correct, n_verdicts)
    pairs = sorted(data.verdicts.items())
    section.cohen_kappa = stats.cohen_kappa(
        [v for (v, _), n in pairs for _ in range(n)], [g for (_, g), n in pairs for _ in range(n)]
    )
    return section


def source_calibration(rows: list[Any], estimate: bool) -> SourceCalibration:
    """Brier score, confident-and-wrong rate and the reliability deciles of one source."""
    by_decile = {row.decile: row for row in rows}
    n = sum(row.n for row in rows)
    reliability = []
    for b in range(10):
        row = by_decile.get(b)
        size = row.n if row else 0
        reliability.append(
            ReliabilityBinRead(
                lower=b / 10,
                upper=(b + 1) / 10,
                n=size,
                mean_confidence=float(row.s) / size if row and estimate else None,
                accuracy=row.hits / size if row and estimate else None,
                accuracy_ci95=stats.wilson_ci(row.hits, size) if row and estimate else None,
            )
        )
    if not estimate or n == 0:
        return SourceCalibration(
            n=n, brier=None, confident_wrong_rate=None, reliability=reliability
        )
    squares = sum(float(r.ss) - 2 * float(r.s_hit) + r.hits for r in rows)
    return SourceCalibration(
        n=n,
        brier=squares / n,
        confident_wrong_rate=sum(r.confident_wrong for r in rows) / n,
        confident_wrong_rate_ci95=stats.wilson_ci(sum(r.confident_wrong for r in rows), n),
        reliability=reliability,
    )


def confidence(data: LabelData) -> ConfidenceSection:
    """Calibration of the judge's confidences, per source."""
    n_comparisons = sum(count for _, _, confident, _, count in data.calls if confident)
    level = stats.tier("labelled", n_comparisons)
    estimate = level != "insufficient"
    return ConfidenceSection(
        by_source={
            source: source_calibration(rows, estimate)
            for source, rows in sorted(data.confidence.items())
        },
        n_comparisons=n_comparisons,
        tier=level,
        reason=None if estimate else INSUFFICIENT,
    )


def escalate_flags(section: HumanAgreementSection) -> list[LabelFlag]:
    """`escalate` when the verdict accuracy's whole CI is below 0.75, `_watch` for the point."""
    if section.tier not in FLAGGABLE:
        return []
    outcome = stats.floor_flag(
        section.verdict_accuracy, section.verdict_accuracy_ci95, ESCALATE_FLOOR
    )
    if outcome is None:
        return []
    return ["escalate" if outcome == "flag" else "escalate_watch"]


async def collect(session: AsyncSession, filters: ReportFilters) -> dict[str | None, LabelData]:
    """Every count, filed by judge (None: the panel)."""
    data: dict[str | None, LabelData] = defaultdict(LabelData)
    for row in await queries.labelled_table(session, filters):
        data[row.judge].add(row)
    for row in await queries.confidence_cube(session, filters):
        if row.source is not None:
            data[row.judge].confidence[row.source].append(row)
    for row in await queries.baseline_table(session, filters):
        data[row.judge].baseline.append(row)
    return data


async def label_sections(
    session: AsyncSession, filters: ReportFilters, judges: Iterable[str] = ()
) -> LabelSections:
    """`human_agreement`, `confidence` and `human_baseline` of every judge with labelled data in
    scope (and of each of `judges`, empty when it has none), `panel.human_agreement`, and
    `escalate` flags."""
    await prepare_report(session)
    data = await collect(session, filters)
    names = sorted({name for name in data if name is not None} | set(judges))
    by_judge = {
        name: JudgeLabelSections(
            human_agreement=human_agreement(data[name]),
            confidence=confidence(data[name]),
            human_baseline=human_baseline(data[name].baseline, data[name].verdicts),
        )
        for name in names
    }
    return LabelSections(
        by_judge=by_judge,
        panel=PanelLabelSections(human_agreement=human_agreement(data[None])),
        flags={name: escalate_flags(s.human_agreement) for name, s in by_judge.items()},
    )
