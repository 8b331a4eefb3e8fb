"""The report's rollups: folded once per comparison after it stopped running, they give the
report that regrouping every call gives, for any window, filter, origin and backend; reopened
comparisons, purges and concurrent folders keep them exact. The traffic mixes callers'
comparisons with drift canaries' (`origin`)."""

from __future__ import annotations

import asyncio
import random
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, text, true, update

from app.comparisons.service import CompareKind
from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.jobs.models import UNFINISHED
from app.jobs.writes import GroupCommit, StagedCall, store_calls
from app.ledger import fold, folder
from app.ledger.callscope import CALL_COUNTS, CALL_SUMS, ReportFilters
from app.ledger.fold import OBSERVATION_ROLLUPS
from app.ledger.folder import prepare_report
from app.ledger.models import Comparison, ComparisonTag
from app.ledger.rollup_tables import (
    NEUTRAL_COLUMNS,
    OBSERVATION_COLUMNS,
    CallRollup,
    CallTagRollup,
    JudgeObservation,
    LengthRollup,
    LengthTagRollup,
    ObservationRollup,
    ObservationTagRollup,
)
from app.reports import queries
from app.reports.bias import build_report
from app.reports.rollups import CubeRow
from app.retention import purge
from app.schema import upgrade
from tests.reports.builders import BASE_TIME, StoredData
from tests.reports.oracle import generate
from tests.support.databases import create_database, drop_database, sqlalchemy_url
from tests.support.plans import parsed, plan_nodes, report_plans

# Edges inside the traffic (which spans BASE_TIME to about BASE_TIME + 47 h), on and off the hour.
WINDOWS: list[dict[str, Any]] = [
    {"since": BASE_TIME - timedelta(days=1)},
    {"since": BASE_TIME + timedelta(hours=5, minutes=13, seconds=7)},
    {"since": BASE_TIME + timedelta(hours=5), "until": BASE_TIME + timedelta(hours=30)},
    {
        "since": BASE_TIME + timedelta(hours=5, minutes=13),
        "until": BASE_TIME + timedelta(hours=30, minutes=41, seconds=2),
    },
    {
        "since": BASE_TIME + timedelta(hours=7, minutes=5),
        "until": BASE_TIME + timedelta(hours=7, minutes=55),
    },  # inside one hour
    {"since": BASE_TIME + timedelta(hours=3, minutes=30), "bucket": "hour"},
    {"since": BASE_TIME + timedelta(minutes=50), "tags": (("team", "a"),)},
    {"since": BASE_TIME + timedelta(minutes=50), "protocol": "adaptive"},
    {"since": BASE_TIME + timedelta(minutes=50), "judge": "j-open", "judge_version": 2},
    {
        "since": BASE_TIME + timedelta(hours=5, minutes=13),
        "until": BASE_TIME + timedelta(hours=30, minutes=41),
        "bucket": "hour",
    },  # hourly series, both edges inside hours
    {
        "since": BASE_TIME + timedelta(hours=2),
        "until": BASE_TIME + timedelta(hours=20),
        "protocol": "swap",
        "bucket": "hour",
    },  # both edges on the hour
    {
        "since": BASE_TIME + timedelta(minutes=50),
        "until": BASE_TIME + timedelta(hours=40, minutes=5),
        "judge": "j-anth",
        "tags": (("team", "b"),),
    },
    {"since": BASE_TIME + timedelta(minutes=50), "tags": (("team", "a"), ("env", "dev"))},
    # The canaries' comparisons alone, and both origins together.
    {"since": BASE_TIME + timedelta(hours=5, minutes=13, seconds=7), "origin": "canary"},
    {
        "since": BASE_TIME + timedelta(hours=5, minutes=13),
        "until": BASE_TIME + timedelta(hours=30, minutes=41),
        "bucket": "hour",
        "origin": "canary",
    },
    {"since": BASE_TIME + timedelta(minutes=50), "tags": (("team", "a"),), "origin": "canary"},
    {
        "since": BASE_TIME + timedelta(hours=2, minutes=30),
        "until": BASE_TIME + timedelta(hours=40, minutes=5),
        "origin": "all",
    },
    {"since": BASE_TIME + timedelta(minutes=50), "protocol": "swap", "origin": "all"},
]


def with_origins(data: StoredData, seed: int, canary_share: float = 0.3) -> StoredData:
    """Every comparison's origin: a random share of them drift canaries', the rest traffic."""
    rng = random.Random(seed)
    for comparison in data.comparisons:
        comparison["origin"] = "canary" if rng.random() < canary_share else "traffic"
    return data


@pytest.fixture(scope="module")
def traffic() -> StoredData:
    """The oracle's random traffic (three in ten comparisons a canary's), its calls spread over
    up to an hour after their comparison
    so that comparisons straddle hours and window edges, and one call in 20 up to 9 hours
    later (a comparison resumed much later: found through the long-span index)."""
    data = StoredData()
    generate(data, comparisons=300, seed=11)
    with_origins(data, seed=17)
    rng = random.Random(5)
    for call in data.calls:
        late = rng.randint(0, 9 * 3600) if rng.random() < 0.05 else rng.randint(0, 3600)
        call["started_at"] = call["finished_at"] = call["started_at"] + timedelta(seconds=late)
    return data


async def insert_in_pieces(
    url: str, data: StoredData, pieces: int = 4, one_by_one: bool = False
) -> None:
    """As the service writes them: the comparisons running while their calls arrive in shuffled
    pieces, a transaction each, through the one write path (`store_calls`: a piece's calls at
    once, or `one_by_one` a statement each), the folder running after each piece (it must leave
    running comparisons alone); then they stop and are folded, in several transactions. Then
    three in ten are reopened (taken out of the rollups), get their calls of the last piece,
    stop and are folded again."""
    calls = list(data.calls)
    random.Random(3).shuffle(calls)
    reopened = {row["id"] for row in data.comparisons if random.Random(row["id"]).random() < 0.3}
    late = [row for row in calls[pieces - 1 :: pieces] if row["comparison_id"] in reopened]
    early = [row for row in calls if not any(row is other for other in late)]
    engine = create_engine(url)
    sessionmaker = create_sessionmaker(engine)
    async with sessionmaker() as session:
        session.add_all(Comparison(**{**row, "status": "running"}) for row in data.comparisons)
        await session.flush()
        session.add_all(ComparisonTag(**row) for row in data.tags)
        await session.commit()

    async def store(rows: list[dict[str, Any]]) -> None:
        async with sessionmaker() as session:
            staged = [StagedCall(row) for row in rows]
            for part in [[row] for row in staged] if one_by_one else [staged]:
                await store_calls(session, CompareKind.sink, part)
            await session.commit()
            assert await folder.fold_backlog(session) == 0  # all of them are running

    async def stop(rows: list[dict[str, Any]]) -> None:
        async with sessionmaker() as session:
            for row in rows:
                status = {"status": row["status"]}
                await session.execute(
                    update(Comparison).where(Comparison.id == row["id"]).values(status)
                )
            await session.commit()
            stopped = [row for row in rows if row["status"] not in UNFINISHED]
            assert await folder.fold_backlog(session) == len(stopped)

    for piece in range(pieces - 1):
        await store(early[piece :: pieces - 1])
    await stop(data.comparisons)
    async with sessionmaker() as session:
        await fold.unfold(session, Comparison.id.in_(reopened))
        running = update(Comparison).where(Comparison.id.in_(reopened)).values(status="running")
        await session.execute(running)
        await session.commit()
    await store(late)
    await stop([row for row in data.comparisons if row["id"] in reopened])
    await engine.dispose()


async def report_pair(url: str, **filters: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """The report from the rollups and regrouped from the calls, without their timestamps."""
    engine = create_engine(url)
    reports = []
    try:
        for from_rollups in (True, False):
            async with create_sessionmaker(engine)() as session:
                report = await build_report(
                    session, ReportFilters(**filters), Settings(), rollups=from_rollups
                )
            reports.append(report.model_dump(exclude={"generated_at"}))
    finally:
        await engine.dispose()
    return reports[0], reports[1]


async def rollup_rows(url: str, *, rebuilt: bool = False) -> dict[str, list[Any]]:
    """Every rollup's rows in key order (counts at 0 left out: a fold may leave them), without
    the observations' `prev_*` columns (with the neutral judges' sums); `rebuilt`: as
    `fold.rebuild` recomputes them."""
    engine = create_engine(url)
    tables: dict[str, tuple[Any, Any, str | None]] = {
        "cube": (CallRollup, CallRollup.__table__.c, None),
        "tag_cube": (CallTagRollup, CallTagRollup.__table__.c, None),
        "observations": (
            JudgeObservation,
            [
                JudgeObservation.__table__.c[name]
                for name in (*OBSERVATION_COLUMNS, *NEUTRAL_COLUMNS)
            ],
            None,
        ),
        "observation_rollup": (ObservationRollup, ObservationRollup.__table__.c, "n"),
        "length_rollup": (LengthRollup, LengthRollup.__table__.c, "n"),
        "observation_tag_rollup": (ObservationTagRollup, ObservationTagRollup.__table__.c, "n"),
        "length_tag_rollup": (LengthTagRollup, LengthTagRollup.__table__.c, "n"),
    }
    try:
        async with create_sessionmaker(engine)() as session:
            if rebuilt:
                await fold.rebuild(session)
            rows = {}
            for name, (model, columns, count) in tables.items():
                query = select(*columns).order_by(*model.__table__.primary_key)
                if count is not None:
                    query = query.where(model.__table__.c[count] != 0)
                rows[name] = [tuple(r) for r in await session.execute(query)]
            await session.rollback()
    finally:
        await engine.dispose()
    return rows


async def sqlite_database(tmp_path: Path) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path}/fold.db"
    await asyncio.to_thread(upgrade, url)
    return url


@pytest.mark.parametrize("writer", ["together", "one_by_one"])
@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_the_report_from_rollups_equals_regrouping_the_calls(
    backend: str, writer: str, clean_pg: str, tmp_path: Path, traffic: StoredData
) -> None:
    url = clean_pg if backend == "postgresql" else await sqlite_database(tmp_path)
    await insert_in_pieces(url, traffic, one_by_one=writer == "one_by_one")
    stored = await rollup_rows(url)
    assert stored == await rollup_rows(url, rebuilt=True)
    assert origins_in(stored) == {name: {"traffic", "canary"} for name in stored}
    shown: set[str] = set()
    for window in WINDOWS:
        from_rollups, from_calls = await report_pair(url, **window)
        assert from_calls["judges"], window  # the window holds traffic
        assert from_rollups == from_calls, window
        for judge in from_calls["judges"]:  # Spearman reads only the filters' observations
            assert judge["length"]["n_used"] <= judge["length"]["n"], window
        shown |= sections_with_data(from_calls)
    # Every section the rollups feed was compared with data in it, not only as empty sections.
    assert shown == {"pairs", "length", "spearman", "self_preference", "hourly_series"}


def origins_in(rows: dict[str, list[Any]]) -> dict[str, set[str]]:
    """The origins each rollup holds rows of (every rollup row carries one)."""
    tables = {
        "cube": CallRollup,
        "tag_cube": CallTagRollup,
        "observations": JudgeObservation,
        "observation_rollup": ObservationRollup,
        "length_rollup": LengthRollup,
        "observation_tag_rollup": ObservationTagRollup,
        "length_tag_rollup": LengthTagRollup,
    }
    found = {}
    for name, table in tables.items():
        names = OBSERVATION_COLUMNS if table is JudgeObservation else table.__table__.c.keys()
        at = list(names).index("origin")
        found[name] = {row[at] for row in rows[name]}
    return found


def sections_with_data(report: dict[str, Any]) -> set[str]:
    """The rollup-fed parts of a report that hold data."""
    shown = set()
    for judge in report["judges"]:
        shown |= {"pairs"} if judge["consistency"]["pairs"] else set()
        shown |= {"length"} if judge["length"]["longer_win_n"] else set()
        shown |= {"spearman"} if judge["length"]["spearman"] is not None else set()
        shown |= {"self_preference"} if judge["self_preference"]["n"] else set()
    # Hours of this sparse traffic fold into days in the series, but are grouped by hour.
    if report["filters"]["bucket"] == "hour" and any(p["pairs"] for p in report["series"]):
        shown.add("hourly_series")
    return shown


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_the_migrations_fill_neutral_sums_and_tag_rollups_for_stored_observations(
    backend: str, tmp_path: Path, traffic: StoredData
) -> None:
    """A database folded by the code before the neutral sums and the tag rollups (revision
    c5e2a8f4d7b9), migrated to head, holds what a rebuild computes."""
    name = await create_database() if backend == "postgresql" else None
    url = sqlalchemy_url(name) if name else f"sqlite+aiosqlite:///{tmp_path / 'before.db'}"
    try:
        await asyncio.to_thread(upgrade, url, "c5e2a8f4d7b9")
        await traffic.insert(url)
        engine = create_engine(url)
        async with engine.begin() as connection:
            dialect = connection.dialect.name
            # The code of that revision: no cached calls, no token sums.
            folding = fold.fold_statements(dialect, true(), OBSERVATION_ROLLUPS, current=False)
            for statement in folding:
                await connection.execute(statement)
            await connection.execute(update(Comparison).values(folded=True))
        await engine.dispose()
        await asyncio.to_thread(upgrade, url)
        migrated = await rollup_rows(url)
        assert migrated["length_tag_rollup"]
        assert migrated["observation_tag_rollup"]
        assert any(row[-4] is not None for row in migrated["observations"])  # neutral_dec
        assert migrated == await rollup_rows(url, rebuilt=True)
    finally:
        if name:
            await drop_database(name)


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_a_reopened_comparison_left_in_the_rollups_is_caught(
    backend: str,
    clean_pg: str,
    tmp_path: Path,
    traffic: StoredData,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A comparison reopened without being taken out of the rollups is folded twice when it
    stops again: both checks above see it."""
    url = clean_pg if backend == "postgresql" else await sqlite_database(tmp_path)
    monkeypatch.setattr(fold, "unfold_statements", lambda dialect, ids, **_: [])
    await insert_in_pieces(url, traffic)
    stored, rebuilt = await rollup_rows(url), await rollup_rows(url, rebuilt=True)
    assert stored["cube"] != rebuilt["cube"]
    assert stored["observation_rollup"] != rebuilt["observation_rollup"]
    from_rollups, from_calls = await report_pair(url, **WINDOWS[0])
    assert from_rollups != from_calls


async def test_a_report_waits_for_the_comparisons_another_folder_is_folding(
    clean_pg: str,
) -> None:
    """A report begun while the loop of another process holds comparisons it is folding counts
    them: it waits for that fold instead of skipping them."""
    data = StoredData()
    for _ in range(3):
        data.swap("first", "second")
    await data.insert(clean_pg)
    engine = create_engine(clean_pg)
    try:
        async with create_sessionmaker(engine)() as holder:
            assert await fold.fold_pending(holder, 100) == 3  # folded, not committed yet
            reports = asyncio.create_task(report_pair(clean_pg, since=BASE_TIME - timedelta(1)))
            await asyncio.sleep(0.5)
            assert not reports.done()
            await holder.commit()
        from_rollups, from_calls = await reports
    finally:
        await engine.dispose()
    assert from_rollups == from_calls
    assert from_rollups["judges"][0]["calls"]["total"] == 6


async def test_the_folders_query_reads_the_partial_index_of_unfolded_comparisons(
    clean_pg: str,
) -> None:
    """Every folder tick and every report asks for the unfolded comparisons: through the
    partial index, never a scan of the whole table (sequential scans off, the plan shows
    whether the index can serve it at all)."""
    engine = create_engine(clean_pg)
    try:
        async with engine.connect() as connection:
            await connection.execute(text("SET enable_seqscan = off"))
            for skip_locked in (True, False):
                query = fold.pending_comparisons(500, skip_locked).compile(
                    connection, compile_kwargs={"literal_binds": True}
                )
                plan = await connection.execute(text(f"EXPLAIN {query}"))
                assert "ix_comparisons_unfolded" in "\n".join(row[0] for row in plan)
    finally:
        await engine.dispose()


async def test_self_preference_looks_up_neutral_judges_only_where_the_fold_cannot_know(
    clean_pg: str,
) -> None:
    """The fold keeps the neutral judges' sums on each conflicted observation: the report reads
    them, and looks the neutral judges' observations up (a subplan per row) only where one of
    them answered outside the window. EXPLAIN ANALYZE counts the lookups."""
    data = StoredData()
    late = BASE_TIME + timedelta(days=2)
    for neutral_at in (BASE_TIME, BASE_TIME, BASE_TIME, late):
        comparison_id = data.comparison(family_a="openai", family_b="google")
        data.swap("first", "second", judge="gpt", family="openai", role="audit",
                  comparison_id=comparison_id)  # fmt: skip
        data.swap("first", "first", judge="neutral", family="meta", comparison_id=comparison_id,
                  at=neutral_at)  # fmt: skip
    await data.insert(clean_pg)
    window = ReportFilters(since=BASE_TIME - timedelta(hours=1), until=BASE_TIME + timedelta(1))
    engine = create_engine(clean_pg)
    try:
        async with create_sessionmaker(engine)() as session:
            await prepare_report(session)
            obs = queries.observations(session, window, with_straddling=False)
            part = queries.self_preference_part(obs, window, correlated=True)
            compiled = part.compile(dialect=engine.dialect)
            parameters = tuple(compiled.params[name] for name in compiled.positiontup or ())
            connection = await session.connection()
            explain = f"EXPLAIN (ANALYZE, FORMAT JSON) {compiled.string}"
            rows = (await connection.exec_driver_sql(explain, parameters)).all()
            await session.rollback()
    finally:
        await engine.dispose()
    plan = parsed(rows[0][0])
    lookups = [node["Actual Loops"] for node in plan_nodes(plan[0]["Plan"]) if is_lookup(node)]
    assert lookups == [1, 1]  # n_dec and n_a, for the one comparison answered late


def is_lookup(node: dict[str, Any]) -> bool:
    """A subplan of self-preference's lookup of the neutral judges' observations."""
    return node.get("Parent Relationship") == "SubPlan" and any(
        below.get("Relation Name") == "judge_observations" for below in plan_nodes(node)
    )


async def test_the_length_section_reads_each_judges_rows_by_an_index_only_scan(
    clean_pg: str, traffic: StoredData
) -> None:
    """Each judge's recent length rollup rows are a range of the key, whose index includes the
    count: an index-only scan, never the table's pages (sequential scans off, the plan shows
    whether the index can serve it at all)."""
    await insert_in_pieces(clean_pg, traffic)
    plan, *_ = await report_plans(
        clean_pg,
        ReportFilters(since=BASE_TIME),
        lambda statement: "signed_lengths" in statement,
        "SET enable_seqscan = off",
    )
    assert "Index Only Scan using pk_length_rollup" in plan
    assert "Heap Scan on length_rollup" not in plan


async def test_running_comparisons_count_once_they_end(clean_pg: str) -> None:
    data = StoredData()
    running = data.swap("first", "second", comparison_id=data.comparison(status="running"))
    data.swap("first", "first")
    await data.insert(clean_pg)
    since = {"since": BASE_TIME - timedelta(hours=1)}
    from_rollups, from_calls = await report_pair(clean_pg, **since)
    assert from_rollups == from_calls
    assert from_rollups["judges"][0]["calls"]["total"] == 2
    engine = create_engine(clean_pg)
    async with engine.begin() as connection:
        await connection.execute(
            text("UPDATE comparisons SET status = 'complete' WHERE id = :id"), {"id": running}
        )
    await engine.dispose()
    from_rollups, from_calls = await report_pair(clean_pg, **since)
    assert from_rollups == from_calls
    assert from_rollups["judges"][0]["calls"]["total"] == 4


async def test_a_purge_keeps_the_rollups_exact(clean_pg: str, traffic: StoredData) -> None:
    await insert_in_pieces(clean_pg, traffic)
    engine = create_engine(clean_pg)
    async with create_sessionmaker(engine)() as session:
        purged = await purge(session, BASE_TIME + timedelta(hours=20), texts_only=False)
    await engine.dispose()
    assert purged.calls > 0
    assert await rollup_rows(clean_pg) == await rollup_rows(clean_pg, rebuilt=True)
    from_rollups, from_calls = await report_pair(clean_pg, since=BASE_TIME - timedelta(days=1))
    assert from_rollups == from_calls


@pytest.mark.parametrize("writer", ["together", "one_by_one"])
async def test_concurrent_folders_fold_each_comparison_once_without_deadlock(
    clean_pg: str, writer: str
) -> None:
    """Four processes' group commits, each with two transactions in flight, write calls in
    random orders; each comparison stops once its last call is stored, and four folders fold
    eight comparisons a transaction meanwhile, into the same few rollup rows."""
    data = StoredData()
    comparisons = [
        data.comparison(at=BASE_TIME + timedelta(minutes=i % 50), status="running")
        for i in range(200)
    ]
    for i, comparison_id in enumerate(comparisons):
        for judge in ("judge-a", "judge-b"):
            data.swap(
                "first",
                "second",
                judge=judge,
                comparison_id=comparison_id,
                label_pair=("P/Q", "X/Y")[i % 2],
                at=BASE_TIME + timedelta(minutes=i % 50),
            )
    await StoredData(comparisons=data.comparisons).insert(clean_pg)
    engine = create_engine(clean_pg)
    sessionmaker = create_sessionmaker(engine)
    writers = [GroupCommit(sessionmaker, max_flushes=2, max_batch=8) for _ in range(4)]
    calls = list(data.calls)
    random.Random(1).shuffle(calls)
    left = dict.fromkeys(comparisons, 4)
    writing = True

    async def write(i: int, row: dict[str, Any]) -> None:
        if writer == "one_by_one":  # a transaction a call
            async with sessionmaker() as session:
                await store_calls(session, CompareKind.sink, [StagedCall(row)])
                await session.commit()
        else:  # group-committed: one INSERT for the calls of a transaction
            await writers[i % len(writers)].store(CompareKind.sink, StagedCall(row))
        left[row["comparison_id"]] -= 1
        if not left[row["comparison_id"]]:
            async with sessionmaker() as session:
                stop = update(Comparison).where(Comparison.id == row["comparison_id"])
                await session.execute(stop.values(status="complete"))
                await session.commit()

    async def folding() -> int:
        folded = 0
        async with sessionmaker() as session:
            while writing or folded == 0:
                folded += await fold.fold_pending(session, 8)
                await session.commit()
                await asyncio.sleep(0)
            return folded + await folder.fold_backlog(session)

    folders = [asyncio.create_task(folding()) for _ in range(4)]
    await asyncio.gather(*(write(i, row) for i, row in enumerate(calls)))
    writing = False
    folded = await asyncio.gather(*folders)
    for group in writers:
        await group.aclose()
    await engine.dispose()
    assert sum(folded) == len(comparisons)
    stored = await rollup_rows(clean_pg)
    assert stored == await rollup_rows(clean_pg, rebuilt=True)
    calls_column = list(CallRollup.__table__.c.keys()).index("calls")
    assert sum(row[calls_column] for row in stored["cube"]) == len(calls)
    assert len(stored["observations"]) == 400


def test_cube_rows_keep_the_counts_in_the_queries_order() -> None:
    """`rollups.merged` reads rows by position: the counts follow the six keys in one order."""
    assert CubeRow._fields[6:] == (*CALL_COUNTS, *CALL_SUMS)


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
async def test_a_folder_that_waited_on_another_folds_nothing_twice(
    clean_pg: str, tmp_path: Path, backend: str
) -> None:
    """The second of two folders reads the pending comparisons while the first's fold is not
    committed yet (SQLite: it waits for the write lock; PostgreSQL: it skips the locked rows).
    Either way, once the first commits, the second folds nothing: the calls count once (on
    SQLite, the second folded them again, and a report of the embedded default counted 80
    calls of 40)."""
    url = clean_pg if backend == "postgresql" else await sqlite_database(tmp_path)
    data = StoredData()
    for _ in range(3):
        data.swap("first", "second")
    await data.insert(url)
    engine = create_engine(url)
    sessionmaker = create_sessionmaker(engine)
    try:
        async with sessionmaker() as first, sessionmaker() as second:
            assert await fold.fold_pending(first, 100) == 3  # folded, not committed yet
            waiting = asyncio.create_task(fold.fold_pending(second, 100))
            await asyncio.sleep(0.3)  # the second reads (or waits) before the first commits
            await first.commit()
            assert await asyncio.wait_for(waiting, 20) == 0
            await second.commit()
        stored = await rollup_rows(url)
        calls_column = list(CallRollup.__table__.c.keys()).index("calls")
        assert sum(row[calls_column] for row in stored["cube"]) == 6
    finally:
        await engine.dispose()
