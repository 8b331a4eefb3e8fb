"""The job lifecycle, once for every kind: replay → prepare → reserve → run shielded → finish.

The rule: *the kernel owns the job row, the kind owns its calls*. A kind (a comparison, a score
session) says how to plan, which columns its row has, how to run its calls over those already
stored, what its row says when they are done, and how to read it (`Kind`). The kernel does the
rest the same way for each: the Idempotency-Key, the synchronous limits and pool admission,
inserting the row, the deadline, closing a cancelled job, storing the outcome (group-committed)
or answering 503 `not_persisted` when the database took the judges' work but not the result.

A batch item runs the same lifecycle under the id allocated at submission (`run_item`); a
delivery after a killed one reopens the job with its stored plan, and the kind asks only for the
calls still missing. A delivery may hand calls to something outside (`Deferral`: a provider's
batch job); the job then `waits`, held by no process, until a later delivery finds the answers.

The contract with the kinds is `app.jobs.kind`; how a route answers a job, `app.jobs.http`.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import timedelta
from functools import lru_cache
from typing import Any

from pydantic import BaseModel
from sqlalchemy import Table, Update, bindparam, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncSession

from app.auth.keys import Principal
from app.config import Settings
from app.db import utcnow
from app.errors import (
    DATABASE_ERRORS,
    JudgesFailed,
    NotFound,
    ServiceUnavailable,
    TooManyCalls,
    ValidationProblem,
)
from app.jobs import closing, idempotency
from app.jobs.closing import JobTables
from app.jobs.kind import (
    CallsT,
    CallWriter,
    Deferral,
    Delivery,
    Job,
    JobRequest,
    Kind,
    Outcome,
    PlanT,
    ReadT,
    RequestT,
    RowT,
    Run,
    Services,
    StoredT,
)
from app.jobs.models import UNFINISHED, JobColumns, JobStatus
from app.jobs.slots import CallSlots
from app.jobs.writes import (
    GroupCommit,
    Rows,
    Work,
    insert_rows,
)

# Steps that need nothing of a kind's own types.
AnyKind = Kind[Any, Any, Any, Any, Any, Any]
AnyJob = Job[Any, Any, Any]


def timeout_of(request: JobRequest, settings: Settings) -> float:
    """The job's deadline in seconds: its own, capped by the setting."""
    if request.timeout_s is not None and request.timeout_s > settings.compare_timeout_s:
        raise ValidationProblem(f"/timeout_s: at most {settings.compare_timeout_s} seconds")
    return request.timeout_s or settings.compare_timeout_s


def draw_seed(settings: Settings, digest: str) -> str | None:
    """Reproducible draws per request when `draw_seed` is set (tests, benchmarks)."""
    return f"{settings.draw_seed}:{digest}" if settings.draw_seed is not None else None


async def run_request(
    kind: Kind[RequestT, PlanT, RowT, StoredT, CallsT, ReadT],
    request: RequestT,
    principal: Principal,
    idempotency_key: str | None,
    services: Services,
) -> Outcome[ReadT]:
    """A synchronous request, end to end; every call is stored as it completes."""
    key = idempotency.stored_key(idempotency_key, services.keeper)
    digest = idempotency.request_hash(request)
    if key:
        replay = await find_replay(kind, principal.key_id, key, digest, services)
        if replay is not None:
            return Outcome(replay, replayed=True)
    settings = services.settings
    names = services.registry.panel_or_default(request.judges)
    if len(names) > settings.max_panel:
        raise TooManyCalls(f"at most {settings.max_panel} judges per request; use /v1/batches")
    timeout_s = timeout_of(request, settings)
    async with services.sessionmaker() as session:
        plan = await kind.plan(request, names, services, session)
        planned = kind.planned_calls(plan)
        if planned > settings.max_sync_calls:
            raise TooManyCalls(
                f"{planned} planned judge calls exceed {settings.max_sync_calls}; "
                "use /v1/batches for larger jobs"
            )
        services.pool.admit(planned)
        job_id, key_id = str(uuid.uuid4()), principal.key_id
        job = new_job(kind, request, plan, job_id, key_id, key, digest, timeout_s, services)
        if key:
            # The key is taken before any judge is paid; planning and reserving, one commit.
            await reserve(kind, job, session)
    # Without a key there is nothing to reserve: the row is written while the judges think (off
    # the answer's path, in one INSERT with other new jobs' rows), and each call's write waits
    # for it. Riding with the first call instead made the second wait for the first's commit,
    # which split a swap pair into two transactions and folded the rollups twice.
    reserved = None
    if not key:
        reserved = asyncio.create_task(services.writes.commit(Work(rows=job_rows(kind, job))))
    writer = CallWriter(kind.sink, services.writes, reserved)
    answer = await finish(
        kind, job, await run_calls(kind, job, None, writer, services), writer, services
    )
    if job.row.status == JobStatus.FAILED:
        raise JudgesFailed(kind.failed_detail, extra={kind.id_field: job.row.id})
    return Outcome(answer, replayed=False)


async def run_item(
    kind: Kind[RequestT, PlanT, RowT, StoredT, CallsT, ReadT],
    request: RequestT,
    delivery: Delivery,
    services: Services,
) -> tuple[ReadT | None, str]:
    """A batch item's job under the id allocated at submission: (answer, status).

    A finished job is read back. One that a killed delivery left running (or that was closed as
    interrupted, or that waits on a provider) is reopened with its stored plan, its calls kept.
    Two deliveries racing to insert a new one means two processes hold the item: the loser's
    IntegrityError ends its attempt, and the item's lease decides who carries on. With a
    `deferral` that took calls, the job is left `waiting` and there is no answer yet.
    """
    job_id, deferral = delivery.job_id, delivery.deferral
    timeout_s = timeout_of(request, services.settings)
    digest = idempotency.request_hash(request)
    async with services.sessionmaker() as session:
        found = await session.get(kind.tables.job, job_id)
        if found is not None and not needs_run(found):
            return await kind.read(session, found), found.status
        if found is None:
            names = services.registry.panel_or_default(request.judges)
            plan = await kind.plan(request, names, services, session)
            job = new_job(
                kind,
                request,
                plan,
                job_id,
                delivery.api_key_id,
                None,
                digest,
                timeout_s,
                services,
                origin=delivery.origin,
            )
            await insert_job(kind, job, await session.connection())
            await session.commit()
            stored = None
        else:
            plan, stored = await kind.reopen(session, found, request, services)
            job = Job(found, plan, request, digest, tags=services.keeper.tags(request.tags))
            await reopen(kind, job, timeout_s, session)
    writer = CallWriter(kind.sink, services.writes)
    calls = await run_calls(kind, job, stored, writer, services, deferral)
    if deferral is not None and deferral.deferred:
        await wait_outside(kind.tables, job, writer, services)
        return None, JobStatus.WAITING
    return await finish(kind, job, calls, writer, services), job.row.status


def needs_run(row: JobColumns) -> bool:
    """Whether a delivery must (re)run a job: still running, waiting on a provider, or closed
    by an interruption."""
    return row.status in UNFINISHED or row.error_kind == "interrupted"


def new_job(
    kind: Kind[RequestT, PlanT, RowT, Any, Any, Any],
    request: RequestT,
    plan: PlanT,
    job_id: str,
    api_key_id: str,
    idempotency_key: str | None,
    digest: str,
    timeout_s: float,
    services: Services,
    *,
    origin: str = "traffic",
) -> Job[RequestT, PlanT, RowT]:
    """A job not stored yet, `running`; its key as stored. A comparison records its `origin`
    (a caller's request is always `traffic`); a score session has none."""
    keeper, now = services.keeper, utcnow()
    values = {
        "id": job_id,
        "created_at": now,
        "deadline_at": now + timedelta(seconds=timeout_s),
        "status": JobStatus.RUNNING,
        "api_key_id": api_key_id,
        "idempotency_key": idempotency_key,
        # Its HMAC in privacy mode: a plain hash would confirm a guessed request.
        "request_hash": keeper.token(digest),
        "timeout_s": timeout_s,
        **kind.row_values(request, plan, services),
        **_origin_value(kind, origin),
    }
    row = kind.tables.job(**values)
    dependents = kind.dependents(request, job_id, plan, services)
    return Job(row, plan, request, digest, dependents, keeper.tags(request.tags), values)


def _origin_value(kind: AnyKind, origin: str) -> dict[str, str]:
    """`origin` for a job table that has the column (comparisons), always set so that the
    rows grouped into one INSERT share their columns; nothing for one that has not."""
    table = kind.tables.job
    if "origin" in table.__table__.c:
        return {"origin": origin}
    if origin != "traffic":
        raise ValueError(f"{kind.noun} rows carry no origin; cannot store {origin!r}")
    return {}


def job_rows(kind: AnyKind, job: AnyJob) -> Rows:
    """The job's row, its dependents and its tags, as Core INSERTs take them (the ORM's unit of
    work for one new row of 30 columns cost more CPU than the statement; the answer is built
    from the transient row holding the same values)."""
    tags = [{"key": k, "value": v} for k, v in job.tags.items()]
    dependents = {**job.dependents}
    if tags:
        tag_table, job_column = kind.tables.tags
        dependents[tag_table] = [{job_column: job.row.id, **tag} for tag in tags]
    return [(kind.tables.job, [job.values]), *dependents.items()]


async def insert_job(kind: AnyKind, job: AnyJob, connection: AsyncConnection) -> None:
    """Insert the job's rows (`job_rows`) in the connection's transaction."""
    await insert_rows(connection, job_rows(kind, job))


async def reserve(kind: AnyKind, job: AnyJob, session: AsyncSession) -> None:
    """Insert and commit the job (409 when its key was taken meanwhile)."""
    try:
        await insert_job(kind, job, await session.connection())
        await session.commit()
    except IntegrityError as exc:  # a concurrent request holds the same key
        await session.rollback()
        holder = await idempotency.find_holder(
            session, kind.tables.job, job.row.api_key_id, job.row.idempotency_key
        )
        raise await idempotency.in_progress(session, kind.tables.job, holder) from exc


async def reopen(kind: AnyKind, job: AnyJob, timeout_s: float, session: AsyncSession) -> None:
    """Mark a stored job running again with a fresh deadline."""
    values = {
        "status": JobStatus.RUNNING,
        "error_kind": None,
        "completed_at": None,
        "deadline_at": utcnow() + timedelta(seconds=timeout_s),
    }
    table = kind.tables.job
    await session.execute(update(table).where(table.id == job.row.id).values(**values))
    await session.commit()
    for name, value in values.items():
        setattr(job.row, name, value)


async def find_replay(
    kind: Kind[Any, Any, Any, Any, Any, ReadT],
    key_id: str,
    key: str,
    digest: str,
    services: Services,
) -> ReadT | None:
    """The stored answer for a repeated Idempotency-Key, or None to run afresh."""
    async with services.sessionmaker() as session:
        row = await idempotency.find_holder(session, kind.tables.job, key_id, key)
        if row is None:
            return None
        await closing.close_if_orphaned(session, kind.tables, row, services.settings.sweep_grace_s)
        if row.status == JobStatus.RUNNING:
            raise await idempotency.in_progress(session, kind.tables.job, row)
        if row.idempotency_key is None:  # closed without a result: the key is released
            return None
        idempotency.check_body(row, services.keeper.token(digest))
        return await kind.read(session, row)


async def run_calls(
    kind: Kind[RequestT, PlanT, RowT, StoredT, CallsT, Any],
    job: Job[RequestT, PlanT, RowT],
    stored: StoredT | None,
    writer: CallWriter,
    services: Services,
    deferral: Deferral | None = None,
) -> CallsT:
    """Run the kind's calls (each stored as it completes); a cancelled run closes the job."""
    settings = services.settings
    seed = draw_seed(settings, job.digest)
    if seed is None and deferral is not None:
        seed = deferral.seed
    slots = CallSlots(services.pool, settings.max_request_concurrency, job.row.timeout_s, seed)
    try:
        run = Run(slots, writer, services.keeper, services.sessionmaker, deferral)
        return await kind.run(job, stored, run)
    except asyncio.CancelledError:
        # Shutdown cancelled the calls: keep what was stored and close the job.
        await asyncio.shield(close_cancelled(kind, job, writer, services))
        raise


async def wait_outside(
    tables: JobTables[Any], job: AnyJob, writer: CallWriter, services: Services
) -> None:
    """Park a job whose calls were handed to a provider: `waiting`, held by no process (the
    sweeper leaves it), once the calls it did make are stored."""
    if writer.unsaved or not await writer.job_stored():
        raise ServiceUnavailable("the database did not take this delivery's calls")
    table = tables.job
    async with services.sessionmaker() as session:
        await session.execute(
            update(table).where(table.id == job.row.id).values(status=JobStatus.WAITING)
        )
        await session.commit()
    job.row.status = JobStatus.WAITING


async def close_cancelled(
    kind: AnyKind, job: AnyJob, writer: CallWriter, services: Services
) -> None:
    """`closing.mark_interrupted` for the job, once (and if) its row is in."""
    if await writer.job_stored():
        await closing.mark_interrupted(
            services.sessionmaker, kind.tables, job.row.id, services.writes
        )


async def finish(
    kind: Kind[RequestT, PlanT, RowT, Any, CallsT, ReadT],
    job: Job[RequestT, PlanT, RowT],
    calls: CallsT,
    writer: CallWriter,
    services: Services,
) -> ReadT:
    """Write the job's final columns last, and answer; 503 when they could not be stored."""
    values = {**kind.verdict(job, calls), "completed_at": utcnow()}
    if values["status"] == JobStatus.FAILED:
        values["idempotency_key"] = None  # a failed outcome releases the key
    stored = writer.unsaved == 0 and await writer.job_stored()
    try:
        if stored and values["status"] != JobStatus.FAILED:
            values.update(await kind.snapshot(job, calls, services))
        stored = stored and await write_final(kind.tables, job.row.id, values, services.writes)
    except DATABASE_ERRORS:
        stored = False
    for name, value in values.items():
        setattr(job.row, name, value)
    answer = kind.answer(job, calls)
    if not stored:
        raise ServiceUnavailable(
            "the judges answered but the database is unreachable; the result is not stored",
            headers={"Retry-After": "5"},
            extra={"not_persisted": True, "result": as_json(answer)},
        )
    return answer


async def write_final(
    tables: JobTables[Any], job_id: str, values: dict[str, Any], writes: GroupCommit
) -> bool:
    """Store the final columns (under load, in one executemany with other jobs'); False when
    the database is unreachable."""
    table = tables.job
    final = final_update(table.__table__, tuple(values)), final_parameters(job_id, values)
    try:
        await writes.commit(Work(updates=[final]))
    except DATABASE_ERRORS:
        return False
    return True


def final_parameters(job_id: str, values: dict[str, Any]) -> dict[str, Any]:
    """`final_update`'s parameters for a job's final columns."""
    return {"job_id": job_id, **{f"new_{name}": value for name, value in values.items()}}


@lru_cache(maxsize=16)
def final_update(table: Table, columns: tuple[str, ...]) -> Update:
    """The UPDATE of a job's final columns, built once per set of columns: building it per job
    made SQLAlchemy walk every value for the statement's cache key."""
    return (
        update(table)
        .where(table.c.id == bindparam("job_id"))
        .values({name: bindparam(f"new_{name}") for name in columns})
    )


def as_json(answer: Any) -> Any:
    """An answer as the 503's `result` member carries it."""
    return answer.model_dump(mode="json") if isinstance(answer, BaseModel) else answer


async def read_job(
    kind: Kind[Any, Any, Any, Any, Any, ReadT], session: AsyncSession, job_id: str, grace_s: float
) -> ReadT:
    """A stored job's answer (404 when there is none); a job a killed process left running is
    closed first."""
    row = await session.get(kind.tables.job, job_id)
    if row is None:
        raise NotFound(f"no {kind.noun} with id '{job_id}'")
    await closing.close_if_orphaned(session, kind.tables, row, grace_s)
    return await kind.read(session, row)
