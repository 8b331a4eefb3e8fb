"""Request and answer shapes of `/v1/batches` (PRODUCT.md capability 7)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    model_validator,
)

from app.batches.models import BatchStatus, ItemStatus
from app.comparisons.schemas import CompareRequest, ComparisonRead
from app.fields import check_text
from app.scoring.schemas import ScoreRequest, ScoreSessionRead

ItemKind = Literal["compare", "score"]
BatchMode = Literal["live", "provider"]
# The API's statuses, spelt from the enums they are (a test checks that none is left out).
BatchStatusField = Literal[
    BatchStatus.QUEUED,
    BatchStatus.RUNNING,
    BatchStatus.COMPLETED,
    BatchStatus.CANCELLED,
    BatchStatus.FAILED,
]
ItemStatusField = Literal[
    ItemStatus.QUEUED,
    ItemStatus.RUNNING,
    ItemStatus.WAITING,
    ItemStatus.COMPLETED,
    ItemStatus.FAILED,
    ItemStatus.CANCELLED,
]
# Validation stops at the first item past it (pydantic-core counts as it goes), so a body of a
# million items costs 10,001 items' work; `FAIRPAIR_MAX_BATCH_ITEMS` may only lower it.
BATCH_ITEMS_CAP = 10_000
# The most JSON values (objects, arrays, scalars) one valid item holds: a score item with every
# list and map full (20 responses as objects, a rubric of 21 levels of 5 anchors, 20 criteria, 50
# judges, 16 tags) and every optional field given is 429, plus the item, its id and a null
# `compare` (a compare item holds at most 166). A batch body with more than the items' values is
# refused before it is parsed (app/middleware.py inspect_body); tests/batches/test_batch_edges.py
# derives the figure from the JSON schema. A key given twice counts twice, as parsers read both.
ITEM_MAX_VALUES = 432


def batch_max_values(max_items: int) -> int:
    """The most JSON values a valid batch of `max_items` items holds (with the body, `items` and
    `mode`)."""
    return 3 + max_items * ITEM_MAX_VALUES


ItemId = Annotated[str, StringConstraints(min_length=1, max_length=200), AfterValidator(check_text)]


class BatchItemIn(BaseModel):
    """One item: a compare request or a score request, with the caller's optional id."""

    model_config = ConfigDict(extra="forbid")

    item_id: ItemId | None = Field(None, description="yours; unique within the batch")
    compare: CompareRequest | None = None
    score: ScoreRequest | None = None

    @model_validator(mode="after")
    def _exactly_one_request(self) -> BatchItemIn:
        if (self.compare is None) == (self.score is None):
            raise ValueError("give exactly one of 'compare' and 'score'")
        return self

    @property
    def kind(self) -> ItemKind:
        """Which request the item carries."""
        return "compare" if self.compare is not None else "score"


class BatchCreate(BaseModel):
    """Up to `FAIRPAIR_MAX_BATCH_ITEMS` (10,000) items, run by workers in the background.

    Send it as JSON (`Content-Type: application/json`).
    """

    model_config = ConfigDict(extra="forbid")

    items: list[BatchItemIn] = Field(min_length=1, max_length=BATCH_ITEMS_CAP)
    mode: BatchMode = Field(
        "live",
        description=(
            "`provider`: the calls of judges with a batch API (OpenAI's and Anthropic's hosts, "
            "or `batch_api: on`) go through their provider's batch jobs, answered within 24 h "
            "at about half the price; other judges and score items run live. docs/BATCHES.md."
        ),
    )


class BatchCounts(BaseModel):
    """Items by status."""

    queued: int = 0
    running: int = 0
    waiting: int = Field(0, description="items whose calls are at a provider's batch job")
    completed: int = 0
    failed: int = 0
    cancelled: int = 0


class ProviderJobRead(BaseModel):
    """One job at a provider's batch API holding some of the batch's calls of one judge."""

    judge: str
    provider: str
    id: str | None = Field(description="the provider's batch id (none while being submitted)")
    state: str = Field(
        description=(
            "`submitting`, `unclear` (the submission's outcome is unknown: being looked up), "
            "`running`, `ended` (its results are stored as calls), `failed` (failed whole by "
            "the provider: its requests are submitted once more) or `abandoned` (no job was "
            "found after an unclear submission: its requests are sent again, at most 3 times)"
        )
    )
    provider_state: str | None = Field(description="the provider's own word for it")
    requests: int
    succeeded: int
    failed: int
    submitted_at: datetime | None
    ended_at: datetime | None
    expires_at: datetime | None


class BatchRead(BaseModel):
    """A batch's progress: status, counts, times and the judge cost so far."""

    id: str
    mode: BatchMode = "live"
    status: BatchStatusField
    total: int
    counts: BatchCounts
    progress: float = Field(description="share of items finished (completed, failed or cancelled)")
    calls: int = Field(description="judge calls stored so far")
    cost_usd: float = Field(description="cost of the priced judge calls stored so far")
    unpriced_calls: int = Field(
        0,
        description="answered calls whose judge has no prices (cost unknown, not in cost_usd)",
    )
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    cancelled_at: datetime | None
    provider_jobs: list[ProviderJobRead] = Field(
        default_factory=list, description="provider mode: the jobs at the providers' batch APIs"
    )
    workers: int | None = Field(
        None,
        description="while items are left: the processes running items now (`fairpair worker`s "
        "with Redis; the API process itself without); null when finished or it cannot tell",
    )
    hint: str | None = Field(None, description="what to do when nothing will run the items")
    rate_limited_until: datetime | None = Field(
        None,
        description="while items are left: until when some of them wait on a rate limit (a "
        "judge's `rpm`, or a provider's 429 and its Retry-After), so a wait does not look like "
        "a hang; null when none waits or it cannot tell",
    )


class BatchList(BaseModel):
    """A page of batches, newest first."""

    items: list[BatchRead]
    next_cursor: str | None


class ItemError(BaseModel):
    """Why an item failed: a problem type slug and a sentence."""

    type: str
    detail: str


class BatchItemRead(BaseModel):
    """One item's state and, once it ran, its comparison or score session."""

    position: int
    item_id: str | None
    kind: ItemKind
    status: ItemStatusField
    comparison_id: str | None
    score_session_id: str | None
    comparison: ComparisonRead | None
    score_session: ScoreSessionRead | None
    error: ItemError | None
    attempts: int
    started_at: datetime | None
    finished_at: datetime | None


class BatchItemList(BaseModel):
    """A page of a batch's items in submission order."""

    items: list[BatchItemRead]
    next_cursor: str | None
