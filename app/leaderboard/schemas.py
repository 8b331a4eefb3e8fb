"""The leaderboard's shape: field names are a contract, add, never rename."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from app.ledger.callscope import Origin

Interval = tuple[float, float]
RatingReason = Literal["disconnected"]
WinRateReason = Literal["insufficient_data", "separation"]
AnchoredReason = Literal["no_comparisons", "no_labels", "insufficient_data"]
AnchoredRatingsReason = Literal[
    "no_comparisons", "no_labels", "insufficient_data", "no_unlabelled", "not_identified"
]


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


class AnchoredBaselineWinRate(BaseModel):
    """The win rate against the baseline anchored by human labels (PPI++, docs/STATISTICS.md
    "Leaderboard: anchored win rate"), in percent like `vs_baseline`."""

    model_config = ConfigDict(populate_by_name=True)

    win_rate: float = Field(description="PPI++ estimate of the human win rate, clipped to 0-100")
    ci95: Interval = Field(description="CLT interval, clipped to 0-100")
    n: int = Field(description="direct comparisons with the baseline (labelled and not)")
    n_labelled: int = Field(description="of which with a gold label from the random queue")
    method: Literal["ppi++"] = "ppi++"
    lam: float = Field(alias="lambda", description="power-tuned weight of the judge, in [0, 1]")
    sampling: Literal["uniform_queue"] = Field(
        "uniform_queue",
        description="only labels drawn from the random labeling queue correct the estimate",
    )


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
    anchored_win_rate: AnchoredBaselineWinRate | None = Field(
        None, description="null without a baseline, for the baseline itself, or with a reason"
    )
    anchored_reason: AnchoredReason | None = Field(
        None, description="why `anchored_win_rate` is null when a baseline was given"
    )
    anchored_rating: float | None = Field(
        None, description="PPI++ Bradley-Terry rating (same scale); null: see `anchored_ratings`"
    )
    anchored_ci95: Interval | None = Field(None, description="CLT interval of `anchored_rating`")


class AnchoredRatings(BaseModel):
    """The human-anchored Bradley-Terry fit beside the judge-only one (docs/STATISTICS.md
    "Leaderboard: anchored ratings")."""

    model_config = ConfigDict(populate_by_name=True)

    n: int = Field(description="comparisons between rated models (every one in scope)")
    n_labelled: int = Field(description="of which with a gold label from the random queue")
    method: Literal["ppi++"] = "ppi++"
    lam: float | None = Field(alias="lambda", description="power-tuned weight of the judge")
    sampling: Literal["uniform_queue"] = "uniform_queue"
    reason: AnchoredRatingsReason | None = Field(description="why the ratings are null")


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


class JudgeLeftOut(BaseModel):
    """The board refitted without one judge of the panel, against the full board."""

    judge: str
    voted: int = Field(description="outcomes this judge voted on")
    n: int = Field(description="outcomes left with a verdict (those it judged alone drop out)")
    changed: int = Field(description="outcomes whose verdict differs without this judge")
    models: int = Field(description="models rated both on the full board and without this judge")
    kendall_tau: float | None = Field(
        description="Kendall τ-b of the fits without and with this judge over those models (1: "
        "the same order); null with fewer than two or when a fit ties them all"
    )


class LeaveOneJudgeOut(BaseModel):
    """Leave-one-judge-out rank agreement (STATISTICS.md, "Leaderboard: fragility")."""

    outcomes: int = Field(
        description="the most recent outcomes refitted (up to 20,000 of the fitted ones)"
    )
    judges: list[JudgeLeftOut] = Field(description="one per judge that voted, by name")
    min_kendall_tau: float | None = Field(description="the lowest `kendall_tau` among them")
    reason: Literal["single_judge"] | None = Field(
        description="`single_judge`: fewer than two judges voted on the fitted outcomes"
    )


class Fragility(BaseModel):
    """How fragile the ranking is (STATISTICS.md, "Leaderboard: fragility")."""

    separable_pairs: int = Field(description="rated model pairs whose 95% intervals do not overlap")
    pairs: int = Field(description="rated model pairs")
    separability: float | None = Field(
        description="separable_pairs / pairs (Arena-Hard's separability); null with one model"
    )
    adjacent: list[PairFragility] = Field(
        description="the top two, and each adjacent pair whose intervals overlap among the top five"
    )
    max_flips: int
    leave_one_judge_out: LeaveOneJudgeOut = Field(
        description="the board refitted without each judge of the panel in turn"
    )


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
    anchored_ratings: AnchoredRatings | None = Field(
        None, description="the anchored fit's counts, λ, or why it has none"
    )
