"""One lifecycle for every kind of job (app/jobs): where the copies for comparisons and score
sessions used to disagree, both kinds now behave the same, over HTTP on PostgreSQL."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from sqlalchemy import update

from app.batches.models import BatchItem, ItemStatus
from app.comparisons.service import CompareKind
from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.jobs.closing import JobTables, sweep
from app.jobs.models import JobStatus
from app.ledger.models import Comparison, JudgeCall
from app.scoring.models import ScoreCall, ScoreSession
from app.scoring.service import ScoreKind
from tests.comparisons.test_compare_api import BODY as COMPARE_BODY
from tests.scoring.test_score_api import BODY as SCORE_BODY
from tests.scoring.test_score_api import PANEL

KINDS: list[JobTables[Any]] = [CompareKind.tables, ScoreKind.tables]


@dataclass(frozen=True)
class KindUnderTest:
    """How a test drives one kind over HTTP and reaches its rows."""

    name: str
    path: str  # POST
    read: str  # GET, with {id}
    body: dict[str, Any]
    judges: str | None
    job: Any
    call: Any
    answer: Any  # a call's column that holds its answer


KIND_PARAMS = [
    KindUnderTest("compare", "/v1/compare", "/v1/comparisons/{id}", COMPARE_BODY, None,
                  Comparison, JudgeCall, JudgeCall.pick),
    KindUnderTest("score", "/v1/score", "/v1/score-sessions/{id}", SCORE_BODY, PANEL,
                  ScoreSession, ScoreCall, ScoreCall.scores),
]  # fmt: skip


@pytest.fixture(params=KIND_PARAMS, ids=lambda k: k.name)
def kind(request: pytest.FixtureRequest) -> KindUnderTest:
    return request.param  # type: ignore[no-any-return]


@pytest.fixture
async def api(
    kind: KindUnderTest,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> httpx2.AsyncClient:
    settings = settings_factory(kind.judges) if kind.judges else settings_factory()
    client: httpx2.AsyncClient = await live_factory(settings)
    return client


async def set_row(url: str, kind: KindUnderTest, job_id: str, **values: Any) -> None:
    """Change a stored job as a killed process (or the clock) would have left it."""
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        await session.execute(update(kind.job).where(kind.job.id == job_id).values(**values))
        await session.commit()
    await engine.dispose()


async def unanswer_calls(url: str, kind: KindUnderTest, job_id: str) -> None:
    """Make every stored call of the job one that failed (a scoring call's missing scores are
    stored as JSON null, not SQL NULL: the kernel must still see it unanswered)."""
    engine = create_engine(url)
    owner = kind.call.comparison_id if kind.call is JudgeCall else kind.call.session_id
    async with create_sessionmaker(engine)() as session:
        await session.execute(
            update(kind.call)
            .where(owner == job_id)
            .values({kind.answer.key: None, "error_kind": "server_error"})
        )
        await session.commit()
    await engine.dispose()


def orphaned() -> dict[str, Any]:
    """A job a killed process left running, five minutes past its deadline."""
    past = utcnow() - timedelta(minutes=5)
    return {"status": "running", "completed_at": None, "deadline_at": past}


async def post(
    api: httpx2.AsyncClient, kind: KindUnderTest, headers: dict[str, str], key: str | None = None
) -> httpx2.Response:
    with_key = {**headers, "Idempotency-Key": key} if key else headers
    return await api.post(kind.path, headers=with_key, json=kind.body)


async def orphan(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], url: str, key: str | None
) -> str:
    """A job answered over HTTP, then left as a killed process leaves it; its id."""
    first = await post(api, kind, admin, key)
    assert first.status_code == 200
    job_id: str = first.json()["id"]
    await set_row(url, kind, job_id, **orphaned())
    return job_id


async def test_an_orphan_with_a_result_is_closed_and_replayed_on_replay(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], clean_pg: str
) -> None:
    job_id = await orphan(api, kind, admin, clean_pg, "k-1")
    again = await post(api, kind, admin, "k-1")
    assert again.status_code == 200
    assert again.headers.get("Idempotent-Replayed") == "true"
    assert again.json()["id"] == job_id
    assert (again.json()["status"], again.json()["error_kind"]) == ("partial", "interrupted")


async def test_an_orphan_without_a_result_releases_its_key_like_a_failed_job(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], clean_pg: str
) -> None:
    job_id = await orphan(api, kind, admin, clean_pg, "k-1")
    await unanswer_calls(clean_pg, kind, job_id)
    again = await post(api, kind, admin, "k-1")
    assert again.status_code == 200
    assert "Idempotent-Replayed" not in again.headers  # ran afresh
    assert again.json()["id"] != job_id
    assert again.json()["status"] == "complete"
    closed = (await api.get(kind.read.format(id=job_id), headers=admin)).json()
    assert (closed["status"], closed["error_kind"]) == ("failed", "interrupted")


async def test_an_orphan_is_closed_when_read(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], clean_pg: str
) -> None:
    job_id = await orphan(api, kind, admin, clean_pg, None)
    read = (await api.get(kind.read.format(id=job_id), headers=admin)).json()
    assert (read["status"], read["error_kind"]) == ("partial", "interrupted")


async def test_a_conflict_in_progress_answers_retry_after_with_the_work_left(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], clean_pg: str
) -> None:
    first = await post(api, kind, admin, "k-1")
    assert first.status_code == 200
    # Running for a minute of its 90 s: 30 s are left, not the whole deadline.
    now = utcnow()
    await set_row(
        clean_pg,
        kind,
        first.json()["id"],
        status="running",
        timeout_s=90,
        created_at=now - timedelta(seconds=60),
        deadline_at=now + timedelta(seconds=30),
    )
    again = await post(api, kind, admin, "k-1")
    assert again.status_code == 409
    assert again.json()["type"].endswith("idempotency-in-progress")
    assert 25 <= int(again.headers["Retry-After"]) <= 31


async def test_a_conflict_in_progress_retries_after_the_typical_duration_not_the_deadline(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], clean_pg: str
) -> None:
    """Keyed jobs of this kind took 4 s; one has run 1 s of its 30 s deadline: the repeat is
    told about 3 s, not the 29 s its deadline leaves (issue 37)."""
    now = utcnow()
    for index in range(5):
        done = await post(api, kind, admin, f"done-{index}")
        assert done.status_code == 200
        start = now - timedelta(minutes=10, seconds=index)
        finished = {"created_at": start, "completed_at": start + timedelta(seconds=4)}
        await set_row(clean_pg, kind, done.json()["id"], **finished)
    first = await post(api, kind, admin, "k-1")
    assert first.status_code == 200
    now = utcnow()
    running = {"status": "running", "completed_at": None, "timeout_s": 30}
    await set_row(
        clean_pg,
        kind,
        first.json()["id"],
        **running,
        created_at=now - timedelta(seconds=1),
        deadline_at=now + timedelta(seconds=29),
    )
    again = await post(api, kind, admin, "k-1")
    assert again.status_code == 409
    assert 2 <= int(again.headers["Retry-After"]) <= 4, again.headers["Retry-After"]
    # Past the typical duration it backs off by half the time run so far, within the deadline.
    await set_row(clean_pg, kind, first.json()["id"], created_at=now - timedelta(seconds=20))
    later = await post(api, kind, admin, "k-1")
    assert 9 <= int(later.headers["Retry-After"]) <= 11, later.headers["Retry-After"]


async def test_a_waiting_job_is_not_swept(
    api: httpx2.AsyncClient, kind: KindUnderTest, admin: dict[str, str], clean_pg: str
) -> None:
    first = await post(api, kind, admin)
    job_id = first.json()["id"]
    await set_row(clean_pg, kind, job_id, **{**orphaned(), "status": JobStatus.WAITING})
    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    assert await sweep(maker, KINDS, grace_s=0) == 0
    async with maker() as session:
        row = await session.get(kind.job, job_id)
        assert row is not None
        assert (row.status, row.error_kind) == (JobStatus.WAITING, None)
    await engine.dispose()


async def test_a_batch_item_waiting_on_something_outside_is_not_requeued(clean_pg: str) -> None:
    from app.batches import leases
    from app.batches.models import Batch

    engine = create_engine(clean_pg)
    maker = create_sessionmaker(engine)
    past = utcnow() - timedelta(hours=1)
    async with maker() as session:
        session.add(Batch(id="b-1", request_hash="h", item_count=1))
        await session.flush()
        session.add(BatchItem(id="i-1", batch_id="b-1", position=0, kind="compare",
                              target_id="c-1", status=ItemStatus.WAITING, lease_owner="gone",
                              lease_expires_at=past, enqueued_at=past, attempts=1))  # fmt: skip
        await session.commit()
    assert await leases.requeue_expired(maker) == []
    assert await leases.requeue_waiting(maker, utcnow()) == []
    await engine.dispose()
