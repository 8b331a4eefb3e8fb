"""Shapes of the labeling endpoints and of the report's `human_agreement` and `confidence`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from app.fields import check_text

Winner = Literal["A", "B", "tie"]
Side = Literal["A", "B"]
Interval = tuple[float, float]
# A Wilson CI over calls, as the report's other call rates have (DECISIONS.md says why).
CallLevelCI = Annotated[
    Interval | None,
    Field(
        description="Wilson over the calls, as if independent (a swap pair's two calls are not: "
        "a comparison-level interval would be wider)"
    ),
]
Tier = Literal["insufficient", "preliminary", "moderate", "high"]
Reason = Literal["insufficient_data"]
LabelFlag = Literal["escalate", "escalate_watch"]
Labeler = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=200),
    AfterValidator(check_text),
]


# Endpoints


class LabelIn(BaseModel):
    """A human's verdict on a stored comparison."""

    model_config = ConfigDict(extra="forbid")

    winner: Winner
    labeler: Labeler | None = Field(
        None,
        description="who labels; a new label by the same labeler replaces the old one. A key "
        "labels as itself (its id, the default); naming another labeler (a team's annotators "
        "behind one tool) takes the `admin` scope. With auth off, any name.",
    )
    from_queue: bool = Field(
        False,
        description="the comparison came from GET /v1/labeling-queue (a random draw): only for "
        "a comparison the queue offered to this key in the last 7 days",
    )
    shown_first: Side | None = Field(
        None,
        description="the response the labeler saw first, when the client knows: the humans' own "
        "first-slot rate counts only labels whose display order is known",
    )


class GoldRead(BaseModel):
    """The comparison's gold label after this one: the majority of its labelers' latest labels."""

    winner: Winner | None = Field(description="null when the labels are split evenly")
    disputed: bool
    labelers: int
    votes: dict[Winner, int]


class LabelRead(BaseModel):
    """A stored label and the comparison's gold label."""

    comparison_id: str
    labeler: str
    winner: Winner
    from_queue: bool
    shown_first: Side | None = Field(None, description="null when the client did not say")
    created_at: datetime
    updated_at: datetime
    gold: GoldRead


TextsWithheld = Literal["privacy", "purged"]


class QueueLengths(BaseModel):
    """Response lengths in characters (kept in privacy mode too)."""

    a: int
    b: int


class QueueItem(BaseModel):
    """A comparison to label: what was asked and the two responses, never a judge's verdict
    (labelers who saw it would anchor on it)."""

    id: str
    prompt: str | None = Field(description="null when `texts_withheld` says why")
    response_a: str | None
    response_b: str | None
    reference: str | None
    criteria: str | list[dict[str, Any]] | None = Field(
        description="null when `texts_withheld` is `privacy` (only their HMACs are stored)"
    )
    tags: dict[str, str] = Field(
        description="as stored: in privacy mode the keys are clear and the values HMACs"
    )
    texts_withheld: TextsWithheld | None = Field(
        None,
        description="why prompt and responses are null: `privacy` (FAIRPAIR_PRIVACY=hash stores"
        " only HMACs; a labeler needs the texts from the caller's own records, found by `id` or"
        " `tags`) or `purged` (a texts-only retention purge removed them); null when shown",
    )
    lengths: QueueLengths = Field(description="response lengths in characters, always kept")
    created_at: datetime


class LabelingQueue(BaseModel):
    """A uniform random sample of the unlabelled complete comparisons."""

    items: list[QueueItem]
    next_cursor: None = Field(None, description="always null: draw again for more")
    seed: int = Field(description="draw again with this seed for the same sample")
    available: int = Field(description="unlabelled complete comparisons the sample was drawn from")


# Report sections (STATISTICS.md "Judge-human agreement", "Confidence calibration")


class HumanAgreementSection(BaseModel):
    """Agreement of a judge (or the panel's final verdict) with the gold labels."""

    n_calls: int = Field(description="parsed design calls on gold-labelled comparisons")
    n_comparisons: int = Field(
        description="gold-labelled comparisons with a parsed design call (the tier's unit)"
    )
    n_verdicts: int = Field(description="gold-labelled comparisons with a result")
    call_accuracy: float | None
    call_accuracy_ci95: Interval | None = Field(description="cluster bootstrap over comparisons")
    verdict_accuracy: float | None
    verdict_accuracy_ci95: Interval | None
    cohen_kappa: float | None
    labeler_agreement: float | None = Field(
        description="share of comparisons with ≥ 2 labelers on which all labelers agree"
    )
    labeler_agreement_ci95: Interval | None = Field(None, description="Wilson")
    from_queue_share: float | None
    from_queue_share_ci95: Interval | None = Field(None, description="Wilson")
    disputed: int = Field(description="labelled comparisons left out because the labels split")
    sampled: bool = Field(description="the bootstrap used only the most recent n_used comparisons")
    n_used: int
    tier: Tier
    reason: Reason | None


class ReliabilityBinRead(BaseModel):
    """One confidence decile: [lower, upper), the last one closed."""

    lower: float
    upper: float
    n: int
    mean_confidence: float | None
    accuracy: float | None
    accuracy_ci95: CallLevelCI = None


class SourceCalibration(BaseModel):
    """Calibration of one confidence source; sources are never mixed."""

    n: int = Field(description="parsed design calls with a confidence on gold comparisons")
    brier: float | None
    confident_wrong_rate: float | None = Field(description="confidence ≥ 0.9 and wrong, over n")
    confident_wrong_rate_ci95: CallLevelCI = None
    reliability: list[ReliabilityBinRead]


class ConfidenceSection(BaseModel):
    """Does the judge's confidence track its accuracy against the gold labels?"""

    by_source: dict[str, SourceCalibration]
    n_comparisons: int = Field(
        description="gold-labelled comparisons with a confident call (the tier's unit)"
    )
    tier: Tier
    reason: Reason | None


BaselineReason = Literal["insufficient_data", "no_display_order"]


class LengthBaseline(BaseModel):
    """Longer-response preference of the judge against the humans on the same comparisons:
    gold comparisons with unequal lengths, a decisive gold and a decisive call of the judge."""

    n: int = Field(description="comparisons (the tier's unit)")
    human_longer_rate: float | None = Field(description="share whose gold is the longer response")
    human_longer_rate_ci95: Interval | None = Field(description="Wilson")
    judge_longer_rate: float | None = Field(
        description="mean over the comparisons of the share of the judge's decisive design calls "
        "that picked the longer response"
    )
    judge_longer_rate_ci95: Interval | None = Field(
        description="percentile bootstrap over comparisons"
    )
    excess_longer: float | None = Field(
        description="mean over the comparisons of (judge's share − human's 0/1): "
        "judge_longer_rate − human_longer_rate"
    )
    excess_longer_ci95: Interval | None = Field(
        description="percentile bootstrap over comparisons (1,000 resamples, seed 0)"
    )
    sampled: bool = Field(description="the bootstraps used only the most recent n_used comparisons")
    n_used: int
    tier: Tier
    reason: Reason | None


class PositionBaseline(BaseModel):
    """First-slot preference of the judge against the humans' own on the same comparisons:
    gold comparisons with a decisive call of the judge and a decisive label whose display order
    the client gave (`shown_first`)."""

    n: int = Field(description="comparisons (the tier's unit)")
    human_labels: int = Field(description="decisive labels with a known display order")
    human_first_rate: float | None = Field(
        description="share of those labels that picked the response shown first"
    )
    human_first_rate_ci95: Interval | None = Field(description="Wilson over the labels")
    judge_calls: int = Field(description="the judge's decisive design calls")
    judge_first_pick_rate: float | None
    judge_first_pick_rate_ci95: CallLevelCI = None
    excess_first: float | None = Field(
        description="mean over the comparisons of (judge's first-pick share − humans' first-slot "
        "share); not the difference of the pooled rates, which weigh calls and labels"
    )
    excess_first_ci95: Interval | None = Field(
        description="percentile bootstrap over comparisons (1,000 resamples, seed 0)"
    )
    sampled: bool = Field(description="the bootstrap used only the most recent n_used comparisons")
    n_used: int
    tier: Tier
    reason: BaselineReason | None = Field(
        description="`no_display_order` when no label on the judge's gold comparisons says "
        "which response was shown first"
    )


class HumanBaselineSection(BaseModel):
    """The judge's length and position preferences measured against what the labelers
    preferred on the same comparisons, and its verdicts against the gold classes."""

    length: LengthBaseline
    position: PositionBaseline
    confusion: dict[Winner, dict[Winner, int]] = Field(
        description="gold class -> the judge's verdict -> comparisons (counts at every tier)"
    )
    n_verdicts: int = Field(description="gold-labelled comparisons with a result of the judge")


class JudgeLabelSections(BaseModel):
    """One judge's label-based sections."""

    human_agreement: HumanAgreementSection
    confidence: ConfidenceSection
    human_baseline: HumanBaselineSection


class PanelLabelSections(BaseModel):
    """The service's final (panel) verdict against the gold labels."""

    human_agreement: HumanAgreementSection


class LabelSections(BaseModel):
    """What `app.labels.report.label_sections` adds to the bias report."""

    by_judge: dict[str, JudgeLabelSections]
    panel: PanelLabelSections
    flags: dict[str, list[LabelFlag]]
