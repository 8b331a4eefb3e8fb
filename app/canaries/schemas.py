"""`/v1/canaries`: what is posted and what is answered."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.fields import Name, ShortText
from app.stats import Tier

Trigger = Literal["manual", "schedule", "version", "model"]
Gold = Literal["A", "B", "tie"]


class CanaryCreate(BaseModel):
    """A canary: its items chosen once, by ids or by a tag, and copied."""

    model_config = ConfigDict(extra="forbid")

    name: Name = Field(max_length=64)
    judges: list[Name] = Field(min_length=1, max_length=20, description="the judges it audits")
    comparison_ids: list[ShortText] | None = Field(
        None, min_length=1, description="the stored comparisons to copy, in this order"
    )
    tag: ShortText | None = Field(
        None,
        description="`key:value`: copy the newest `limit` finished traffic comparisons with it",
    )
    limit: int = Field(200, ge=1, description="with `tag`: how many comparisons at most")
    interval: ShortText | None = Field(
        None,
        description="run on a schedule, every interval (an age like 7d, 12h or 30m); "
        "runs also start when a judge's version or provider-reported model changes",
        examples=["7d"],
    )

    @model_validator(mode="after")
    def _one_selector(self) -> CanaryCreate:
        if (self.comparison_ids is None) == (self.tag is None):
            raise ValueError("give exactly one of comparison_ids and tag")
        return self


class CanaryRunCreate(BaseModel):
    """Run now, against all the canary's judges or some of them."""

    model_config = ConfigDict(extra="forbid")

    judges: list[Name] | None = Field(
        None, min_length=1, max_length=20, description="a subset of the canary's judges"
    )


Interval = tuple[float, float]


class RateRead(BaseModel):
    """k of n, the rate and its 95% CI; both null when n = 0 or the tier is `insufficient`."""

    k: int
    n: int
    value: float | None
    ci95: Interval | None
    tier: Tier | None = Field(
        None,
        description="evidence tier by the figure's unit (STATISTICS.md's bounds: labelled items "
        "for accuracy, swap pairs for consistency, decisive calls for the first-pick rate)",
    )
    reason: str | None = Field(None, description="`insufficient_data` when withheld")


class RunFiguresRead(BaseModel):
    """One judge's figures on the canary's items in one run."""

    n_items: int = Field(description="canary items the judge was asked about")
    n_labelled_items: int = Field(description="gold items with at least one parsed design call")
    call_accuracy: RateRead = Field(
        description="parsed design calls whose mapped winner equals the gold, over parsed design "
        "calls on gold items (STATISTICS.md); CI by cluster bootstrap over items"
    )
    verdict_accuracy: RateRead = Field(description="gold items with a verdict; Wilson CI")
    position_consistency: RateRead = Field(description="swap pairs both parsed; Wilson CI")
    first_pick_rate: RateRead = Field(description="decisive design calls; Wilson CI")


class PairedTestRead(BaseModel):
    """One paired test of this run against the judge's previous run on the same items: an exact
    two-sided binomial test of `c` items that moved one way against `b` that moved the other."""

    name: Literal[
        "verdict_accuracy", "position_consistency", "verdict_direction", "first_pick_rate"
    ]
    n: int = Field(description="items the test compared")
    b: int = Field(description="items that moved down (e.g. correct before, wrong now)")
    c: int = Field(description="items that moved up (e.g. wrong before, correct now)")
    difference: float | None = Field(description="this run's rate minus the previous run's")
    ci95: Interval | None
    effect: float | None
    p_value: float
    p_adjusted: float = Field(description="Holm-adjusted over the judge's paired tests")
    significant: bool = Field(description="p_adjusted < 0.05 and effect ≥ the minimum effect")


class JudgeRunRead(BaseModel):
    """One judge in one run: its figures, and the paired tests against its previous run and
    against its baseline run (Holm over both together)."""

    judge: str
    figures: RunFiguresRead
    previous_run: int | None = Field(description="the run compared with; null for a first run")
    items_compared: int = Field(description="items present in both runs")
    verdict_agreement: RateRead | None = Field(
        description="items with the same verdict in both runs, over items with a verdict in both"
    )
    tests: list[PairedTestRead] = Field(description="against the previous run")
    drift: bool | None = Field(
        description="a paired change, against the previous run or the baseline, significant "
        "after Holm and at least the minimum effect; null with neither to compare with"
    )
    version: int | None = Field(None, description="the judge version the run's calls used")
    baseline_run: int | None = Field(
        None,
        description="the judge's baseline when this run settled: the first run of its version "
        "unless an admin pinned another (POST /v1/canaries/{name}/baseline)",
    )
    baseline_items_compared: int = Field(
        0, description="items present in this run and the baseline"
    )
    baseline_tests: list[PairedTestRead] = Field(
        default_factory=list,
        description="against the baseline; empty when the baseline is this run or the previous one",
    )


class CanaryRunRead(BaseModel):
    """One run: a batch of `canary` comparisons, and per judge its figures once it finished."""

    number: int
    trigger: Trigger
    judges: list[str]
    status: Literal["running", "complete"]
    created_at: datetime
    finished_at: datetime | None
    batch_id: str = Field(description="follow it with GET /v1/batches/{id}")
    results: list[JudgeRunRead] = Field(description="per judge; empty while running")


class CanaryJudgeRead(BaseModel):
    """Where one judge of the canary stands: its baseline and its drift flag."""

    judge: str
    last_run: int | None = Field(description="its latest settled run")
    baseline_run: int | None = Field(description="the run later runs are also compared with")
    baseline_pinned: bool = Field(description="pinned by an admin, not the version's first run")
    drift: bool | None = Field(
        description="true from the first run that flagged drift until an admin acknowledges it "
        "or pins a baseline; null while no run had another to compare with"
    )
    drift_since_run: int | None = Field(description="the run that raised the flag")


class BaselinePin(BaseModel):
    """Pin a settled run as the baseline its judges' later runs are compared with."""

    model_config = ConfigDict(extra="forbid")

    run: int = Field(ge=1, le=10**9, description="the run's number")
    judges: list[Name] | None = Field(
        None, min_length=1, max_length=20, description="default: the run's judges"
    )


class DriftAcknowledgement(BaseModel):
    """Clear the drift flag of some or all of the canary's judges."""

    model_config = ConfigDict(extra="forbid")

    judges: list[Name] | None = Field(
        None, min_length=1, max_length=20, description="default: all the canary's judges"
    )


class CanaryRead(BaseModel):
    """A canary, and its latest run."""

    name: str
    created_at: datetime
    judges: list[str]
    interval_s: float | None
    selector: dict[str, Any] = Field(
        description="how the items were chosen: `{tag, limit}`, or `{comparison_ids: <count>}`"
    )
    item_count: int
    gold_count: int = Field(description="items with a gold label (accuracy needs them)")
    last_run: CanaryRunRead | None
    judge_states: list[CanaryJudgeRead] = Field(
        default_factory=list, description="per judge: its baseline and its drift flag"
    )


class CanaryList(BaseModel):
    """A page of canaries, by name."""

    items: list[CanaryRead]
    next_cursor: str | None = None


class CanaryRunList(BaseModel):
    """A page of a canary's runs, newest first."""

    items: list[CanaryRunRead]
    next_cursor: str | None = None


class CanaryDriftRead(BaseModel):
    """A judge's latest settled run of one canary, as the bias report and the dashboard show it."""

    canary: str
    run: int
    trigger: Trigger
    finished_at: datetime
    previous_run: int | None
    drift: bool | None = Field(
        description="true from the run that flagged drift (against the previous run or the "
        "baseline) until an admin acknowledges it or pins a baseline; null while no run had "
        "another to compare with"
    )
    drifted: list[str] = Field(description="the paired tests of this run that are significant")
    run_drift: bool | None = Field(None, description="this run's own flag")
    drift_since_run: int | None = Field(None, description="the run that raised `drift`")
    baseline_run: int | None = Field(None, description="the judge's baseline run")
    baseline_pinned: bool = Field(False, description="pinned by an admin")
    call_accuracy: RateRead
    position_consistency: RateRead
    first_pick_rate: RateRead
