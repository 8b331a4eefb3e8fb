"""`GET /v1/win-rates`'s shape: names are a contract, add, never rename."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.ledger.callscope import Origin

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
