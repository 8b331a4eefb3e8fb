"""Soak: mixed traffic for a long while with a fault every minute, then the books (issue 36).

Run: .venv/bin/python bench/soak.py [--minutes 60] [--fault-every 60] [--clients 6]

The deployment is real processes on loopback: PostgreSQL (the machine's) behind a TCP proxy,
a `redis-server` of the soak's own, `fairpair sim-judge` behind a second proxy, two `fairpair
serve` processes (one is never restarted, so that its memory can be followed; the other is
SIGTERMed by a fault) and two `fairpair worker`s. Clients send compares (every protocol), score
requests, small batches (live and provider mode) and canary runs. The faults, in turn:
PostgreSQL cut off and back, PostgreSQL stalled (open connections that answer nothing), Redis
SIGKILLed and restarted empty, the judge stalled mid-response, a worker SIGKILLed, an API
process SIGTERMed; each lasts `--fault-s` and the process it stopped is started again.

The books, after the last fault and a settling period: every request answered (an HTTP status)
or refused at the socket by an API process that was down, none timed out on the client's bound;
no comparison or score session left running; every batch finished; the never-restarted API's
RSS per minute. And the paid calls, by the id the sim judge gives each answer (`--answer-ids`):
no answer stored twice; every answer stored, or else sent while a fault was on (from
`FAULT_BEFORE_S` before it began to `FAULT_AFTER_S` after it ended: a worker SIGKILLed holding an
answer, a database cut off when it came, a judge stalled while it was on the wire), counted per
fault, beside the answered calls that 503 `not_persisted` bodies gave back to their callers (each
call's pick, not its raw text: they are counted, not matched by id). An answer lost with no fault
near is a lost paid call. Exits 1 when a book does not balance.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.batches.stack import START_TIMEOUT_S, base_env, judges_file, spawn, stop
from tests.batches.support import RedisServer, compare_item, score_item
from tests.support.databases import (
    SERVER_URL,
    create_database,
    create_migrated_template,
    drop_database,
    sqlalchemy_url,
)
from tests.support.processes import free_port
from tests.support.proxy import TcpProxy

# An answer sent this long before a fault began, or after it ended, may be lost to it: held by a
# worker when it was killed, or waiting for a database that is gone (statements are bounded at
# 10 s here, a reconnect follows).
FAULT_BEFORE_S = 5.0
FAULT_AFTER_S = 15.0
ANSWER_ID = re.compile(r"sim-answer-\d+")
CLIENT_BOUND_S = 180.0  # no request may take longer: a compare's deadline is 30 s here
PROTOCOLS = [
    {"kind": "swap"},
    {"kind": "shuffle", "pairs": 2},
    {"kind": "adaptive", "max_pairs": 3},
    {"kind": "single"},
]


def say(line: str) -> None:
    sys.stdout.write(f"[{time.strftime('%H:%M:%S')}] {line}\n")
    sys.stdout.flush()


async def wait_up(url: str, timeout_s: float = START_TIMEOUT_S) -> None:
    """Poll `url` until it answers below 500."""
    async with httpx2.AsyncClient(timeout=2) as client, asyncio.timeout(timeout_s):
        while True:
            with contextlib.suppress(httpx2.TransportError):
                if (await client.get(url)).status_code < 500:
                    return
            await asyncio.sleep(0.2)


@dataclass
class Deployment:
    directory: Path
    env: dict[str, str]
    redis: RedisServer
    db_proxy: TcpProxy
    judge_proxy: TcpProxy
    database: str
    ports: list[int] = field(default_factory=list)
    apis: list[subprocess.Popen[bytes]] = field(default_factory=list)
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    sim: subprocess.Popen[bytes] | None = None

    def base(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"

    async def start_api(self, i: int) -> None:
        log = self.directory / f"api-{i}.log"
        self.apis[i] = spawn(["serve", "--port", str(self.ports[i])], self.env, log)
        await wait_up(f"{self.base(i)}/healthz")

    def start_worker(self, i: int) -> None:
        log = self.directory / f"worker-{i}.log"
        self.workers[i] = spawn(["worker", "--concurrency", "8"], self.env, log)

    def rss_mib(self, i: int) -> float:
        status = Path(f"/proc/{self.apis[i].pid}/status").read_text()
        kib = next(int(line.split()[1]) for line in status.splitlines() if line.startswith("VmRSS"))
        return kib / 1024


@dataclass
class Books:
    requests: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)  # at the socket: an API was down
    timed_out: Counter[str] = field(default_factory=Counter)
    not_persisted: int = 0
    returned_calls: int = 0  # answered calls in 503 not_persisted bodies
    fault_windows: list[tuple[str, float, float]] = field(default_factory=list)  # unix times
    batches: list[tuple[int, str]] = field(default_factory=list)
    rss: list[float] = field(default_factory=list)
    faults: Counter[str] = field(default_factory=Counter)


async def one_request(
    books: Books, kind: str, sent: Awaitable[httpx2.Response]
) -> httpx2.Response | None:
    try:
        async with asyncio.timeout(CLIENT_BOUND_S):
            response = await sent
    except TimeoutError:
        books.timed_out[kind] += 1
        return None
    except httpx2.TransportError:
        books.refused[kind] += 1
        return None
    books.requests[f"{kind} {response.status_code}"] += 1
    if response.status_code == 503 and "not_persisted" in response.text:
        books.not_persisted += 1
        books.returned_calls += answered_calls(response.json())
    return response


def answered_calls(body: object) -> int:
    """The calls with an answer (no `error_kind`) in a response body, wherever they are listed."""
    if isinstance(body, list):
        return sum(answered_calls(item) for item in body)
    if not isinstance(body, dict):
        return 0
    calls = body.get("calls")
    here = (
        sum(1 for c in calls if isinstance(c, dict) and c.get("error_kind") is None)
        if isinstance(calls, list)
        else 0
    )
    return here + sum(answered_calls(v) for k, v in body.items() if k != "calls")


async def client_loop(
    deployment: Deployment, books: Books, seed: int, stop_at: float, canary: bool
) -> None:
    rng = random.Random(seed)
    async with httpx2.AsyncClient(timeout=CLIENT_BOUND_S) as client:
        n = 0
        while time.monotonic() < stop_at:
            n += 1
            base = deployment.base(rng.randrange(len(deployment.ports)))
            roll = rng.random()
            if canary and n % 20 == 0:
                await one_request(books, "canary", client.post(f"{base}/v1/canaries/soak/runs"))
            elif roll < 0.70:
                body = {
                    **compare_item(seed * 100_000 + n)["compare"],
                    "protocol": rng.choice(PROTOCOLS),
                }
                body["timeout_s"] = 30
                await one_request(books, "compare", client.post(f"{base}/v1/compare", json=body))
            elif roll < 0.95:
                body = {**score_item(n, ["http-sim"])["score"], "timeout_s": 30}
                await one_request(books, "score", client.post(f"{base}/v1/score", json=body))
            else:
                mode = "provider" if rng.random() < 0.3 else "live"
                items = [compare_item(seed * 100_000 + n * 10 + k) for k in range(3)]
                payload = {"items": items, "mode": mode}
                response = await one_request(
                    books, f"batch-{mode}", client.post(f"{base}/v1/batches", json=payload)
                )
                if response is not None and response.status_code == 202:
                    books.batches.append(
                        (deployment.ports.index(int(base.rsplit(":", 1)[1])), response.json()["id"])
                    )
            await asyncio.sleep(rng.uniform(0.05, 0.3))


async def fault(deployment: Deployment, books: Books, number: int, hold_s: float) -> None:
    """One fault, held for `hold_s`, then undone."""
    kinds = ["db-cut", "db-stall", "redis-kill", "judge-stall", "worker-kill", "api-term"]
    kind = kinds[number % len(kinds)]
    books.faults[kind] += 1
    say(f"fault {number + 1}: {kind} for {hold_s:g} s")
    began = time.time()
    try:
        await _hold_fault(deployment, kind, number, hold_s)
    finally:
        books.fault_windows.append((kind, began, time.time()))


async def _hold_fault(deployment: Deployment, kind: str, number: int, hold_s: float) -> None:
    if kind == "db-cut":
        await deployment.db_proxy.close()
        await asyncio.sleep(hold_s)
        await deployment.db_proxy.open()
    elif kind == "db-stall":
        deployment.db_proxy.stall()
        await asyncio.sleep(hold_s)
        deployment.db_proxy.resume()
    elif kind == "redis-kill":
        deployment.redis.kill()
        await asyncio.sleep(hold_s)
        await asyncio.to_thread(deployment.redis.start)
    elif kind == "judge-stall":
        deployment.judge_proxy.stall()
        await asyncio.sleep(hold_s)
        deployment.judge_proxy.resume()
    elif kind == "worker-kill":
        victim = number % len(deployment.workers)
        deployment.workers[victim].send_signal(signal.SIGKILL)
        await asyncio.to_thread(deployment.workers[victim].wait)
        await asyncio.sleep(hold_s)
        deployment.start_worker(victim)
    else:  # the restartable API: index 1 (index 0 is never restarted)
        await asyncio.to_thread(stop, deployment.apis[1], 60)
        await asyncio.sleep(hold_s)
        await deployment.start_api(1)


async def settle(deployment: Deployment, books: Books, timeout_s: float) -> dict[str, Any]:
    """Wait for every batch to finish and nothing to run; the database's own counts."""
    deadline = time.monotonic() + timeout_s
    url = f"{SERVER_URL}/{deployment.database}"
    while True:
        try:
            counts = await database_counts(url)
        except (asyncpg.PostgresError, OSError) as exc:  # e.g. too many clients for a moment
            say(f"settling: the database did not answer ({exc}); again in 5 s")
            await asyncio.sleep(5)
            continue
        busy = (
            counts["comparisons_running"]
            + counts["score_sessions_running"]
            + counts["batch_items_open"]
        )
        if not busy or time.monotonic() > deadline:
            return counts
        say(f"settling: { {k: v for k, v in counts.items() if k != 'stored_answer_ids'} }")
        await asyncio.sleep(10)


async def database_counts(url: str) -> dict[str, Any]:
    """What is still open, what was stored, and whether any call was stored twice."""
    connection = await asyncpg.connect(url)
    try:
        return {
            "comparisons_running": await connection.fetchval(
                "SELECT count(*) FROM comparisons WHERE status IN ('running', 'waiting')"
            ),
            "score_sessions_running": await connection.fetchval(
                "SELECT count(*) FROM score_sessions WHERE status IN ('running', 'waiting')"
            ),
            "batch_items_open": await connection.fetchval(
                "SELECT count(*) FROM batch_items WHERE status IN ('queued', 'running', 'waiting')"
            ),
            "calls_stored_answered": await connection.fetchval(
                "SELECT (SELECT count(*) FROM judge_calls WHERE raw_output IS NOT NULL)"
                " + (SELECT count(*) FROM score_calls WHERE raw_output IS NOT NULL)"
            ),
            "duplicate_calls": await connection.fetchval(
                "SELECT count(*) FROM (SELECT 1 FROM judge_calls WHERE comparison_id IS NOT"
                " NULL GROUP BY comparison_id, judge_name, round HAVING count(*) > 1) d"
            ),
            "stored_answer_ids": await stored_answer_ids(connection),
        }
    finally:
        await connection.close()


async def stored_answer_ids(connection: asyncpg.Connection) -> Counter[str]:
    """How often each answer id of the sim judge is in a stored call's raw output."""
    ids: Counter[str] = Counter()
    for table in ("judge_calls", "score_calls"):
        query = f"SELECT raw_output FROM {table} WHERE raw_output LIKE '%sim-answer-%'"
        for row in await connection.fetch(query):
            ids.update(ANSWER_ID.findall(row[0]))
    return ids


async def soak(args: argparse.Namespace) -> int:
    template = await create_migrated_template()
    database = await create_database(template=template)
    directory = Path(tempfile.mkdtemp(prefix="fairpair-soak-"))
    redis = RedisServer()
    redis.start()
    sim_port = free_port()
    sim = spawn(
        ["sim-judge", "--port", str(sim_port), "--latency-ms", "40", "--error-rate", "0.02",
         "--batch-delay", "5", "--answer-ids"],
        {}, directory / "sim.log",
    )  # fmt: skip
    db_proxy = TcpProxy("127.0.0.1", int(SERVER_URL.rsplit(":", 1)[1]))
    judge_proxy = TcpProxy("127.0.0.1", sim_port)
    await db_proxy.open()
    await judge_proxy.open()
    url = sqlalchemy_url(database).replace(
        SERVER_URL.rsplit("@", 1)[1], f"127.0.0.1:{db_proxy.port}"
    )
    env = base_env(
        url, redis.url, sweep_interval_s=10, sweep_grace_s=5, batch_lease_s=10,
        batch_requeue_after_s=5, provider_tick_s=1, provider_poll_min_s=1,
        provider_poll_max_s=3, shutdown_grace_s=10, database_timeout_s=10,
    )  # fmt: skip
    env["FAIRPAIR_JUDGES_FILE"] = str(judges_file(directory, judge_proxy.port, 'batch_api = "on"'))
    deployment = Deployment(directory, env, redis, db_proxy, judge_proxy, database, sim=sim)
    deployment.ports = [free_port(), free_port()]
    deployment.apis = [sim, sim]  # placeholders, replaced as they start
    deployment.workers = [sim, sim]
    books = Books()
    exit_code = 1
    try:
        await wait_up(f"http://127.0.0.1:{sim_port}/v1/models")
        for i in range(2):
            await deployment.start_api(i)
            deployment.start_worker(i)
        canary = await make_canary(deployment)
        stop_at = time.monotonic() + args.minutes * 60
        clients = [
            asyncio.create_task(client_loop(deployment, books, seed, stop_at, canary))
            for seed in range(args.clients)
        ]
        number = 0
        while time.monotonic() + args.fault_every < stop_at:
            await asyncio.sleep(args.fault_every - args.fault_s)
            books.rss.append(deployment.rss_mib(0))
            await fault(deployment, books, number, args.fault_s)
            number += 1
        await asyncio.gather(*clients)
        books.rss.append(deployment.rss_mib(0))
        say("traffic over; settling")
        counts = await settle(deployment, books, timeout_s=args.settle_s)
        sim_url = f"http://127.0.0.1:{sim_port}"
        sim_stats = httpx2.get(f"{sim_url}/stats", timeout=10).json()
        sim_stats["sent"] = httpx2.get(f"{sim_url}/stats/answers", timeout=60).json()["sent"]
        exit_code = print_books(books, counts, sim_stats)
    finally:
        for process in [*deployment.workers, *deployment.apis, sim]:
            with contextlib.suppress(Exception):
                stop(process, 30)
        redis.kill()
        await db_proxy.close()
        await judge_proxy.close()
        await drop_database(database)
        await drop_database(template)
    say(f"logs in {directory}")
    return exit_code


async def make_canary(deployment: Deployment) -> bool:
    """A canary over the first comparisons, so that canary runs are part of the traffic."""
    async with httpx2.AsyncClient(base_url=deployment.base(0), timeout=60) as client:
        for i in range(12):
            await client.post(
                "/v1/compare", json=compare_item(900_000 + i, tags={"set": "canary"})["compare"]
            )
        made = await client.post(
            "/v1/canaries", json={"name": "soak", "judges": ["http-sim"], "tag": "set:canary"}
        )
    return made.status_code == 201


def paid_call_books(
    books: Books, stored: Counter[str], sent: list[tuple[str, float]]
) -> tuple[int, Counter[str]]:
    """Answers stored twice, and the answers not stored, by the fault they were sent near
    (`none`: no fault near, a lost paid call)."""
    twice = sum(1 for n in stored.values() if n > 1)
    lost: Counter[str] = Counter()
    for answer_id, at in sent:
        if answer_id in stored:
            continue
        near = [
            kind
            for kind, began, ended in books.fault_windows
            if began - FAULT_BEFORE_S <= at <= ended + FAULT_AFTER_S
        ]
        lost[near[0] if near else "none"] += 1
    return twice, lost


def print_books(books: Books, counts: dict[str, Any], sim_stats: dict[str, Any]) -> int:
    answered = sum(sim_stats["chat_completions"]["answered"].values())
    stored_ids: Counter[str] = counts.pop("stored_answer_ids")
    twice, lost = paid_call_books(books, stored_ids, sim_stats["sent"])
    say(f"faults: {dict(books.faults)}")
    say(f"requests answered: {dict(sorted(books.requests.items()))}")
    say(f"refused at the socket (an API down): {dict(books.refused)}")
    say(f"timed out on the client ({CLIENT_BOUND_S:g} s): {dict(books.timed_out)}")
    say(f"503 not_persisted answers: {books.not_persisted}")
    say(f"database after settling: {counts}")
    stored = counts["calls_stored_answered"]
    say(f"judge answers sent (live): {answered}; stored with their raw output: {stored}")
    say(
        f"paid answers (by id): sent {len(sim_stats['sent'])}, stored {len(stored_ids)}, stored"
        f" twice {twice}, lost near a fault"
        f" {dict(lost - Counter(none=lost['none']))}, lost with no fault near {lost['none']};"
        f" answered calls given back in 503 bodies {books.returned_calls}"
    )
    rss = ", ".join(f"{value:.0f}" for value in books.rss)
    say(f"RSS of the never-restarted API per fault, MiB: {rss}")
    balanced = (
        not books.timed_out
        and counts["comparisons_running"] == 0
        and counts["score_sessions_running"] == 0
        and counts["batch_items_open"] == 0
        and counts["duplicate_calls"] == 0
        and twice == 0
        and lost["none"] == 0
    )
    say("books balance" if balanced else "BOOKS DO NOT BALANCE")
    return 0 if balanced else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--fault-every", type=float, default=60, help="seconds between faults")
    parser.add_argument("--fault-s", type=float, default=10, help="how long each fault lasts")
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--settle-s", type=float, default=900, help="at most, after traffic")
    return asyncio.run(soak(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
