"""Request and answer shapes of `/v1/experiments` (issue 41)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.comparisons.schemas import ProtocolIn
from app.fields import ModelName, Name, NonEmptyText
from app.jobs.schemas import ResponseOrText
from app.ledger.experiments import Decision, ExperimentStatus

Interval = tuple[float, float]
# The most items one experiment judges (a batch's cap).
EXPERIMENT_ITEMS_CAP = 10_000
# The API's statuses and decisions, spelt from the enums they are.
ExperimentStatusField = Literal[
    ExperimentStatus.RUNNING,
    ExperimentStatus.DECIDED,
    ExperimentStatus.EXHAUSTED,
    ExperimentStatus.CANCELLED,
]
DecisionField = Literal[Decision.CANDIDATE_BETTER, Decision.BASELINE_BETTER, Decision.EQUIVALENT]


class ExperimentItemIn(BaseModel):
    """One prompt and the two responses to it: the baseline's and the candidate's."""

    model_config = ConfigDict(extra="forbid")

    prompt: NonEmptyText
    baseline: ResponseOrText
    candidate: ResponseOrText


class ExperimentCreate(BaseModel):
    """Is the candidate better than the baseline? Judged until the answer is known."""

    model_config = ConfigDict(extra="forbid")

    name: Name = Field(max_length=64)
    baseline: ModelName = Field(description="the baseline's model name, as in response_a.model")
    candidate: ModelName = Field(description="the candidate's model name")
    judges: list[Name] | None = Field(None, min_length=1, max_length=50)
    protocol: ProtocolIn = Field(default_factory=ProtocolIn)
    alpha: float = Field(0.05, gt=0, le=0.2, description="the error rate the decision allows")
    margin: float = Field(
        0.0,
        ge=0,
        lt=0.5,
        description="the smallest win-rate difference from 0.5 worth acting on; within it the "
        "two are `equivalent`",
    )
    seed: int = Field(0, ge=0, le=2**31 - 1, description="orders the items and their slots")
    items: list[ExperimentItemIn] | None = Field(
        None,
        min_length=1,
        max_length=EXPERIMENT_ITEMS_CAP,
        description="judged by the service in a seeded random order until decided; without "
        "items, comparisons join by `POST /v1/compare` with `experiment`",
    )


class ExperimentWinRate(BaseModel):
    """The candidate's win rate over the experiment's comparisons (ties one half)."""

    value: float
    cs95: Interval = Field(
        description="anytime-valid 95% confidence sequence: valid however often it is read"
    )
    ci95: Interval = Field(
        description="the fixed-sample 95% interval beside it (CLT; [0, 1] below 2 comparisons): "
        "valid only at a sample size fixed in advance, shown for comparison"
    )
    source: Literal["judge"] = Field(
        "judge", description="what the figures and the decision use: the judges' verdicts"
    )


class ExperimentRead(BaseModel):
    """Where an experiment stands."""

    name: str
    status: ExperimentStatusField
    decision: DecisionField | None
    decided_after: int | None = Field(description="the comparisons the decision rested on")
    baseline: str
    candidate: str
    alpha: float
    margin: float
    win_rate: ExperimentWinRate | None = Field(
        description="the candidate's win rate and its intervals; null before a comparison"
    )
    comparisons: int
    calls: int
    items: int | None = Field(description="item experiments: the items submitted")
    items_judged: int | None
    items_left: int | None = Field(description="items not judged (skipped once decided)")
    calls_saved: int | None = Field(
        description="the calls the items left would have cost, at the calls per judged item"
    )
    batch_id: str | None
    created_at: datetime
    decided_at: datetime | None


class ExperimentList(BaseModel):
    """Experiments, newest first."""

    experiments: list[ExperimentRead]
