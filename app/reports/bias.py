"""The bias report: SQL counts from `app.reports.queries`, finished in Python (STATISTICS.md).

Python does only what SQL cannot: exact tests, Wilson intervals, Cohen's κ from the 3×3 pair
table, Spearman ranks and the bootstrap on at most `MAX_OBSERVATIONS` recent observations, Holm
across judges, tiers and flags. Decisions where STATISTICS.md leaves room:

- `position.test` is McNemar's exact test with ≥ 20 swap pairs, else the binomial test.
- `length.p_value` is the exact binomial p of the descriptive longer-win rate; `length.p_adjusted`
  adjusts `spearman_p` over judges; `significant` needs it < 0.05 and |ρ| ≥ the correlation floor,
  and `prefers_longer` is `significant` with ρ > 0. Both describe the traffic, where better
  answers may be longer: neither raises a flag. `length_bias` reads the human baseline: the
  judge's excess longer-share over the labelers on the same comparisons (`human_baseline.length`,
  tier ≥ moderate), flagged when its CI excludes 0 and |excess| ≥ `min_effect`, `_watch` when
  only the point is that far. Without labels, the traffic's `prefers_longer` raises it only when
  the judge card's padding probe (length with quality held fixed) also shows it: `length_bias`
  on a padding `fail`, `length_bias_watch` on a `watch` (the card of the judge's current
  version, once finished). Without either there is no length flag.
- `self_preference.delta` is the mean over all its comparisons; its percentile-bootstrap CI uses the
  most recent ones (`sampled`, `n_used`), resampled as multinomial counts of their few distinct
  s_c − o_c (the same bootstrap, in time independent of how many there are). It is
  significant when the CI excludes 0 and |delta| ≥ `min_effect`.
- `length.p_value_adjusted` and `length.spearman_p_adjusted` each sit beside the p they adjust;
  `length.p_adjusted` (the contract's name) repeats `spearman_p_adjusted`.
- Holm families hold only the judges (or label pairs) whose estimate is shown (tier ≥ preliminary).
- `_watch` flags exist where a CI decides: the PC floors (`red_flag`, `coin_toss`) and
  `self_preference` (point past `min_effect`, CI not excluding 0). No flag below tier `moderate`:
  `high_failure_rate` (failed > 5% of calls) counts calls with the thresholds of decisive calls
  (`calls.tier`), so 1 failure in 6 calls is no flag. `unsupported_parameter` is no estimate but a
  fact (the provider rejected a parameter of the judge's config): one such call raises it.
- `calls` counts every call of the judge, placebo comparisons included (`calls.placebo` says how
  many were on them), and so do its failure rate and `high_failure_rate`: placebo comparisons
  stay out of every bias statistic, but a judge failing on them is failing.
- Every rate has its Wilson CI: the section's main rate in `ci95`, any other `<rate>_ci95`.

Over 500 lines because each section is a small function over the same per-judge `JudgeData`;
the sections leave for modules of their own with the typed report models (issue 38).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy.ext.asyncio import AsyncSession

from app import stats
from app.canaries.reads import latest_drift
from app.cards import service as cards
from app.config import Settings
from app.db import values_of
from app.labels.queries import accuracy_by_bucket
from app.labels.report import label_sections
from app.ledger.callscope import CALL_COUNTS, CALL_SUMS, ReportFilters
from app.ledger.folder import prepare_report
from app.reports import queries
from app.reports.observation_rollups import observation_parts as observation_parts_from_rollups
from app.reports.provider_models import provider_models
from app.reports.rollups import Cubes
from app.reports.rollups import call_cube as cube_from_rollups
from app.reports.schemas import (
    BiasReport,
    CallCounts,
    ConsistencySection,
    Flag,
    JudgeReport,
    LabelPairStats,
    LabelSection,
    LengthSection,
    PlaceboSection,
    PositionSection,
    PositionTest,
    ReportFiltersRead,
    SelfPreferenceSection,
    Tier,
)
from app.reports.series import build_series
from app.rows import from_row
from app.scoring.queries import ScoringFilters
from app.scoring.report import scoring_sections

MCNEMAR_MIN_PAIRS = 20
RED_FLAG_FLOOR = 0.80
COIN_TOSS_FLOOR = 0.70
HIGH_FAILURE_SHARE = 0.05
FLAGGABLE: frozenset[Tier] = frozenset({"moderate", "high"})
INSUFFICIENT = "insufficient_data"

# Mapped winner of the AB call (p1) and of the BA call (p2) for each pick.
_AB_WINNER = {"first": "A", "second": "B", "tie": "tie"}
_BA_WINNER = {"first": "B", "second": "A", "tie": "tie"}
_WINNER_INDEX = {"A": 0, "B": 1, "tie": 2}


@dataclass
class JudgeData:
    """Every count the queries return for one judge, summed over the cubes' finer groups."""

    versions: set[int] = field(default_factory=set)
    counts: Counter[str] = field(default_factory=Counter)  # calls off placebo comparisons
    placebo: Counter[str] = field(default_factory=Counter)  # calls on placebo comparisons
    error_kinds: Counter[str] = field(default_factory=Counter)
    labels: dict[str, tuple[int, int]] = field(default_factory=dict)  # pair: (L2 picks, n)
    pairs: Counter[tuple[stats.Pick, stats.Pick]] = field(default_factory=Counter)
    length: Counter[str] = field(default_factory=Counter)  # n, eligible, longer
    # Spearman of (Δlen, y) over the recent observations: n, Σab, Σa², Σb² of centred ranks.
    length_ranks: tuple[int, float, float, float] = (0, 0.0, 0.0, 0.0)
    self_table: list[tuple[bool, int, int, int, int, int]] = field(default_factory=list)

    def add_calls(self, row: Any) -> None:
        """File one row of `queries.call_cube`."""
        self.versions.add(row.version)
        (self.placebo if row.placebo else self.counts).update(
            {name: getattr(row, name) for name in (*CALL_COUNTS, *CALL_SUMS)}
        )
        if row.error_kind is not None:  # a failed call counts, placebo or not
            self.error_kinds[row.error_kind] += row.calls
        if row.placebo:
            return
        if row.decisive:
            k, n = self.labels.get(row.label_pair, (0, 0))
            self.labels[row.label_pair] = (k + row.second_label, n + row.decisive)

    def add_observation(self, row: Any) -> None:
        """File one row of `queries.observation_parts`."""
        if row.part == "pairs" and row.p1 is not None and row.p2 is not None:
            self.pairs[(row.p1, row.p2)] += row.n
        elif row.part == "length_class":
            self.length.update(
                n=row.n,
                eligible=row.n if row.eligible else 0,
                longer=row.n if row.eligible and row.longer else 0,
            )
        elif row.part == "length":
            self.length_ranks = (row.n, row.s_ab, row.s_aa, row.s_bb)
        elif row.part == "self":
            self.self_table.append((bool(row.kept), row.k_s, row.n_s, row.k_o, row.n_o, row.n))


def _rate(k: int, n: int) -> float | None:
    return k / n if n else None


# Sections


def call_counts(data: JudgeData) -> CallCounts:
    """The judge's calls, all rounds, placebo comparisons included."""
    c = data.counts + data.placebo
    return CallCounts(
        total=c["calls"],
        placebo=data.placebo["calls"],
        design=c["design"],
        parsed=c["parsed"],
        failed=c["failed"],
        ties=c["ties"],
        tokens_in=c["tokens_in"],
        tokens_out=c["tokens_out"],
        reasoning_tokens=c["reasoning_tokens"],
        by_error_kind=dict(sorted(data.error_kinds.items())),
        failure_rate=_rate(c["failed"], c["calls"]),
        failure_rate_ci95=stats.wilson_ci(c["failed"], c["calls"]),
        tier=stats.tier("calls", c["calls"]),
    )


@dataclass(frozen=True)
class PairCounts:
    """Swap pairs of one judge by (AB pick, BA pick)."""

    table: Mapping[tuple[stats.Pick, stats.Pick], int]

    def count(self, kind: stats.PairClass) -> int:
        """Pairs of one class: consistent, primacy or recency."""
        return sum(n for (p1, p2), n in self.table.items() if stats.pc_classify(p1, p2) == kind)

    @property
    def pairs(self) -> int:
        """All swap pairs."""
        return sum(self.table.values())

    def kappa(self) -> float | None:
        """Cohen's κ between the mapped winners of the AB and BA calls."""
        confusion = np.zeros((3, 3))
        for (p1, p2), n in self.table.items():
            confusion[_WINNER_INDEX[_AB_WINNER[p1]], _WINNER_INDEX[_BA_WINNER[p2]]] += n
        return kappa_from_confusion(confusion)


def kappa_from_confusion(confusion: npt.NDArray[np.float64]) -> float | None:
    """Unweighted κ of a square count table (as `stats.cohen_kappa` on the expanded labels)."""
    total = confusion.sum()
    if total == 0:
        return None
    shares = confusion / total
    observed = float(np.trace(shares))
    expected = float(shares.sum(axis=1) @ shares.sum(axis=0))
    if np.isclose(expected, 1.0, rtol=0.0, atol=1e-12):
        return None
    return (observed - expected) / (1.0 - expected)


def position_section(data: JudgeData, pairs: PairCounts) -> PositionSection:
    """First-slot preference; p_adjusted and significance are set across judges later."""
    n, k = data.counts["decisive"], data.counts["first"]
    level = stats.tier("decisive_calls", n)
    if level == "insufficient":
        return PositionSection(
            n=n,
            first_pick_rate=None,
            ci95=None,
            test=None,
            p_value=None,
            p_adjusted=None,
            z=None,
            significant=False,
            tie_rate=None,
            tier=level,
            reason=INSUFFICIENT,
        )
    test: PositionTest = "mcnemar" if pairs.pairs >= MCNEMAR_MIN_PAIRS else "binomial"
    p = (
        stats.mcnemar_exact_p(pairs.count("primacy"), pairs.count("recency"))
        if test == "mcnemar"
        else stats.binom_two_sided_p(k, n)
    )
    return PositionSection(
        n=n,
        first_pick_rate=k / n,
        ci95=stats.wilson_ci(k, n),
        test=test,
        p_value=p,
        p_adjusted=None,
        z=stats.balance_z(k, n),
        significant=False,
        tie_rate=_rate(data.counts["design_ties"], data.counts["design_parsed"]),
        tie_rate_ci95=stats.wilson_ci(data.counts["design_ties"], data.counts["design_parsed"]),
        tier=level,
        reason=None,
    )


def consistency_section(pairs: PairCounts) -> ConsistencySection:
    """Swap consistency over the judge's swap pairs."""
    n, primacy, recency = pairs.pairs, pairs.count("primacy"), pairs.count("recency")
    level = stats.tier("swap_pairs", n)
    if level == "insufficient":
        return ConsistencySection(
            pairs=n,
            position_consistency=None,
            ci95=None,
            primacy_pairs=primacy,
            recency_pairs=recency,
            preference_fairness=None,
            order_kappa=None,
            tier=level,
            reason=INSUFFICIENT,
        )
    consistent = pairs.count("consistent")
    return ConsistencySection(
        pairs=n,
        position_consistency=consistent / n,
        ci95=stats.wilson_ci(consistent, n),
        primacy_pairs=primacy,
        recency_pairs=recency,
        preference_fairness=(recency - primacy) / n,
        order_kappa=pairs.kappa(),
        tier=level,
        reason=None,
    )


def label_pair_stats(k: int, n: int) -> LabelPairStats:
    """One label pair's second-label rate."""
    level = stats.tier("decisive_calls", n)
    if level == "insufficient":
        return LabelPairStats(
            n=n,
            rate=None,
            ci95=None,
            p_value=None,
            p_adjusted=None,
            tier=level,
            reason=INSUFFICIENT,
        )
    return LabelPairStats(
        n=n,
        rate=k / n,
        ci95=stats.wilson_ci(k, n),
        p_value=stats.binom_two_sided_p(k, n),
        p_adjusted=None,
        tier=level,
        reason=None,
    )


def label_section(data: JudgeData) -> LabelSection:
    """Label preference, pooled and per pair (Holm within the judge over its pairs)."""
    by_pair = {pair: label_pair_stats(k, n) for pair, (k, n) in sorted(data.labels.items())}
    for entry, adjusted in zip(
        by_pair.values(), stats.holm([e.p_value for e in by_pair.values()]), strict=True
    ):
        entry.p_adjusted = adjusted
    k = sum(k for k, _ in data.labels.values())
    n = sum(n for _, n in data.labels.values())
    level = stats.tier("decisive_calls", n)
    if level == "insufficient":
        return LabelSection(
            n=n,
            second_label_pick_rate=None,
            ci95=None,
            label_p=None,
            p_adjusted=None,
            significant=False,
            by_pair=by_pair,
            tier=level,
            reason=INSUFFICIENT,
        )
    # In a fixed order: a sum of floats depends on it, and rows come in any order.
    by_label = [data.labels[pair] for pair in sorted(data.labels)]
    return LabelSection(
        n=n,
        second_label_pick_rate=k / n,
        ci95=stats.wilson_ci(k, n),
        label_p=stats.label_omnibus_p(by_label),
        p_adjusted=None,
        significant=False,
        by_pair=by_pair,
        tier=level,
        reason=None,
    )


def placebo_section(data: JudgeData) -> PlaceboSection:
    """First-pick and second-label rates on identical texts."""
    n, first, second = (data.placebo[k] for k in ("decisive", "first", "second_label"))
    level = stats.tier("decisive_calls", n)
    if level == "insufficient":
        return PlaceboSection(
            n=n,
            first_pick_rate=None,
            ci95=None,
            p_value=None,
            second_label_pick_rate=None,
            tier=level,
            reason=INSUFFICIENT,
        )
    return PlaceboSection(
        n=n,
        first_pick_rate=first / n,
        ci95=stats.wilson_ci(first, n),
        p_value=stats.binom_two_sided_p(first, n),
        second_label_pick_rate=second / n,
        second_label_ci95=stats.wilson_ci(second, n),
        second_label_p_value=stats.binom_two_sided_p(second, n),
        tier=level,
        reason=None,
    )


def length_section(data: JudgeData) -> LengthSection:
    """Longer-win rate over all comparisons; Spearman ρ over the most recent ones."""
    n, eligible, longer = (data.length[k] for k in ("n", "eligible", "longer"))
    used, s_ab, s_aa, s_bb = data.length_ranks
    level = stats.tier("comparisons", n)
    if level == "insufficient":
        return LengthSection(
            n=n,
            longer_win_n=eligible,
            longer_win_rate=None,
            ci95=None,
            p_value=None,
            spearman=None,
            spearman_p=None,
            p_adjusted=None,
            significant=False,
            sampled=used < n,
            n_used=used,
            tier=level,
            reason=INSUFFICIENT,
        )
    rho, rho_p = stats.spearman_from_ranks(used, s_ab, s_aa, s_bb)
    return LengthSection(
        n=n,
        longer_win_n=eligible,
        longer_win_rate=_rate(longer, eligible),
        ci95=stats.wilson_ci(longer, eligible),
        p_value=stats.binom_two_sided_p(longer, eligible),
        spearman=rho,
        spearman_p=rho_p,
        p_adjusted=None,
        significant=False,
        sampled=used < n,
        n_used=used,
        tier=level,
        reason="no_variation" if rho is None or eligible == 0 else None,
    )


def self_preference_section(data: JudgeData, min_effect: float) -> SelfPreferenceSection:
    """Mean own-family excess s_c − o_c with a percentile-bootstrap CI."""
    rows = sorted(data.self_table)  # floating sums must not depend on the database's row order
    n = sum(count for *_, count in rows)
    kept = [row for row in rows if row[0]]
    used = sum(count for *_, count in kept)
    if n == 0 or stats.tier("comparisons", n) == "insufficient":
        return SelfPreferenceSection(
            n=n,
            delta=None,
            ci95=None,
            significant=False,
            sampled=used < n,
            n_used=used,
            tier=stats.tier("comparisons", n),
            reason="no_audit_data" if n == 0 else INSUFFICIENT,
        )
    excess = [k_s / n_s - k_o / n_o for _, k_s, n_s, k_o, n_o, _ in rows]
    delta = float(np.average(excess, weights=[count for *_, count in rows]))
    ci = stats.percentile_bootstrap_mean_ci_of_counts(
        [k_s / n_s - k_o / n_o for _, k_s, n_s, k_o, n_o, _ in kept],
        [count for *_, count in kept],
        rounds=1000,
        seed=0,
    )
    excludes_zero = ci is not None and (ci[0] > 0 or ci[1] < 0)
    return SelfPreferenceSection(
        n=n,
        delta=delta,
        ci95=ci,
        significant=excludes_zero and abs(delta) >= min_effect,
        sampled=used < n,
        n_used=used,
        tier=stats.tier("comparisons", n),
        reason=None,
    )


def judge_report(name: str, data: JudgeData, settings: Settings) -> JudgeReport:
    """One judge's sections before the across-judge adjustments and flags."""
    pairs = PairCounts(data.pairs)
    return JudgeReport(
        judge=name,
        versions=sorted(data.versions),
        calls=call_counts(data),
        position=position_section(data, pairs),
        consistency=consistency_section(pairs),
        label=label_section(data),
        placebo=placebo_section(data),
        length=length_section(data),
        self_preference=self_preference_section(data, settings.min_effect),
        flags=[],
    )


# Across judges


def adjust_across_judges(reports: list[JudgeReport], settings: Settings) -> None:
    """Holm over judges for position, label and length, then significance."""
    for report, p in zip(reports, stats.holm([r.position.p_value for r in reports]), strict=True):
        effect = (
            abs(report.position.first_pick_rate - 0.5)
            if report.position.first_pick_rate is not None
            else None
        )
        report.position.p_adjusted = p
        report.position.significant = stats.significant(p, effect, settings.min_effect)
    for report, p in zip(reports, stats.holm([r.label.label_p for r in reports]), strict=True):
        rate = report.label.second_label_pick_rate
        report.label.p_adjusted = p
        report.label.significant = stats.significant(
            p, abs(rate - 0.5) if rate is not None else None, settings.min_effect
        )
    for report, p in zip(reports, stats.holm([r.length.p_value for r in reports]), strict=True):
        report.length.p_value_adjusted = p
    for report, p in zip(reports, stats.holm([r.length.spearman_p for r in reports]), strict=True):
        rho = report.length.spearman
        report.length.p_adjusted = report.length.spearman_p_adjusted = p
        report.length.significant = stats.significant(
            p, abs(rho) if rho is not None else None, settings.min_effect_correlation
        )
        if rho is not None:
            report.length.prefers_longer = report.length.significant and rho > 0


def _floor_flags(report: JudgeReport) -> list[Flag]:
    section = report.consistency
    if section.tier not in FLAGGABLE:
        return []
    flags: list[Flag] = []
    for name, floor in (("red_flag", RED_FLAG_FLOOR), ("coin_toss", COIN_TOSS_FLOOR)):
        outcome = stats.floor_flag(section.position_consistency, section.ci95, floor)
        if outcome is not None:
            flags.append(name if outcome == "flag" else f"{name}_watch")  # type: ignore[arg-type]
    return flags


def _self_preference_flags(section: SelfPreferenceSection, min_effect: float) -> list[Flag]:
    if section.tier not in FLAGGABLE or section.delta is None:
        return []
    if section.significant:
        return ["self_preference"]
    return ["self_preference_watch"] if abs(section.delta) >= min_effect else []


def _length_flags(report: JudgeReport, min_effect: float, padding: str | None = None) -> list[Flag]:
    """From the judge's excess over the humans on the same comparisons, or from the traffic's
    correlation when the card's padding probe (`padding`, its mark) also shows a preference;
    never from the correlation alone, which a fair judge shows wherever better answers are
    longer."""
    baseline = report.human_baseline.length if report.human_baseline else None
    if baseline is None or baseline.tier not in FLAGGABLE or baseline.excess_longer is None:
        if report.length.prefers_longer and padding in ("fail", "watch"):
            return ["length_bias" if padding == "fail" else "length_bias_watch"]
        return []
    excess, ci = baseline.excess_longer, baseline.excess_longer_ci95
    if abs(excess) < min_effect:
        return []
    return ["length_bias" if ci is not None and (ci[0] > 0 or ci[1] < 0) else "length_bias_watch"]


def flags_of(report: JudgeReport, settings: Settings, padding: str | None = None) -> list[Flag]:
    """The judge's flags, from the closed vocabulary (`padding`: its card's padding mark)."""
    flags: list[Flag] = []
    for name, section in (("position_bias", report.position), ("label_bias", report.label)):
        if section.significant and section.tier in FLAGGABLE:
            flags.append(name)  # type: ignore[arg-type]
    flags += _length_flags(report, settings.min_effect, padding)
    flags += _self_preference_flags(report.self_preference, settings.min_effect)
    flags += _floor_flags(report)
    calls = report.calls
    rate = calls.failure_rate
    if calls.tier in FLAGGABLE and rate is not None and rate > HIGH_FAILURE_SHARE:
        flags.append("high_failure_rate")
    if calls.by_error_kind.get("unsupported_parameter"):
        flags.append("unsupported_parameter")
    return flags


# Collection


async def collect(
    session: AsyncSession, filters: ReportFilters, *, rollups: bool = True
) -> tuple[dict[str, JudgeData], list[Any], list[Any]]:
    """Run the statements and file their rows by judge; also returns the rows the series
    reads (calls, and swap pairs per bucket). From the rollups, or (`rollups=False`)
    regrouped from the calls: the same numbers, which a test holds them to."""
    await prepare_report(session)
    judges: dict[str, JudgeData] = defaultdict(JudgeData)
    cubes = (
        await cube_from_rollups(session, filters)
        if rollups
        else Cubes.of([(1, await queries.call_cube(session, filters))])
    )
    for cube_row in cubes.sections:
        judges[cube_row.judge].add_calls(cube_row)
    parts = (
        await observation_parts_from_rollups(session, filters)
        if rollups
        else await queries.observation_parts(session, filters, stored=False)
    )
    for row in parts:
        judges[row.judge].add_observation(row)
    return judges, cubes.series, [row for row in parts if row.part == "buckets"]


def filters_read(filters: ReportFilters) -> ReportFiltersRead:
    """The filters as echoed in the report."""
    return from_row(ReportFiltersRead, filters, tags=[f"{k}:{v}" for k, v in filters.tags])


async def build_report(
    session: AsyncSession, filters: ReportFilters, settings: Settings, *, rollups: bool = True
) -> BiasReport:
    """The whole bias report for the filters."""
    judges, series_calls, bucket_rows = await collect(session, filters, rollups=rollups)
    reports = [judge_report(name, judges[name], settings) for name in sorted(judges)]
    models = await provider_models(session, filters, sorted(judges))
    for report in reports:
        report.provider_models = models.by_judge[report.judge]
    adjust_across_judges(reports, settings)
    labels = await label_sections(session, filters, judges=[r.judge for r in reports])
    padding = await cards.padding_marks(session, settings, [r.judge for r in reports])
    for report in reports:
        sections = labels.by_judge[report.judge]
        report.human_agreement, report.confidence = sections.human_agreement, sections.confidence
        report.human_baseline = sections.human_baseline
        flags = flags_of(report, settings, padding.get(report.judge))
        report.flags = [*flags, *labels.flags.get(report.judge, [])]
    canaries = await latest_drift(session)
    for report in reports:
        report.canaries = canaries.get(report.judge, [])
    scoring = await scoring_sections(session, scoring_filters(filters), settings.reviewer_margin)
    accuracy = await accuracy_by_bucket(session, filters)
    return BiasReport(
        generated_at=datetime.now(UTC),
        filters=filters_read(filters),
        judges=reports,
        panel=labels.panel,
        reviewers=scoring.reviewers,
        position_score=scoring.position_score,
        length_score=scoring.length_score,
        series=build_series(
            series_calls, bucket_rows, filters.bucket, models.by_bucket, accuracy_rows=accuracy
        ),
    )


def scoring_filters(filters: ReportFilters) -> ScoringFilters:
    """The report's filters as the scoring sections take them (no protocol there)."""
    shared = ("since", "until", "judge", "judge_version", "tags", "rubric")
    return ScoringFilters(**values_of(filters, *shared))
