"""`GET /v1/win-rates`'s shape: names are a contract, add, never rename."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.ledger.callscope import Origin
from app.winrates import alttest

Interval = tuple[float, float]
Tier = Literal["insufficient", "preliminary", "moderate", "high"]
Section = Literal["judge", "human", "anchored", "labels_needed"]
Reason = Literal["no_comparisons", "no_labels", "insufficient_data"]


class WinRateFilters(BaseModel):
    """The filters the answer was computed with, defaults filled in (the report's parser)."""

    judge: str | None
    since: datetime
    until: datetime | None
    tags: list[str]
    origin: Origin


class JudgeWinRate(BaseModel):
    """The judges' debiased verdicts alone, over every comparison of the two models."""

    win_rate: float = Field(description="mean outcome for `model`: won 1, tie ½, lost 0")
    ci95: Interval = Field(description="CLT: win_rate ± 1.96·sd/√n, clipped to [0, 1]")
    n: int = Field(description="comparisons")
    interval: Literal["clt"] = "clt"
    tier: Tier


class HumanWinRate(BaseModel):
    """The gold labels from the random labeling queue alone."""

    win_rate: float
    ci95: Interval = Field(description="CLT (the anchored estimate's λ = 0), clipped to [0, 1]")
    n_labelled: int = Field(description="comparisons with a gold label from the queue")
    tier: Tier


class AnchoredWinRate(BaseModel):
    """PPI++: every comparison's judge outcome, corrected by the labelled slice's humans."""

    model_config = ConfigDict(populate_by_name=True)

    win_rate: float = Field(description="clipped to [0, 1]")
    ci95: Interval = Field(description="CLT, clipped to [0, 1]")
    n: int = Field(description="comparisons (labelled and not)")
    n_labelled: int
    method: Literal["ppi++"] = "ppi++"
    lam: float = Field(
        alias="lambda",
        description="power-tuned weight of the judge's outcomes, in [0, 1]; 0 is labels alone",
    )
    tier: Tier


class LabelTarget(BaseModel):
    """How many more labels bring the anchored interval to a half-width."""

    half_width: float
    more_labels: int


class LabelsNeeded(BaseModel):
    """A planning figure: at the current variances and λ re-tuned, the unlabelled pool held at its
    size, labels drawn uniformly from the queue. The variances move as labels arrive."""

    targets: list[LabelTarget]
    planning_figure: Literal[True] = True


class WinRates(BaseModel):
    """The win rate of `model` against `baseline`: judged, labelled, and anchored."""

    schema_version: Literal[1] = 1
    generated_at: datetime
    model: str
    baseline: str
    filters: WinRateFilters
    unit: Literal["comparison"] = "comparison"
    verdict: Literal["final", "judge"] = Field(
        description="the outcome used: the final (panel) debiased verdict, or the filtered "
        "judge's own debiased verdict"
    )
    sampling: Literal["uniform_queue"] = Field(
        "uniform_queue",
        description="the human slice is the labels drawn by the random labeling queue",
    )
    n_comparisons: int
    n_labelled: int = Field(description="comparisons with a gold label from the queue")
    n_labelled_not_from_queue: int = Field(
        description="comparisons carrying labels given outside the queue: counted, never used"
    )
    disputed: int = Field(description="queue-labelled comparisons whose labelers split evenly")
    judge: JudgeWinRate | None
    human: HumanWinRate | None
    anchored: AnchoredWinRate | None
    labels_needed: LabelsNeeded | None
    reasons: dict[Section, Reason] = Field(
        default_factory=dict, description="why a section is null"
    )


class LabelerTestRead(BaseModel):
    """One labeler left out: who represents the other labelers better, the judge or it."""

    labeler: str
    items: int = Field(description="its labelled items that the judge judged")
    judge_advantage: float = Field(
        description="share of them where the judge agrees with the other labelers at least as "
        "often as this labeler does"
    )
    labeler_advantage: float = Field(description="the same for the labeler against the judge")
    p_value: float = Field(
        description="one-sided paired t-test of H0: labeler_advantage − judge_advantage ≥ ε"
    )
    p_adjusted: float = Field(description="Benjamini-Yekutieli adjusted across the labelers")
    judge_wins: bool = Field(description="H0 rejected at the FDR level q")


class JudgeAltTest(BaseModel):
    """The alternative-annotator test of one judge (null figures with a `reason`)."""

    judge: str
    items: int = Field(description="items with two or more queue labelers that it judged")
    labelers: list[LabelerTestRead]
    winning_rate: float | None = Field(description="share of labelers the judge wins against")
    advantage_probability: float | None = Field(
        description="mean judge_advantage: the chance it is as good as a random labeler; "
        "compares judges"
    )
    passed: bool | None = Field(description="winning_rate ≥ 0.5: it may replace a labeler")
    reason: Literal["no_labels", "too_few_labelers"] | None = Field(
        description="`no_labels`: no item with two or more queue labelers that it judged; "
        "`too_few_labelers`: fewer than 3 labelers with 30 such items each"
    )


class AltTest(BaseModel):
    """Can each judge replace a human labeler? Calderon, Reichart and Dror's alternative-
    annotator test over the queue-labelled comparisons (docs/STATISTICS.md)."""

    schema_version: Literal[1] = 1
    generated_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    filters: WinRateFilters
    epsilon: float = Field(description="the cost-benefit margin granted to the judge")
    q: float = Field(description="the false discovery rate controlled across labelers")
    scoring: Literal["accuracy"] = "accuracy"
    min_labelers: int = alttest.MIN_LABELERS
    min_items_per_labeler: int = alttest.MIN_ITEMS_PER_LABELER
    sampling: Literal["uniform_queue"] = Field(
        "uniform_queue", description="only labels drawn from the random labeling queue count"
    )
    n_items: int = Field(description="comparisons in scope with two or more queue labelers")
    judges: list[JudgeAltTest] = Field(description="every judge with a verdict on them, by name")
