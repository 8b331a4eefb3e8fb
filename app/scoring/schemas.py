"""Request and answer shapes of `/v1/score` and `/v1/score-sessions` (PRODUCT.md capability 3)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from app.config import SelfPreferencePolicy
from app.fields import (
    CriteriaText,
    JudgedText,
    Name,
    NonEmptyText,
    TagKey,
    TagValue,
)
from app.jobs.models import JobStatus
from app.jobs.schemas import (
    CriteriaList,
    DeadlineSeconds,
    JobRequestIn,
    ResponseOrText,
)
from app.scoring.stats import Classification, PooledCorrelationRead
from app.stats import Interval, Tier

# A score session never waits (no provider batches for scores); spelt from the job statuses.
Status = Literal[JobStatus.RUNNING, JobStatus.COMPLETE, JobStatus.PARTIAL, JobStatus.FAILED]
ScoreValue = Annotated[float, Field(ge=-1000, le=1000, allow_inf_nan=False)]
# Every text reaches a judge prompt or a JSON column: no NUL bytes, no lone surrogates.
LevelText = Annotated[str, StringConstraints(min_length=1, max_length=2000), JudgedText()]
AnchorText = Annotated[str, StringConstraints(min_length=1, max_length=4000), JudgedText()]
CalibrationReason = Literal["disconnected_design", "insufficient_data"]
MAX_RESPONSES = 20


class RubricLevelIn(BaseModel):
    """One anchored level: its score, what it means, and optional example answers."""

    model_config = ConfigDict(extra="forbid")

    score: ScoreValue
    description: LevelText
    anchors: list[AnchorText] = Field(default_factory=list, max_length=5)


class RubricIn(BaseModel):
    """A scale from `min` to `max` (default: the lowest and highest level) with its levels."""

    model_config = ConfigDict(extra="forbid")

    min: ScoreValue | None = None
    max: ScoreValue | None = None
    levels: list[RubricLevelIn] = Field(min_length=2, max_length=21)

    @model_validator(mode="after")
    def _levels_fit_the_range(self) -> RubricIn:
        scores = [level.score for level in self.levels]
        if len(set(scores)) != len(scores):
            raise ValueError("level scores must be distinct")
        low = min(scores) if self.min is None else self.min
        high = max(scores) if self.max is None else self.max
        if not low < high:
            raise ValueError("min must be below max")
        if not all(low <= s <= high for s in scores):
            raise ValueError("every level's score must lie within min..max")
        self.min, self.max = low, high
        self.levels = sorted(self.levels, key=lambda level: level.score)
        return self


class ScoreRequest(JobRequestIn):
    """Score 1..20 responses to one prompt on a rubric, with a panel of reviewers."""

    model_config = ConfigDict(extra="forbid")

    prompt: NonEmptyText
    responses: list[ResponseOrText] = Field(min_length=1, max_length=MAX_RESPONSES)
    rubric: RubricIn | None = Field(None, description="default: 1..5 with a conciseness level")
    criteria: CriteriaText | CriteriaList | None = None
    judges: list[Name] | None = Field(None, min_length=1, max_length=50)
    self_preference: SelfPreferencePolicy | None = None
    length_normalize: bool = Field(False, description="also return length-normalized scores")
    length_target: int = Field(500, ge=1, le=1_000_000, description="characters")
    tags: dict[TagKey, TagValue] = Field(default_factory=dict, max_length=16)
    timeout_s: DeadlineSeconds = None


# The answer


class RubricRead(BaseModel):
    """The rubric used, with its id (a hash of range, levels and anchors)."""

    id: str
    min: float
    max: float
    levels: list[RubricLevelIn]


class OffsetRead(BaseModel):
    """A reviewer's offset from the last refit; null with a reason where it is not estimated."""

    offset: float | None
    ci95: Interval | None
    classification: Classification | None
    tier: Tier
    reason: CalibrationReason | None


class ShownRead(BaseModel):
    """One response as a reviewer's call showed it."""

    position: int = Field(description="1-based display position")
    response: int = Field(description="0-based index of the response in the request")
    label: str | None
    score: float | None


class ScoreCallRead(BaseModel):
    """One stored reviewer call."""

    shown: list[ShownRead]
    provider_model: str | None
    latency_ms: float
    tokens_in: int | None
    tokens_out: int | None
    reasoning_tokens: int | None = Field(
        None, description="of tokens_out, those a reasoning model spent reasoning"
    )
    cost_usd: float | None
    retries: int
    error_kind: str | None
    error: str | None
    started_at: datetime
    finished_at: datetime
    cached: bool = Field(
        False,
        description="answered from the judge-call cache (the reviewer's `cache: true`): its "
        "scores repeat the stored call's and are not new observations",
    )
    cached_from: int | None = Field(None, description="the id of the stored call it repeats")


class ReviewerEntry(BaseModel):
    """One reviewer of the session: what it scored, its call, and its calibration."""

    reviewer: str
    version: int
    responses: list[int] = Field(description="the responses it was asked to score")
    call: ScoreCallRead | None = Field(description="null while the session runs")
    calibration: OffsetRead | None = Field(description="null until the session completes")


class ResponseScores(BaseModel):
    """One response: raw, calibrated and length-normalized scores by reviewer, and their means."""

    index: int
    model: str | None
    family: str | None = Field(description="the family used for self-preference")
    length: int = Field(description="characters (code points) of the submitted text")
    raw: dict[str, float] = Field(description="counted scores by reviewer, never rewritten")
    calibrated: dict[str, float | None] = Field(
        description="raw − the reviewer's offset (not clipped to the rubric); null without one"
    )
    length_normalized: dict[str, float] | None = Field(
        description="each raw score with the length penalty; null unless asked for"
    )
    audit: dict[str, float] = Field(description="scores of conflicted audit reviewers, uncounted")
    excluded: list[str] = Field(description="reviewers kept off this response (self-preference)")
    raw_mean: float | None = Field(
        description="over the reviewers in `raw`, who differ between responses when a reviewer"
        " was excluded or failed: compare responses by `shared_raw_mean` (or `calibrated_mean`)"
    )
    calibrated_mean: float | None = Field(description="over reviewers with an offset")
    length_normalized_mean: float | None
    shared_raw_mean: float | None = Field(
        None,
        description="over the session's `shared_reviewers` only (the same set on every response,"
        " so comparable across responses); null when no reviewer scored every response",
    )


class CalibrationRead(BaseModel):
    """Which refit the calibrated scores come from."""

    rubric: str
    computed_at: datetime
    clipped: Literal[False] = Field(
        False, description="calibrated scores are raw − offset and are not clipped to the rubric"
    )


class ExcludedReviewerRead(BaseModel):
    """A requested reviewer that scored nothing, and why."""

    judge: str
    reason: str


class ScoreSessionRead(BaseModel):
    """A score session (the answer of `POST /v1/score`)."""

    id: str
    status: Status
    simulated: bool
    self_preference_risk: bool
    rubric: RubricRead
    length_target: int | None = Field(description="characters; null unless normalization asked")
    responses: list[ResponseScores]
    reviewers: list[ReviewerEntry]
    excluded: list[ExcludedReviewerRead]
    conflicted: list[str] = Field(description="reviewers conflicted on some response")
    calibration: CalibrationRead | None
    error_kind: str | None = None
    tags: dict[str, str]
    created_at: datetime
    completed_at: datetime | None
    shared_reviewers: list[str] = Field(
        default_factory=list,
        description="reviewers with a counted score on every response: each `shared_raw_mean`"
        " is over exactly these",
    )


# Report sections (STATISTICS.md "Pointwise scoring"; the names are part of the report's contract)


class ReviewerSelfPreferenceRead(BaseModel):
    """The reviewer's own-family score gap on one rubric (STATISTICS.md "Self-preference",
    for scores): per session where it scored a response of its own family and a reviewer
    conflicted on no response scored the same responses, gap = mean over its own-family
    responses of (its score - the neutral reviewers' mean) minus the same over its other
    responses; `delta` = mean gap over sessions."""

    n: int = Field(description="sessions with a gap")
    delta: float | None = Field(description="rubric points; positive favours its own family")
    ci95: Interval | None = Field(
        description="percentile bootstrap over sessions, 1,000 resamples, seed 0"
    )
    significant: bool = Field(
        description="ci95 excludes 0 and |delta| >= the reviewer margin (0.1 x rubric range)"
    )
    tier: Tier
    reason: Literal["no_audit_data", "insufficient_data"] | None
    sampled: bool = Field(description="only the most recent audited sessions were read")


class ReviewerRead(BaseModel):
    """One reviewer's calibration on one rubric."""

    reviewer: str
    rubric: str
    n: int = Field(description="informative scores (items scored by >= 2 reviewers)")
    n_total: int
    raw_mean: float | None
    sd: float | None
    offset: float | None
    ci95: Interval | None
    z: float | None = Field(description="descriptive; not used for classification")
    classification: Classification | None
    tier: Tier
    reason: CalibrationReason | None
    sampled: bool = Field(
        description="the CI's covariance read only the panel's most recent n_used scores"
    )
    n_used: int = Field(
        description="informative scores of the whole panel on this rubric that the CI's "
        "cluster-robust covariance read (the offsets are fitted jointly, so every reviewer of "
        "the rubric shows the same number); the reviewer's own count is `n`"
    )
    self_preference: ReviewerSelfPreferenceRead | None = Field(
        None, description="in the bias report; null in calibration snapshots"
    )


class PositionEffectRead(BaseModel):
    """gamma_p of one display position."""

    position: int
    n: int
    effect: float | None
    ci95: Interval | None


class PositionScoreSection(BaseModel):
    """Position-score bias of one rubric: fitted position effects and the raw position means."""

    rubric: str | None
    n: int = Field(description="informative scores in the fit")
    by_position: list[PositionEffectRead]
    position_p: float | None
    variance_of_position_means: float | None
    variance_flag: bool = Field(description="variance of position means > 0.5*((max-min)/4)^2")
    tier: Tier
    reason: Literal["insufficient_data", "not_identified"] | None
    sampled: bool
    n_used: int


class ReviewerCorrelationRead(PooledCorrelationRead):
    """The pool of one reviewer."""

    reviewer: str


class LengthScoreSection(PooledCorrelationRead):
    """Length-score correlation of one rubric, overall and by reviewer."""

    rubric: str | None
    by_reviewer: list[ReviewerCorrelationRead]
    sampled: bool = Field(description="only the most recent n_used (reviewer, session) pairs")
    n_used: int


class ScoringSections(BaseModel):
    """The report's pointwise-scoring sections."""

    reviewers: list[ReviewerRead]
    position_score: PositionScoreSection
    length_score: LengthScoreSection
