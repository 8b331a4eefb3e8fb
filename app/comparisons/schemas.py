"""Request and answer shapes of `/v1/compare` and `/v1/comparisons` (PRODUCT.md, pinned)."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from app.comparisons.protocols import ProtocolKind
from app.config import SelfPreferencePolicy
from app.fields import CriteriaText, Name, NonEmptyText, TagKey, TagValue
from app.jobs.models import JobStatus
from app.jobs.schemas import (
    CriteriaList,
    DeadlineSeconds,
    JobRequestIn,
    ResponseOrText,
)
from app.ledger.experiments import EXPERIMENT_TAG

Winner = Literal["A", "B", "tie"]
# `waiting`: a provider-mode batch item whose calls are at a provider's batch job.
# The API's job statuses, spelt from the enum they are (a test checks that none is left out).
Status = Literal[
    JobStatus.RUNNING, JobStatus.WAITING, JobStatus.COMPLETE, JobStatus.PARTIAL, JobStatus.FAILED
]
JudgeConfidenceSource = Literal["logprobs", "stated", "mixed", "votes", "inconsistent", "floored"]
PanelConfidenceSource = JudgeConfidenceSource


class ProtocolIn(BaseModel):
    """`{kind, pairs | max_pairs}`: pairs for shuffle (2..5), max_pairs for adaptive (1..5)."""

    model_config = ConfigDict(extra="forbid")

    kind: ProtocolKind = "swap"
    pairs: int | None = Field(None, ge=2, le=5)
    max_pairs: int | None = Field(None, ge=1, le=5)

    @model_validator(mode="after")
    def _knob_matches_kind(self) -> ProtocolIn:
        if self.pairs is not None and self.kind != "shuffle":
            raise ValueError("'pairs' applies to the shuffle protocol only")
        if self.max_pairs is not None and self.kind != "adaptive":
            raise ValueError("'max_pairs' applies to the adaptive protocol only")
        return self


class CompareRequest(JobRequestIn):
    """Which of two responses to one prompt is better?"""

    model_config = ConfigDict(extra="forbid")

    prompt: NonEmptyText
    response_a: ResponseOrText
    response_b: ResponseOrText
    criteria: CriteriaText | CriteriaList | None = None
    reference: NonEmptyText | None = None
    judges: list[Name] | None = Field(None, min_length=1, max_length=50)
    protocol: ProtocolIn = Field(default_factory=ProtocolIn)
    tags: dict[TagKey, TagValue] = Field(default_factory=dict, max_length=16)
    self_preference: SelfPreferencePolicy | None = None
    timeout_s: DeadlineSeconds = None
    experiment: Name | None = Field(
        None,
        description="adds the comparison to this experiment (its two responses' models must be "
        "the experiment's baseline and candidate); stored as the tag `fairpair:experiment`",
    )

    @model_validator(mode="after")
    def _experiment_is_a_tag(self) -> CompareRequest:
        # One way in: the tag is set from the field, so a hand-made tag cannot skip its checks.
        if EXPERIMENT_TAG in self.tags and self.tags[EXPERIMENT_TAG] != self.experiment:
            raise ValueError(f"the tag {EXPERIMENT_TAG!r} is set by the 'experiment' field")
        if self.experiment is not None:
            self.tags[EXPERIMENT_TAG] = self.experiment
        return self


class CallRead(BaseModel):
    """One stored judge call."""

    round: int
    display_order: Literal["AB", "BA"]
    label_pair: str
    labels: dict[str, str]
    pick: Literal["first", "second", "tie"] | None
    mapped_winner: Winner | None
    confidence: float | None
    confidence_source: Literal["logprobs", "stated"] | None
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
    provider_model: str | None = Field(
        None,
        description="the model the provider reports having answered with (e.g. a dated "
        "snapshot); null when it reported none or the call failed before an answer",
    )
    cached: bool = Field(
        False,
        description="answered from the judge-call cache (the judge's `cache: true`): an exact "
        "repeat of a call its version answered before; costs 0 and is not a new observation",
    )
    cached_from: int | None = Field(None, description="the id of the stored call it repeats")


class JudgeResultRead(BaseModel):
    """What one judge's calls add up to."""

    winner: Winner
    confidence: float | None = Field(
        description=(
            "the probability of `winner`: never below 0.5 for A or B (a winner whose calls put "
            "it below one half gets 0.5, source floored); see confidence_source"
        )
    )
    confidence_source: JudgeConfidenceSource | None = Field(
        description=(
            "logprobs or stated: the mean of the calls' confidences of that source; mixed: of "
            "calls of different sources; votes: the share of swap pairs voting for the verdict, "
            "a pair that contradicted itself backing its tie with one half (for a tie by a split, "
            "the best-backed option's share, at most 0.5); inconsistent: a fixed 0.5, because the "
            "judge contradicted itself (every pair's two orders disagreed, under any protocol), "
            "so always with position_consistent false; floored: 0.5, because the calls that "
            "picked an A or B winner put its probability below one half (a three-way share with "
            "ties can), and a winner is never named below 0.5"
        )
    )
    position_consistent: bool | None = Field(
        description=(
            "true when every swap pair that voted picked the same response in both display "
            "orders; false when one changed its pick with the order (it voted tie); null for "
            "single, which shows one order only"
        )
    )
    pairs_run: int
    pairs_agree: bool | None = Field(
        None,
        description=(
            "true when every swap pair that voted cast the same vote, false when they voted "
            "differently (e.g. one A, one B); null with fewer than two voting pairs"
        ),
    )


class JudgeEntry(BaseModel):
    """One judge of the panel: its role, result and calls."""

    judge: str
    version: int
    role: Literal["voter", "audit"]
    result: JudgeResultRead | None
    calls: list[CallRead]


class ExcludedRead(BaseModel):
    """A judge left out of the panel, and why."""

    judge: str
    reason: str


class Lengths(BaseModel):
    """Response lengths in characters (code points) of the submitted texts."""

    a: int
    b: int


class ComparisonRead(BaseModel):
    """A comparison and its debiased verdict (the answer of `POST /v1/compare`)."""

    id: str
    status: Status
    winner: Winner | None
    confidence: float | None = Field(
        description=(
            "the probability of `winner`: the mean confidence of the voting judges whose winner "
            "it is (0.5 for an even split), so never below 0.5 for A or B"
        )
    )
    position_consistent: bool | None = Field(
        description=(
            "false when any voting judge changed its pick when only the display order changed; "
            "true when every voting judge that could tell was consistent; null when none could "
            "(single) or no judge has a result"
        )
    )
    bias_detected: bool | None = Field(
        description=(
            "true when any voting judge showed position bias on this comparison (a swap pair "
            "that disagreed with itself): exactly `position_consistent == false`; null when it "
            "cannot tell: under single (one display order shown, nothing to detect) or when no "
            "judge has a result"
        )
    )
    agreement: float | None
    simulated: bool
    self_preference_risk: bool
    judges: list[JudgeEntry]
    excluded: list[ExcludedRead]
    conflicted: list[str] = Field(
        description="every judge of the requested panel that shares a family with a response, "
        "whatever the policy did with it; what that was: `conflicted_voters`, "
        "`conflicted_audits`, `conflicted_excluded`"
    )
    conflicted_voters: list[str] = Field(
        default_factory=list,
        description="conflicted judges that voted (policy warn or allow; under exclude or "
        "substitute, every judge when no other could vote: `self_preference_risk`)",
    )
    conflicted_audits: list[str] = Field(
        default_factory=list,
        description="conflicted judges that ran and are stored but did not vote (policy audit, "
        "and exclude's audit share)",
    )
    conflicted_excluded: list[str] = Field(
        default_factory=list,
        description="conflicted judges that did not run (policy exclude, or substitute: "
        "replaced by a judge of the default panel); reasons in `excluded`",
    )
    error_kind: str | None = None
    protocol: ProtocolIn
    tags: dict[str, str]
    lengths: Lengths
    created_at: datetime
    completed_at: datetime | None
    confidence_source: PanelConfidenceSource | None = Field(
        None,
        description=(
            "where `confidence` comes from: the backing judges' one source, mixed when they "
            "differ, votes for an even split of the panel"
        ),
    )


class ComparisonList(BaseModel):
    """A page of comparisons, newest first."""

    items: list[ComparisonRead]
    next_cursor: str | None


class ComparisonsDeleted(BaseModel):
    """What a delete removed: comparisons, with their calls, tags and labels."""

    comparisons: int
    calls: int
