"""Shapes of the labeling endpoints and of the report's `human_agreement` and `confidence`."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StringConstraints

from app.fields import check_text

Winner = Literal["A", "B", "tie"]
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
    labeler: Labeler = Field(
        description="who labels; a new label by the same labeler replaces the old one"
    )
    from_queue: bool = Field(
        False, description="the comparison came from GET /v1/labeling-queue (a random draw)"
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


class JudgeLabelSections(BaseModel):
    """One judge's label-based sections."""

    human_agreement: HumanAgreementSection
    confidence: ConfidenceSection


class PanelLabelSections(BaseModel):
    """The service's final (panel) verdict against the gold labels."""

    human_agreement: HumanAgreementSection


class LabelSections(BaseModel):
    """What `app.labels.report.label_sections` adds to the bias report."""

    by_judge: dict[str, JudgeLabelSections]
    panel: PanelLabelSections
    flags: dict[str, list[LabelFlag]]
