"""The kernel's contract with a job kind: what a kind is given (`Services`, `Run`), what it must
say (`Kind`), what a job is as it runs (`Job`) and what it answers (`Outcome`); `Delivery`, what
one delivery of a batch item brings, and `Deferral`, how it hands calls to something outside;
`CallWriter`, how each call is stored as it completes. The lifecycle that drives a kind through
them is `app.jobs.lifecycle`; the kinds themselves are made once per process (the lifespan's
`State`, or the worker).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.db import Base
from app.errors import DATABASE_ERRORS
from app.jobs.closing import JobTables
from app.jobs.models import JobColumns
from app.jobs.slots import CallSlots, JudgePool
from app.jobs.writes import CallSink, GroupCommit, StagedCall
from app.judges.registry import JudgeRegistry, RuntimeJudge
from app.judging.base import JudgeClient
from app.privacy import TextKeeper

# A kind's types, named once: its validated request, its plan, its job row, the calls a killed
# delivery left (`reopen`), every call of the job (`run`), and its answer.
RequestT = TypeVar("RequestT", bound="JobRequest")
PlanT = TypeVar("PlanT")
RowT = TypeVar("RowT", bound=JobColumns)
StoredT = TypeVar("StoredT")
CallsT = TypeVar("CallsT")
ReadT = TypeVar("ReadT")
ReadCo = TypeVar("ReadCo", covariant=True)


@dataclass(frozen=True)
class Services:
    """The process-wide resources every job needs (made in the lifespan or the worker)."""

    settings: Settings
    sessionmaker: async_sessionmaker[AsyncSession]
    registry: JudgeRegistry
    pool: JudgePool
    writes: GroupCommit
    keeper: TextKeeper  # under the instance's stored salt (app/keyring/service.py)


class JobRequest(Protocol):
    """What the kernel reads of every kind's request."""

    judges: list[str] | None
    timeout_s: float | None
    tags: dict[str, str]

    def model_dump(self, *, mode: str) -> dict[str, Any]: ...


@dataclass
class Job(Generic[RequestT, PlanT, RowT]):
    """One job as it runs: its row (as inserted or reopened), its plan, the rows that hang off
    it (as inserted), its tags and the digest of its request."""

    row: RowT  # not attached to a session
    plan: PlanT
    request: RequestT
    digest: str
    dependents: dict[type[Base], list[dict[str, Any]]] = field(default_factory=dict)
    tags: dict[str, str] = field(default_factory=dict)
    values: dict[str, Any] = field(default_factory=dict)  # the row's columns, as inserted


@dataclass(frozen=True)
class Outcome(Generic[ReadT]):
    """The answer, and whether it was replayed from an earlier request with the same key."""

    answer: ReadT
    replayed: bool


class Kind(Protocol[RequestT, PlanT, RowT, StoredT, CallsT, ReadCo]):
    """What differs between a comparison and a score session, every member typed by the kind's
    own types (`CompareKind`: `Kind[CompareRequest, ComparisonPlan, Comparison, StoredCalls,
    StoredCalls, ComparisonRead]`)."""

    @property
    def tables(self) -> JobTables[RowT]:
        """Where its jobs and calls are stored."""
        ...

    @property
    def sink(self) -> CallSink:
        """Its calls in the write path."""
        ...

    @property
    def noun(self) -> str:
        """What a job of the kind is called in messages: "comparison", "score session"."""
        ...

    @property
    def failed_detail(self) -> str:
        """The 502's sentence when no judge produced a result."""
        ...

    @property
    def id_field(self) -> str:
        """The 502's extra member naming the job: "comparison_id"."""
        ...

    async def plan(
        self, request: RequestT, names: list[str], services: Services, session: AsyncSession
    ) -> PlanT:
        """Resolve the panel and plan the calls; every 422 comes from here."""
        ...

    def planned_calls(self, plan: PlanT) -> int:
        """How many judge calls the plan makes at most."""
        ...

    def row_values(self, request: RequestT, plan: PlanT, services: Services) -> dict[str, Any]:
        """The kind's own columns of its job row."""
        ...

    def dependents(
        self, request: RequestT, job_id: str, plan: PlanT, services: Services
    ) -> dict[type[Base], list[dict[str, Any]]]:
        """Rows inserted with the job row that refer to it (responses), tags excepted."""
        ...

    async def reopen(
        self, session: AsyncSession, row: RowT, request: RequestT, services: Services
    ) -> tuple[PlanT, StoredT]:
        """The stored plan of a job a killed delivery left (never a new one: audit draws must not
        change), and its stored calls."""
        ...

    async def run(
        self, job: Job[RequestT, PlanT, RowT], stored: StoredT | None, run: Run
    ) -> CallsT:
        """Every call of the job over the `stored` ones (None for a new job)."""
        ...

    def verdict(self, job: Job[RequestT, PlanT, RowT], calls: CallsT) -> dict[str, Any]:
        """The row's final columns, `status` first among them."""
        ...

    async def snapshot(
        self, job: Job[RequestT, PlanT, RowT], calls: CallsT, services: Services
    ) -> dict[str, Any]:
        """Columns read from elsewhere when the outcome is stored (may raise database errors)."""
        ...

    def answer(self, job: Job[RequestT, PlanT, RowT], calls: CallsT) -> ReadCo:
        """The answer from the job as it ran."""
        ...

    async def read(self, session: AsyncSession, row: RowT) -> ReadCo:
        """The answer from the stored rows."""
        ...


class Deferral(Protocol):
    """How one delivery hands some judges' calls to something outside (a provider's batch
    job) instead of making them: a deferred call raises `Deferred` from its client, the kind
    stops that judge there, and the kernel parks the job as `waiting`."""

    @property
    def seed(self) -> str:
        """The job's draws (labels, nonces) at every delivery: the same prompts each time, so a
        later delivery finds its answers by what it asks."""
        ...

    @property
    def deferred(self) -> bool:
        """Whether a call was handed on in this delivery."""
        ...

    def client(self, judge: RuntimeJudge) -> JudgeClient:
        """The client `judge`'s calls go through in this delivery."""
        ...


@dataclass(frozen=True)
class Delivery:
    """One delivery of a batch item, as its job takes it: the job's id (allocated at
    submission, so a redelivery reuses it), the key that submitted the batch, the `origin` its
    comparison is stored with (`canary` for a drift canary's run), and in provider mode the
    deferral that hands calls to a provider's batch job."""

    job_id: str
    api_key_id: str
    origin: str = "traffic"
    deferral: Deferral | None = None


@dataclass(frozen=True)
class Run:
    """What a kind's calls run under: the slots (pool, bound, deadline, draws), the writer,
    what the kind stores texts through and reads back with, and the deferral if any."""

    slots: CallSlots
    writer: CallWriter
    keeper: TextKeeper
    sessionmaker: async_sessionmaker[AsyncSession]
    deferral: Deferral | None = None

    def client_of(self, judge: RuntimeJudge) -> JudgeClient:
        """The client `judge`'s calls go through."""
        return self.deferral.client(judge) if self.deferral is not None else judge.client


class CallWriter:
    """Stores each call of one job as it completes, through the group commit; counts what the
    database did not take (the answer still carries those calls)."""

    def __init__(
        self, sink: CallSink, writes: GroupCommit, reserved: asyncio.Task[None] | None = None
    ) -> None:
        self.sink = sink
        self.writes = writes
        self.reserved = reserved  # the job row's insert, when it runs beside the judges
        self.unsaved = 0

    async def job_stored(self) -> bool:
        """Whether the job's row is in (the calls refer to it); waits for its insert."""
        if self.reserved is None:
            return True
        try:
            await asyncio.shield(self.reserved)
        except DATABASE_ERRORS:
            return False
        return True

    async def store(self, call: StagedCall) -> None:
        """Store one call. An IntegrityError (another delivery stored it first) is the kind's to
        resolve; a database that does not answer only counts the call as unsaved."""
        try:
            if await self.job_stored():
                await self.writes.store(self.sink, call)
                return
        except DATABASE_ERRORS:
            pass
        self.unsaved += 1
