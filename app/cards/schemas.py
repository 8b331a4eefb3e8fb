"""The judge card's answers: a started run with its stated cost, and the card itself."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, Field


class CardRunStarted(BaseModel):
    """A battery run that was queued: what it will cost, and how to find its card."""

    run_id: str
    judge: str
    version: int
    batch_id: str
    items: int
    calls: int
    stated_cost_usd: float | None = Field(
        description="the run's estimated price at the judge's prices; null when it has none "
        "(unknown, not free)"
    )


class ProbeFigure(BaseModel):
    """One probe family: the wrong side's share of decisive calls, its CI, tier and mark."""

    family: str
    rate: float | None
    ci: tuple[float, float] | None
    n: int
    calls: int
    tier: str
    limit: float
    mark: str
    # The interval's level: Bonferroni over the card's four families (0.9875).
    ci_level: float
    # Kish's design effect of the probe items (1 to 2): the interval is at n / design_effect.
    design_effect: float


class ProbeChange(BaseModel):
    """One family against the previous version's card: McNemar's exact test on paired calls."""

    family: str
    pairs: int
    b: int
    c: int
    rate_change: float | None
    p_value: float
    p_adjusted: float | None
    changed: bool


class Card(BaseModel):
    """A judge version's card from its latest battery run."""

    run_id: str
    version: int
    complete: bool
    items: int
    items_done: int
    run_at: datetime | None
    provider_models: list[str]
    figures: list[ProbeFigure]
    previous_version: int | None
    changes: list[ProbeChange]


class CardRead(BaseModel):
    """The card of a judge version, or null and why."""

    judge: str
    version: int
    card: Card | None
    reason: str | None = None
