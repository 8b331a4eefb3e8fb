"""The leaderboard's shape: field names are a contract, add, never rename."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from app.ledger.callscope import Origin

Interval = tuple[float, float]
RatingReason = Literal["disconnected"]
WinRateReason = Literal["insufficient_data", "separation"]


class LeaderboardFiltersRead(BaseModel):
    """The filters the leaderboard was computed with."""

    since: datetime | None
    until: datetime | None
    tags: list[str]
    baseline: str | None
    origin: Origin = Field(
        "traffic", description="whose comparisons counted: `traffic`, `canary` or `all`"
    )


class BaselineWinRate(BaseModel):
    """Win rates of a model against the baseline, in percent, over their direct comparisons."""

    n: int = Field(description="direct comparisons with the baseline")
    win_rate: float | None = Field(description="raw win rate, a tie counting half")
    win_rate_se: float | None
    lc_win_rate: float | None = Field(description="length-controlled win rate")
    lc_win_rate_se: float | None
    lc_warning: bool = Field(description="|LC − raw| > 10 points: length explains much of it")
    reason: WinRateReason | None


class ModelStanding(BaseModel):
    """One generating model: Bradley-Terry rating, record, and standing against the baseline."""

    model: str
    rank: int | None = Field(description="1 = highest rating; null when not rated")
    rating: float | None = Field(description="1000 + 400·θ/ln 10")
    ci95: Interval | None = Field(description="percentile bootstrap over comparisons")
    theta: float | None = Field(description="Bradley-Terry strength, mean 0 over rated models")
    games: int
    wins: int
    ties: int
    losses: int
    reason: RatingReason | None
    vs_baseline: BaselineWinRate | None = Field(
        description="null without a baseline and for the baseline itself"
    )


class PairFragility(BaseModel):
    """Two models next to each other on the board, and what it would take to swap them."""

    higher: str
    lower: str
    cis_overlap: bool = Field(description="their rating intervals overlap")
    flips: int | None = Field(
        description="verdicts that, turned against the higher model (or for the lower), put the "
        "lower one above: found greedily, an upper bound on the fewest; null: more than "
        "`max_flips`"
    )


class Fragility(BaseModel):
    """How fragile the ranking is (STATISTICS.md, "Leaderboard: fragility")."""

    separable_pairs: int = Field(description="rated model pairs whose 95% intervals do not overlap")
    pairs: int = Field(description="rated model pairs")
    separability: float | None = Field(
        description="separable_pairs / pairs (Arena-Hard's separability); null with one model"
    )
    adjacent: list[PairFragility] = Field(
        description="the top two, and each adjacent pair whose intervals overlap (down to rank 10)"
    )
    max_flips: int


class Leaderboard(BaseModel):
    """Bradley-Terry ranking of generating models from debiased outcomes."""

    schema_version: Literal[1] = 1
    computed_at: datetime = Field(description="when these figures were computed (cached since)")
    filters: LeaderboardFiltersRead
    n: int = Field(description="comparisons the ratings are fitted on")
    sampled: bool = Field(description="only the 100,000 most recent comparisons were fitted")
    baseline_comparisons: int | None = Field(
        None,
        description="direct comparisons of the baseline in scope (up to the 100,000 most recent); "
        "0: the baseline has none here (an unknown model, or none in these filters); "
        "null without a baseline",
    )
    models: list[ModelStanding]
    fragility: Fragility | None = Field(None, description="null with fewer than two rated models")
