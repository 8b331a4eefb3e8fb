"""The bias report's shape (STATISTICS.md "Report shape"): names are a contract, add, never rename.

Sections still to come (confidence, human_agreement, panel, reviewers, position_score,
length_score) will be added as new fields. Fields beyond the spec's list are documented where
they are declared.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from app.canaries.schemas import CanaryDriftRead
from app.labels.schemas import (
    CallLevelCI,
    ConfidenceSection,
    HumanAgreementSection,
    HumanBaselineSection,
    PanelLabelSections,
)
from app.scoring.schemas import LengthScoreSection, PositionScoreSection, ReviewerRead

Interval = tuple[float, float]
Tier = Literal["insufficient", "preliminary", "moderate", "high"]
Reason = Literal["insufficient_data", "no_audit_data"]
LengthReason = Literal["insufficient_data", "no_variation"]
Bucket = Literal["day", "hour"]
PositionTest = Literal["mcnemar", "binomial"]
Flag = Literal[
    "position_bias",
    "position_bias_watch",
    "label_bias",
    "label_bias_watch",
    "length_bias",
    "length_bias_watch",
    "self_preference",
    "self_preference_watch",
    "red_flag",
    "red_flag_watch",
    "coin_toss",
    "coin_toss_watch",
    "escalate",
    "escalate_watch",
    "high_failure_rate",
    "unsupported_parameter",
]


class ReportFiltersRead(BaseModel):
    """The filters the report was computed with, defaults filled in."""

    judge: str | None
    judge_version: int | None
    since: datetime
    until: datetime | None
    tags: list[str]
    protocol: str | None
    bucket: Bucket
    origin: Literal["traffic", "canary", "all"] = Field(
        "traffic", description="whose comparisons counted: `traffic`, `canary` or `all`"
    )


class CallCounts(BaseModel):
    """Every call of the judge (all rounds), placebo comparisons included: the failure rate
    counts every failed call; the bias sections leave placebo comparisons out."""

    total: int
    design: int
    parsed: int
    failed: int
    ties: int
    tokens_in: int = Field(0, description="input tokens the judge's calls reported")
    tokens_out: int = Field(0, description="output tokens the judge's calls reported")
    reasoning_tokens: int = Field(
        0, description="of tokens_out, those a reasoning model spent reasoning"
    )
    by_error_kind: dict[str, int]
    placebo: int = Field(
        0, description="calls on placebo comparisons (counted in every figure here)"
    )
    # Beyond the spec's list: the rate `high_failure_rate` reads, with its CI and tier.
    failure_rate: float | None = Field(None, description="failed / total")
    failure_rate_ci95: Interval | None = None
    tier: Tier = Field(
        "insufficient",
        description="by calls (thresholds of decisive calls); high_failure_rate needs moderate",
    )


class PositionSection(BaseModel):
    """First-slot preference over decisive design calls."""

    n: int = Field(description="decisive design calls")
    first_pick_rate: float | None
    ci95: Interval | None
    test: PositionTest | None
    p_value: float | None
    p_adjusted: float | None
    z: float | None
    significant: bool
    tie_rate: float | None
    tie_rate_ci95: Interval | None = None
    tier: Tier
    reason: Reason | None


class ConsistencySection(BaseModel):
    """Swap consistency over swap pairs."""

    pairs: int
    position_consistency: float | None
    ci95: Interval | None
    primacy_pairs: int
    recency_pairs: int
    preference_fairness: float | None
    order_kappa: float | None
    tier: Tier
    reason: Reason | None


class LabelPairStats(BaseModel):
    """One label pair: the share of decisive calls that picked its second label."""

    n: int
    rate: float | None
    ci95: Interval | None
    p_value: float | None
    p_adjusted: float | None = Field(description="Holm within the judge, over its label pairs")
    tier: Tier
    reason: Reason | None


class LabelSection(BaseModel):
    """Label preference, pooled over the label pairs and per pair."""

    n: int = Field(description="decisive design calls")
    second_label_pick_rate: float | None
    ci95: Interval | None
    label_p: float | None
    p_adjusted: float | None
    significant: bool
    by_pair: dict[str, LabelPairStats]
    tier: Tier
    reason: Reason | None


class PlaceboSection(BaseModel):
    """Position and label preference measured on identical texts."""

    n: int = Field(description="decisive design calls on placebo comparisons")
    first_pick_rate: float | None
    ci95: Interval | None
    p_value: float | None
    second_label_pick_rate: float | None
    second_label_ci95: Interval | None = None
    second_label_p_value: float | None = None
    tier: Tier
    reason: Reason | None


class LengthSection(BaseModel):
    """Length preference: descriptive longer-win rate and Spearman ρ(Δlen, y_c)."""

    n: int = Field(description="comparisons with a parsed design call of the judge")
    longer_win_n: int = Field(description="comparisons with y_c ≠ 0 and a large enough |Δlen|")
    longer_win_rate: float | None
    ci95: Interval | None
    p_value: float | None = Field(description="exact binomial p of the longer-win rate")
    p_value_adjusted: float | None = Field(
        None, description="p_value, Holm-adjusted over judges (descriptive: no flag reads it)"
    )
    spearman: float | None
    spearman_p: float | None
    spearman_p_adjusted: float | None = Field(
        None, description="spearman_p, Holm-adjusted over judges: what `significant` reads"
    )
    p_adjusted: float | None = Field(
        description="the same as spearman_p_adjusted (kept: field names are a contract)"
    )
    significant: bool = Field(
        description="spearman_p_adjusted < 0.05 and |ρ| ≥ the correlation floor: the traffic's "
        "outcomes go with length; descriptive, it raises no flag (see `length_bias`)"
    )
    prefers_longer: bool | None = Field(
        None,
        description="descriptive: the judge's outcomes favour the longer response in the traffic "
        "(significant and ρ > 0). Where better answers are also longer this is what a fair judge "
        "does too, so it is no bias: `length_bias` is raised from human_baseline.length (the "
        "judge's excess over the labelers on the same comparisons) only; null below tier "
        "preliminary",
    )
    sampled: bool = Field(description="Spearman used only the most recent n_used comparisons")
    n_used: int
    tier: Tier
    reason: LengthReason | None = Field(
        description="why a figure is null: `insufficient_data` (below the tier's bound), "
        "`no_variation` (enough comparisons, but Δlen or the outcome never varies, so ρ is "
        "undefined, or no decisive comparison has a large enough |Δlen| for the longer-win rate)"
    )


class SelfPreferenceSection(BaseModel):
    """Mean excess share of own-family picks over non-conflicted judges on the same comparisons."""

    n: int = Field(description="comparisons where the judge was conflicted and others were not")
    delta: float | None
    ci95: Interval | None
    significant: bool
    sampled: bool = Field(description="the bootstrap used only the most recent n_used comparisons")
    n_used: int
    tier: Tier
    reason: Reason | None


class JudgeReport(BaseModel):
    """Every figure of one judge."""

    judge: str
    versions: list[int]
    provider_models: list[str] = Field(
        default_factory=list,
        description="distinct models the provider reported on the judge's calls in the window",
    )
    calls: CallCounts
    position: PositionSection
    consistency: ConsistencySection
    label: LabelSection
    placebo: PlaceboSection
    length: LengthSection
    self_preference: SelfPreferenceSection
    human_agreement: HumanAgreementSection | None = None
    confidence: ConfidenceSection | None = None
    human_baseline: HumanBaselineSection | None = None
    canaries: list[CanaryDriftRead] = Field(
        default_factory=list,
        description="the judge's latest settled run of each drift canary, whatever the window: "
        "its figures on the canary's items and `drift`, set from the run that flagged a change "
        "against its previous run or its baseline until an admin acknowledges it "
        "(details: GET /v1/canaries/{name}/runs)",
    )
    flags: list[Flag]


class SeriesPoint(BaseModel):
    """One judge in one UTC bucket."""

    bucket: datetime
    granularity: Bucket = Field(
        description="hour buckets only where every hour of the day is "
        "at least preliminary; otherwise the day"
    )
    judge: str
    version: int = Field(description="the latest judge version seen in the bucket")
    versions: list[int]
    version_changed: bool = Field(
        description="versions differ from the judge's previous bucket, or the bucket holds several"
    )
    provider_models: list[str] = Field(
        default_factory=list, description="models the provider reported in the bucket"
    )
    provider_model_changed: bool = Field(
        False,
        description="provider models differ from the judge's previous bucket that reported one, "
        "or the bucket holds several",
    )
    n: int = Field(description="decisive design calls")
    first_pick_rate: float | None
    first_pick_rate_ci95: Interval | None = None
    pairs: int
    position_consistency: float | None
    position_consistency_ci95: Interval | None = None
    consistency_tier: Tier
    tie_rate: float | None
    tie_rate_ci95: Interval | None = None
    calls: int
    failure_rate: float | None
    failure_rate_ci95: Interval | None = None
    tier: Tier
    # Judge-human accuracy (STATISTICS.md "Judge-human agreement") on the bucket's gold-labelled
    # comparisons, each filed in the bucket of the judge's first call on it.
    gold_comparisons: int = Field(0, description="gold-labelled comparisons (the tier's unit)")
    gold_calls: int = Field(0, description="parsed design calls on them")
    call_accuracy: float | None = Field(
        None, description="calls whose mapped winner equals the gold / gold_calls"
    )
    call_accuracy_ci95: CallLevelCI = None
    gold_verdicts: int = Field(0, description="gold-labelled comparisons with a result")
    verdict_accuracy: float | None = Field(
        None, description="the judge's verdict equals the gold / gold_verdicts"
    )
    verdict_accuracy_ci95: Interval | None = Field(None, description="Wilson")
    human_agreement_tier: Tier = Field(
        "insufficient",
        description="by gold_comparisons (labelled comparisons); the accuracies are null below "
        "preliminary",
    )


class BiasReport(BaseModel):
    """`GET /v1/bias-report`."""

    schema_version: Literal[1] = 1
    generated_at: datetime
    filters: ReportFiltersRead
    judges: list[JudgeReport]
    panel: PanelLabelSections | None = None
    reviewers: list[ReviewerRead] = Field(default_factory=list)
    position_score: PositionScoreSection | None = None
    length_score: LengthScoreSection | None = None
    series: list[SeriesPoint]
