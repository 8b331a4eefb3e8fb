"""Benchmark: the bias report over 1,000,000 stored judge calls on a fresh PostgreSQL database.

    .venv/bin/python bench/bench_report.py [--calls 1000000] [--runs 5] [--keep | --reuse NAME]
        [--statements N] [--no-baseline] [--labelled N]

Creates a database (FAIRPAIR_BENCH_POSTGRES, default postgresql://root@127.0.0.1:5432), migrates
it, loads synthetic traffic with COPY (5 judges, swap pairs plus some adaptive escalations,
5% placebo, 5% failures, conflicted judges only as 5% audits, two tags per comparison, over
29 days), folds them into the report's rollups (COPY bypasses the job kernel, whose folder folds
each comparison once it stopped running: `call_rollup`, `judge_observations` and the
observations' `observation_rollup` and `length_rollup`; `fold.rebuild` marks them folded),
runs VACUUM ANALYZE as autovacuum would, then times `build_report` with the route's defaults
(last 30 days, every judge), with a judge and tag filter, with hourly buckets, and, as the
baseline, the default regrouping every call instead of reading the rollups; prints p50 and max.
The load has no human label; `--labelled N` replaces the labels by N labelled comparisons first.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import asyncpg
import numpy as np
from sqlalchemy import event

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.ledger import fold as ledger_fold
from app.ledger.callscope import ReportFilters
from app.reports.bias import build_report
from app.schema import upgrade
from tests.support.provision import rerun_unless_postgres_answers

SERVER = os.environ.get("FAIRPAIR_BENCH_POSTGRES", "postgresql://root@127.0.0.1:5432")
JUDGES = [
    ("judge-gpt", "openai"),
    ("judge-claude", "anthropic"),
    ("judge-gemini", "google"),
    ("judge-llama", "meta"),
    ("judge-local", None),
]
FAMILIES = np.array(["openai", "anthropic", "google", "meta", None], dtype=object)
LABEL_PAIRS = [("X", "Y"), ("P", "Q"), ("K", "M"), ("R", "S"), ("F", "H")]
PICKS = np.array(["first", "second", "tie", None], dtype=object)
TEXT = "An answer of ordinary length that says a few plausible things about the question. " * 4


async def admin(sql: str) -> None:
    """Run one statement on the server's maintenance database."""
    connection = await asyncpg.connect(SERVER + "/postgres")
    try:
        await connection.execute(sql)
    finally:
        await connection.close()


def comparison_rows(
    count: int, now: datetime, rng: np.random.Generator
) -> list[tuple[object, ...]]:
    """Synthetic comparisons: lengths, placebo, families, protocol, spread over 29 days."""
    offsets = np.sort(rng.uniform(0, 29 * 86400, count))[::-1]
    len_a, len_b = rng.integers(50, 3000, count), rng.integers(50, 3000, count)
    placebo = rng.random(count) < 0.05
    fam_a, fam_b = rng.choice(FAMILIES, count), rng.choice(FAMILIES, count)
    adaptive = rng.random(count) < 0.2
    rows: list[tuple[object, ...]] = []
    for i in range(count):
        at = now - timedelta(seconds=float(offsets[i]))
        b = int(len_a[i]) if placebo[i] else int(len_b[i])
        rows.append(
            (
                str(uuid.UUID(int=int(rng.integers(0, 2**63)) << 64 | i)),
                at,
                at,
                at,
                "complete",
                "",
                "0" * 64,
                "A question?",
                TEXT,
                TEXT if placebo[i] else TEXT[::-1],
                int(len_a[i]),
                b,
                bool(placebo[i]),
                fam_a[i],
                fam_b[i],
                "adaptive" if adaptive[i] else "swap",
                json.dumps({"kind": "swap"}),
                2,
                "audit",
                120.0,
                "A",
                json.dumps({"judges": [], "excluded": []}),
                False,
                True,
            )
        )
    return rows


COMPARISON_COLUMNS = [
    "id",
    "created_at",
    "completed_at",
    "deadline_at",
    "status",
    "api_key_id",
    "request_hash",
    "prompt",
    "response_a",
    "response_b",
    "len_a",
    "len_b",
    "placebo",
    "family_a",
    "family_b",
    "protocol",
    "protocol_params",
    "planned_rounds",
    "self_preference",
    "timeout_s",
    "winner",
    "panel",
    "self_preference_risk",
    "simulated",
]
CALL_COLUMNS = [
    "comparison_id",
    "judge_name",
    "judge_version",
    "judge_config_hash",
    "judge_family",
    "role",
    "protocol",
    "round",
    "design",
    "display_order",
    "label_pair",
    "label_a",
    "label_b",
    "first_slot_second_label",
    "template_hash",
    "nonces",
    "anonymized_replacements",
    "provider_model",
    "raw_output",
    "pick",
    "mapped_winner",
    "confidence",
    "confidence_source",
    "latency_ms",
    "started_at",
    "finished_at",
    "retries",
    "error_kind",
]


def call_rows(
    comparisons: list[tuple[object, ...]], target: int, rng: np.random.Generator
) -> list[tuple[object, ...]]:
    """Swap pairs of every judge on every comparison, escalated adaptive rounds, until target."""
    rows: list[tuple[object, ...]] = []
    picks = rng.choice(PICKS, size=target + 16, p=[0.5, 0.35, 0.1, 0.05])
    labels = rng.integers(0, len(LABEL_PAIRS), target + 16)
    swapped = rng.random(target + 16) < 0.5
    audit = rng.random(len(comparisons) * len(JUDGES)) < 0.05
    k = 0
    for i, comparison in enumerate(comparisons):
        cid, at, protocol = comparison[0], comparison[1], comparison[15]
        rounds = 4 if protocol == "adaptive" else 2
        for version, (judge, family) in enumerate(JUDGES):
            # Under the default policy a conflicted judge runs only as a 5% audit.
            conflicted = family is not None and (comparison[13], comparison[14]).count(family) == 1
            if conflicted and not audit[i * len(JUDGES) + version]:
                continue
            for round_index in range(rounds):
                if len(rows) >= target:
                    return rows
                rows.append(
                    call_row(
                        cid,
                        at,
                        judge,
                        family,
                        1 + version % 2,
                        protocol,
                        round_index,
                        picks[k],
                        LABEL_PAIRS[labels[k]],
                        bool(swapped[k]),
                    )
                )
                k += 1
    return rows


def call_row(
    cid: object,
    at: object,
    judge: str,
    family: str | None,
    version: int,
    protocol: object,
    round_index: int,
    pick: str | None,
    pair: tuple[str, str],
    swapped: bool,
) -> tuple[object, ...]:
    """One stored call as the service writes it."""
    order = "AB" if round_index % 2 == 0 else "BA"
    first, second = (pair[1], pair[0]) if swapped else pair
    label_a, label_b = (first, second) if order == "AB" else (second, first)
    winner = (
        None
        if pick is None
        else "tie"
        if pick == "tie"
        else (
            ("A" if pick == "first" else "B")
            if order == "AB"
            else ("B" if pick == "first" else "A")
        )
    )
    started = at + timedelta(seconds=round_index)  # type: ignore[operator]
    return (
        cid,
        judge,
        version,
        "c" * 64,
        family,
        "voter",
        protocol,
        round_index,
        round_index < 2,
        order,
        f"{pair[0]}/{pair[1]}",
        label_a,
        label_b,
        swapped,
        "t" * 64,
        '["0123456789abcdef", "fedcba9876543210"]',
        0,
        judge,
        '{"winner": "X", "confidence": 0.8, "reason": "Simulated judgement."}',
        pick,
        winner,
        0.8 if pick else None,
        "stated" if pick else None,
        850.0,
        started,
        started,
        0,
        None if pick else "timeout",
    )


async def load(url: str, calls: int) -> None:
    """COPY the synthetic traffic in, then VACUUM ANALYZE."""
    rng = np.random.default_rng(0)
    now = datetime.now(UTC)
    comparisons = comparison_rows(calls // 8, now, rng)
    connection = await asyncpg.connect(url)
    try:
        await connection.copy_records_to_table(
            "comparisons", records=comparisons, columns=COMPARISON_COLUMNS
        )
        tags = [
            (c[0], key, value)
            for i, c in enumerate(comparisons)
            for key, value in (("team", f"t{i % 7}"), ("env", "prod" if i % 3 else "dev"))
        ]
        await connection.copy_records_to_table(
            "comparison_tags", records=tags, columns=["comparison_id", "key", "value"]
        )
        rows = call_rows(comparisons, calls, rng)
        await connection.copy_records_to_table("judge_calls", records=rows, columns=CALL_COLUMNS)
    finally:
        await connection.close()
    await fold(url)
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("VACUUM ANALYZE")
    finally:
        await connection.close()


async def relabel(url: str, count: int) -> None:
    """Replace the human labels by `count` labelled comparisons, chosen and labelled by a hash
    of their ids (the same on every run): one labeler each, a second on about 30% of them, then
    VACUUM ANALYZE them."""
    connection = await asyncpg.connect(url)
    try:
        await connection.execute("DELETE FROM labels")
        await connection.execute(
            """
            INSERT INTO labels (comparison_id, labeler, winner, from_queue, created_at,
                                updated_at, shown_first)
            SELECT id, 'labeler-1', (ARRAY['A', 'B', 'tie'])[1 + abs(hashtext(id || 'w')) % 3],
                   abs(hashtext(id || 'q')) % 2 = 0, created_at, created_at + interval '1 hour',
                   (ARRAY['A', 'B'])[1 + abs(hashtext(id || 's')) % 2]
            FROM comparisons WHERE status = 'complete' AND NOT placebo
            ORDER BY hashtext(id) LIMIT $1
            """,
            count,
        )
        await connection.execute(
            """
            INSERT INTO labels (comparison_id, labeler, winner, from_queue, created_at,
                                updated_at, shown_first)
            SELECT comparison_id, 'labeler-2',
                   (ARRAY['A', 'B', 'tie'])[1 + abs(hashtext(comparison_id || 'v')) % 3],
                   false, created_at, updated_at, NULL
            FROM labels WHERE abs(hashtext(comparison_id || '2')) % 10 < 3
            """
        )
        await connection.execute("VACUUM ANALYZE labels")
    finally:
        await connection.close()


async def fold(url: str) -> None:
    """COPY bypassed the ORM, which folds calls into the report's rollups as it writes them:
    fold them all at once, as the migration does for existing calls."""
    engine = create_engine(url.replace("postgresql://", "postgresql+asyncpg://", 1))
    try:
        async with create_sessionmaker(engine)() as session:
            started = time.perf_counter()
            await ledger_fold.rebuild(session)
            await session.commit()
            print(f"folded the calls into the rollups in {time.perf_counter() - started:.1f} s")
    finally:
        await engine.dispose()


async def time_report(
    url: str, filters: ReportFilters, runs: int, from_rollups: bool = True, statements: int = 0
) -> list[float]:
    """Seconds per report over `runs` runs, each on a fresh session; with `statements`, print
    that many of the last run's slowest SQL statements and the time spent outside SQL."""
    engine = create_engine(url)
    timings: list[float] = []
    spent: list[tuple[float, str]] = []

    def before(connection: Any, *_: Any) -> None:
        connection.info["started"] = time.perf_counter()

    def after(connection: Any, cursor: Any, sql: str, *_: Any) -> None:
        spent.append((time.perf_counter() - connection.info["started"], " ".join(sql.split())))

    event.listen(engine.sync_engine, "before_cursor_execute", before)
    event.listen(engine.sync_engine, "after_cursor_execute", after)
    try:
        for _ in range(runs):
            spent.clear()
            async with create_sessionmaker(engine)() as session:
                started = time.perf_counter()
                await build_report(session, filters, Settings(), rollups=from_rollups)
                timings.append(time.perf_counter() - started)
    finally:
        await engine.dispose()
    if statements:
        outside = timings[-1] - sum(seconds for seconds, _ in spent)
        print(f"  outside SQL (Python, round trips) {outside * 1000:.0f} ms; slowest statements:")
        for seconds, sql in sorted(spent, reverse=True)[:statements]:
            print(f"  {seconds * 1000:8.1f} ms  {sql[:100]}")
    return timings


async def main() -> None:
    """Create, load, time, drop."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    parser.add_argument("--reuse", metavar="NAME", help="time a database kept earlier")
    parser.add_argument(
        "--statements", type=int, default=0, metavar="N", help="print each case's N slowest"
    )
    parser.add_argument("--no-baseline", action="store_true", help="skip regrouping the calls")
    parser.add_argument(
        "--labelled", type=int, metavar="N", help="first replace the labels: N labelled comparisons"
    )
    args = parser.parse_args()
    name = args.reuse or f"fairpair_bench_{uuid.uuid4().hex[:8]}"
    url = f"{SERVER}/{name}"
    sa_url = url.replace("postgresql://", "postgresql+asyncpg://", 1)
    if not args.reuse:
        await admin(f'CREATE DATABASE "{name}"')
    try:
        if not args.reuse:
            await asyncio.to_thread(upgrade, sa_url)
            started = time.perf_counter()
            await load(url, args.calls)
            print(f"loaded {args.calls:,} calls in {time.perf_counter() - started:.1f} s ({name})")
        if args.labelled is not None:
            await relabel(url, args.labelled)
        since = datetime.now(UTC) - timedelta(days=30)
        cases = {
            "default (30 days, all judges)": ReportFilters(since=since),
            "judge + tag": ReportFilters(since=since, judge="judge-gpt", tags=(("team", "t3"),)),
            "hourly series": ReportFilters(since=since, bucket="hour"),
        }
        runs = [(label, filters, True) for label, filters in cases.items()]
        if not args.no_baseline:
            default = cases[next(iter(cases))]
            runs.append(("default, regrouping the calls (no rollups)", default, False))
        for label, filters, from_rollups in runs:
            timings = await time_report(sa_url, filters, args.runs, from_rollups, args.statements)
            print(
                f"{label}: p50 {statistics.median(timings):.3f} s, "
                f"max {max(timings):.3f} s over {len(timings)} runs "
                f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
            )
    finally:
        if not (args.keep or args.reuse):
            await admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_BENCH_POSTGRES")
    asyncio.run(main())
