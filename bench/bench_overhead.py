"""Overhead of `POST /v1/compare` over a bare SDK client, and the API's memory (issue 12: 1, 4).

    .venv/bin/python bench/bench_overhead.py [--concurrency 1 16 64] [--replicas 1] [--workers 1]
        [--soak-s 0]

Starts `fairpair sim-judge --latency-ms 100` and `fairpair serve` (PostgreSQL: a fresh migrated
database; one judge with provider "openai" pointing at the sim-judge; auth on) as processes.
For each concurrency it then runs, one after the other on the same machine:

- baseline: a bare asyncio script (its own process) that makes each comparison as two concurrent
  `openai` SDK calls with the same rendered messages fairpair sends, and persists nothing;
- fairpair: a load generator (its own process, httpx2) posting swap comparisons.

Latencies are per comparison as the client sees it; CPU is read from /proc for the measured window
(after a warm-up) for the API process(es), the client, the sim-judge and the PostgreSQL backends
connected to the benchmark's database, and the share of the machine's CPU the hypervisor stole
for other guests (`/proc/stat`; runs with more than a few percent stolen say little about the
code). `--replicas N` runs N `fairpair serve` processes sharing the database, and the load
generator spreads comparisons over them round-robin, as a balancer would; `--workers N` runs
`fairpair serve --workers N` (with a redis-server of its own), its CPU summed over the
processes. `--soak-s N` then runs concurrency 16 for N seconds and samples the API's RSS.
Prints one table row per run and the memory figures.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.support.databases import (
    create_database,
    drop_database,
    sqlalchemy_url,
)
from tests.support.processes import FAIRPAIR, free_port, run_cli, wait_until_up
from tests.support.provision import redis_server_binary, rerun_unless_postgres_answers

HERE = Path(__file__).resolve()
TICKS = os.sysconf("SC_CLK_TCK")
JUDGE = "bench-sim"
PAGE = os.sysconf("SC_PAGE_SIZE")


# ---- the texts both clients send -------------------------------------------------------------


def comparison_texts(i: int) -> tuple[str, str, str]:
    """Prompt and two responses of ordinary length, with the sim's latent qualities."""
    rng = random.Random(i)
    prompt = f"Question {i}: explain how a hash map handles collisions, briefly. " * 3
    body = "A hash map stores keys in buckets; collisions are chained or probed. " * 8
    return (
        prompt,
        f"{body}(variant {i}a)\n[sim q={rng.gauss(0, 1):.3f}]",
        f"{body}(variant {i}b)\n[sim q={rng.gauss(0, 1):.3f}]",
    )


# ---- /proc -------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process, 0 when it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mb(pid: int, field: str = "VmRSS") -> float:
    """A memory figure of /proc/<pid>/status in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def machine_ticks() -> tuple[int, int]:
    """(stolen, total) CPU ticks of the whole machine since boot, from /proc/stat."""
    fields = [int(f) for f in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    # user nice system idle iowait irq softirq steal [guest guest_nice: already in user]
    return fields[7], sum(fields[:8])


def loadavg() -> str:
    """The 1-minute load average and the number of runnable tasks."""
    one, _five, _fifteen, running, _last = Path("/proc/loadavg").read_text().split()
    return f"{one} ({running.split('/')[0]} runnable)"


async def pg_backends(database: str) -> list[int]:
    """PIDs of the PostgreSQL backends connected to the benchmark's database."""
    import asyncpg

    from tests.support.databases import SERVER_URL

    connection = await asyncpg.connect(SERVER_URL + "/postgres")
    try:
        rows = await connection.fetch(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
            database,
        )
    finally:
        await connection.close()
    return [int(r["pid"]) for r in rows]


async def commits(database: str | None) -> int:
    """Transactions committed in the benchmark's database so far (pg_stat_database)."""
    if database is None:
        return 0
    import asyncpg

    from tests.support.databases import SERVER_URL

    connection = await asyncpg.connect(SERVER_URL + "/postgres")
    try:
        # The statistics a backend reports when it goes idle; clear this backend's snapshot.
        await connection.execute("SELECT pg_stat_clear_snapshot()")
        value = await connection.fetchval(
            "SELECT xact_commit FROM pg_stat_database WHERE datname = $1", database
        )
    finally:
        await connection.close()
    return int(value or 0)


class CpuWindow:
    """CPU seconds of named process groups between `start()` and `stop()`.

    PostgreSQL backends come and go (the pool closes overflow connections), so they are sampled
    every quarter second and each one's last reading counts; a backend that ends between two
    samples loses at most that quarter second.
    """

    def __init__(self, groups: dict[str, list[int]], database: str | None) -> None:
        self.groups, self.database = groups, database
        self.before: dict[str, dict[int, float]] = {}
        self.latest: dict[str, dict[int, float]] = {}
        self._sampler: asyncio.Task[None] | None = None
        self._ticks = (0, 0)
        # The share of the machine's CPU time the hypervisor gave to other guests: the same
        # code's CPU per comparison moves with it (a virtual machine's cores are shared).
        self.steal_share = 0.0

    async def _snapshot(self) -> dict[str, dict[int, float]]:
        groups = dict(self.groups)
        if self.database:
            groups["postgres"] = await pg_backends(self.database)
        return {name: {pid: cpu_seconds(pid) for pid in pids} for name, pids in groups.items()}

    def _keep(self, snapshot: dict[str, dict[int, float]]) -> None:
        for name, pids in snapshot.items():
            seen = self.latest.setdefault(name, {})
            for pid, cpu in pids.items():
                seen[pid] = max(cpu, seen.get(pid, 0.0))

    async def _sample(self) -> None:
        while True:
            await asyncio.sleep(0.25)
            self._keep(await self._snapshot())

    async def start(self) -> None:
        self._ticks = machine_ticks()
        self.before = await self._snapshot()
        self._keep(self.before)
        self._sampler = asyncio.create_task(self._sample())

    async def stop(self) -> dict[str, float]:
        if self._sampler is not None:
            self._sampler.cancel()
        self._keep(await self._snapshot())
        stolen, total = (now - then for now, then in zip(machine_ticks(), self._ticks, strict=True))
        self.steal_share = stolen / total if total else 0.0
        return {
            name: sum(cpu - self.before.get(name, {}).get(pid, 0.0) for pid, cpu in pids.items())
            for name, pids in self.latest.items()
        }

    def backends_seen(self) -> int:
        """PostgreSQL backends that served the window (more than the pool holds: churn)."""
        return len(self.latest.get("postgres", {}))


# ---- the two clients (each runs as its own process) -------------------------------------------


async def drive(
    one: Callable[[int], Awaitable[None]],
    concurrency: int,
    warmup: int,
    count: int,
    window: CpuWindow,
) -> tuple[list[float], float, dict[str, float], int]:
    """`count` comparisons `concurrency` at a time after a warm-up: latencies, seconds, CPU and
    the transactions committed in the benchmark's database (PostgreSQL reports them about once
    a second, so the window's two readings lag alike)."""

    async def run(numbers: Iterator[int], latencies: list[float]) -> None:
        async def worker() -> None:
            for i in numbers:
                started = time.perf_counter()
                await one(i)
                latencies.append(time.perf_counter() - started)

        await asyncio.gather(*(worker() for _ in range(concurrency)))

    await run(iter(range(10_000_000, 10_000_000 + warmup)), [])
    latencies: list[float] = []
    committed = await commits(window.database)
    await window.start()
    started = time.perf_counter()
    await run(iter(range(count)), latencies)
    seconds = time.perf_counter() - started
    cpu = await window.stop()
    return latencies, seconds, cpu, await commits(window.database) - committed


def baseline_messages(count: int) -> list[tuple[list[dict[str, str]], list[dict[str, str]]]]:
    """Both orders of every comparison, rendered by fairpair's renderer before the clock starts."""
    from app.judging.anonymize import default_anonymizer
    from app.judging.prompts import PromptRenderer
    from app.judging.types import DEFAULT_LABEL_POOL

    renderer = PromptRenderer({}, DEFAULT_LABEL_POOL, default_anonymizer())
    rng = random.Random(0)
    pairs = []
    for i in range(count):
        prompt, a, b = comparison_texts(i)
        orders = []
        for first, second in ((a, b), (b, a)):
            rendered = renderer.render_pair(prompt, first, second, rng=rng)
            orders.append(
                [
                    {"role": "system", "content": rendered.system},
                    {"role": "user", "content": rendered.user},
                ]
            )
        pairs.append((orders[0], orders[1]))
    return pairs


async def baseline_client(args: argparse.Namespace) -> dict[str, Any]:
    """Two concurrent SDK calls per comparison; nothing persisted."""
    import openai

    pairs = baseline_messages(256)
    client = openai.AsyncOpenAI(base_url=args.url, api_key="sk-local", max_retries=0)

    async def ask(messages: list[dict[str, str]]) -> None:
        answer = await client.chat.completions.create(
            model="sim-http",
            messages=messages,  # type: ignore[arg-type]
            temperature=0.0,
            timeout=60,
        )
        assert answer.choices[0].message.content

    async def one(i: int) -> None:
        ab, ba = pairs[i % len(pairs)]
        await asyncio.gather(ask(ab), ask(ba))

    return await measured(args, one, client.close)


async def fairpair_client(args: argparse.Namespace) -> dict[str, Any]:
    """One `POST /v1/compare` (swap) per comparison."""
    import httpx2

    limits = httpx2.Limits(
        max_connections=args.concurrency, max_keepalive_connections=args.concurrency
    )
    # One pool per replica, comparisons spread round-robin: what a balancer does per request
    # (keep-alive connections accepted by uvicorn workers sharing a socket land mostly on one).
    clients = [
        httpx2.AsyncClient(
            base_url=url,
            limits=limits,
            timeout=120,
            headers={"Authorization": f"Bearer {args.token}"},
        )
        for url in args.url.split(",")
    ]
    failures: list[str] = []

    async def close() -> None:
        for client in clients:
            await client.aclose()

    async def one(i: int) -> None:
        prompt, a, b = comparison_texts(i)
        body = {
            "prompt": prompt,
            "response_a": {"text": a},
            "response_b": {"text": b},
            "judges": [JUDGE],
            "protocol": {"kind": "swap"},
        }
        answer = await clients[i % len(clients)].post("/v1/compare", json=body)
        if answer.status_code != 200 or answer.json()["status"] != "complete":
            failures.append(f"{answer.status_code} {answer.text[:200]}")

    result = await measured(args, one, close)
    result["failures"], result["failure_sample"] = len(failures), failures[:3]
    return result


async def measured(
    args: argparse.Namespace,
    one: Callable[[int], Awaitable[None]],
    close: Callable[[], Awaitable[None]],
) -> dict[str, Any]:
    """Drive the client and summarise latencies and the CPU of every watched process."""
    groups = {
        name: [int(p) for p in pids.split(",") if p]
        for name, _, pids in (w.partition("=") for w in args.watch)
    }
    groups["client"] = [os.getpid()]
    window = CpuWindow(groups, args.database)
    warmup = max(20, 2 * args.concurrency)
    try:
        latencies, seconds, cpu, committed = await drive(
            one, args.concurrency, warmup, args.count, window
        )
    finally:
        await close()
    latencies.sort()
    return {
        "count": len(latencies),
        "seconds": seconds,
        "p50_ms": 1000 * statistics.median(latencies),
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))],
        "cpu_s": cpu,
        "pg_backends": window.backends_seen(),
        "commits": committed,
        "steal": window.steal_share,
    }


def client_main(args: argparse.Namespace) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    run = baseline_client if args.role == "baseline" else fairpair_client
    print(json.dumps(asyncio.run(run(args))))


# ---- orchestration -----------------------------------------------------------------------------


@contextmanager
def process(argv: list[str], env: dict[str, str], health_url: str, log: Path) -> Iterator[int]:
    """A process answering `health_url`; its pid. SIGTERM on exit."""
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            argv, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT
        )
    try:
        wait_until_up(health_url, timeout_s=60)
        yield proc.pid
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def judges_file(directory: Path, sim_port: int) -> Path:
    path = directory / "judges.toml"
    # max_concurrency 256: the judge's own bound must not cap 64 comparisons x 2 calls.
    path.write_text(f"""
default_panel = ["{JUDGE}"]

[[judges]]
name = "{JUDGE}"
provider = "openai"
model = "sim-http"
base_url = "http://127.0.0.1:{sim_port}/v1"
api_key = "sk-local"
max_concurrency = 256
""")
    return path


def run_client(
    role: str,
    url: str,
    concurrency: int,
    count: int,
    watch: dict[str, list[int]],
    database: str | None,
    token: str = "",
) -> dict[str, Any]:
    argv = [
        sys.executable,
        str(HERE),
        "--role",
        role,
        "--url",
        url,
        "--concurrency",
        str(concurrency),
        "--count",
        str(count),
        "--token",
        token,
        *(["--database", database] if database else []),
        "--watch",
        *[f"{k}={','.join(map(str, v))}" for k, v in watch.items()],
    ]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{role} client failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def count_for(concurrency: int, scale: float) -> int:
    return int(max(300, 60 * concurrency) * scale)


def row(name: str, c: int, r: dict[str, Any], load: str, memory: str = "-") -> str:
    n, cpu = r["count"], r["cpu_s"]
    per = {k: 1000 * v / n for k, v in cpu.items()}
    api = f"{per['api']:.2f}" if "api" in per else "-"
    postgres = (
        f"{per['postgres']:.2f} ({r['pg_backends']}; {r['commits'] / n:.2f} commits)"
        if "postgres" in per
        else "-"
    )
    return (
        f"| {name} | {c} | {n} | {n / r['seconds']:.1f} | {r['p50_ms']:.1f} | {r['p99_ms']:.1f} "
        f"| {api} | {per['client']:.2f} | {postgres} | {per['sim']:.2f} "
        f"| {r.get('failures', 0)} | {memory} | {load} | {100 * r.get('steal', 0.0):.1f}% |"
    )


def worker_pids(server: int) -> list[int]:
    """The uvicorn worker processes under a `fairpair serve --workers N` (none for one process),
    without multiprocessing's resource tracker."""
    children = Path(f"/proc/{server}/task/{server}/children").read_text().split()
    return [
        int(pid)
        for pid in children
        if b"resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes()
    ]


@contextmanager
def redis_server(folder: Path) -> Iterator[str]:
    """A redis-server of the benchmark's own on a free port; its URL."""
    port = free_port()
    with open(folder / "redis.log", "wb") as out:
        proc = subprocess.Popen(
            [redis_server_binary(), "--port", str(port), "--save", "", "--appendonly", "no"],
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        time.sleep(0.5)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def api_memory(pids: list[int]) -> str:
    """RSS and peak RSS (VmHWM) of the API, summed over its processes."""
    rss = sum(rss_mb(p) for p in pids)
    return f"{rss:.0f} / {sum(rss_mb(p, 'VmHWM') for p in pids):.0f}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--role", choices=["main", "baseline", "fairpair"], default="main")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 16, 64])
    parser.add_argument("--scale", type=float, default=1.0, help="multiplies comparisons per run")
    parser.add_argument(
        "--replicas", type=int, default=1, help="`fairpair serve` processes, requests spread"
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="`fairpair serve --workers N` (own redis-server)"
    )
    parser.add_argument("--latency-ms", type=float, default=100)
    parser.add_argument("--soak-s", type=float, default=0, help="memory soak at concurrency 16")
    parser.add_argument("--url", default="")
    parser.add_argument("--count", type=int, default=0)
    parser.add_argument("--token", default="")
    parser.add_argument("--database", default=None)
    parser.add_argument("--watch", nargs="*", default=[])
    args = parser.parse_args()
    if args.role != "main":
        args.concurrency = args.concurrency[0]
        client_main(args)
        return
    bench(args)


def bench(args: argparse.Namespace) -> None:
    from app.schema import upgrade

    name = asyncio.run(create_database())
    url = sqlalchemy_url(name)
    try:
        upgrade(url)
        with tempfile.TemporaryDirectory() as folder:
            run_all(args, name, url, Path(folder))
    finally:
        asyncio.run(drop_database(name))


def run_all(args: argparse.Namespace, name: str, url: str, folder: Path) -> None:
    sim_port = free_port()
    env = {
        "FAIRPAIR_DATABASE_URL": url,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_JUDGES_FILE": str(judges_file(folder, sim_port)),
    }
    token = (
        run_cli("keys", "create", "--name", "bench", "--scopes", "compare", env=env)
        .strip()
        .splitlines()[-1]
    )
    sim_argv = [
        FAIRPAIR,
        "sim-judge",
        "--port",
        str(sim_port),
        "--latency-ms",
        str(args.latency_ms),
    ]
    api_ports = [free_port() for _ in range(args.replicas)]
    sim_url = f"http://127.0.0.1:{sim_port}"
    api_url = ",".join(f"http://127.0.0.1:{port}" for port in api_ports)
    serve = [FAIRPAIR, "serve", "--workers", str(args.workers)]
    with contextlib.ExitStack() as stack:
        if args.workers > 1:  # several API processes need a Redis they share
            env["FAIRPAIR_REDIS_URL"] = stack.enter_context(redis_server(folder))
        sim_pid = stack.enter_context(
            process(sim_argv, {}, f"{sim_url}/v1/models", folder / "sim.log")
        )
        servers = [
            stack.enter_context(
                process(
                    [*serve, "--port", str(port)],
                    env,
                    f"http://127.0.0.1:{port}/readyz",
                    folder / f"api-{port}.log",
                )
            )
            for port in api_ports
        ]
        time.sleep(1.0)
        api_pids = [pid for server in servers for pid in (server, *worker_pids(server))]
        print(
            f"sim-judge --latency-ms {args.latency_ms:g}; API: {args.replicas} `fairpair serve "
            f"--workers {args.workers}` process(es) {api_pids}; cores: {os.cpu_count()}"
        )
        print(
            "| run | concurrency | comparisons | comparisons/s | p50 ms | p99 ms "
            "| API CPU ms/cmp | client CPU ms/cmp | PostgreSQL CPU ms/cmp (backends; commits/cmp) "
            "| sim CPU ms/cmp | failures | API RSS / peak MiB | load (1 min) | CPU stolen |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        summary = []
        for c in args.concurrency:
            count = count_for(c, args.scale)
            load = loadavg()
            base = run_client("baseline", f"{sim_url}/v1", c, count, {"sim": [sim_pid]}, None)
            print(row("baseline", c, base, load), flush=True)
            load = loadavg()
            watch = {"sim": [sim_pid], "api": api_pids}
            before = [cpu_seconds(p) for p in api_pids]
            fair = run_client("fairpair", api_url, c, count, watch, name, token)
            split = [cpu_seconds(p) - b for p, b in zip(api_pids, before, strict=True)]
            print(row("fairpair", c, fair, load, api_memory(api_pids)), flush=True)
            summary.append((c, base, fair, split))
        print_summary(summary)
        if args.soak_s:
            soak(args, api_url, api_pids, sim_pid, token)


def print_summary(summary: list[tuple[int, dict[str, Any], dict[str, Any], list[float]]]) -> None:
    """Added latency and throughput against the baseline; how the API processes shared the CPU."""
    print()
    print(
        "| concurrency | added p50 ms | added p99 ms | p50 ratio | throughput ratio "
        "| API CPU share per process |"
    )
    print("|---|---|---|---|---|---|")
    for c, base, fair, split in summary:
        tb, tf = base["count"] / base["seconds"], fair["count"] / fair["seconds"]
        shares = " / ".join(f"{s / (sum(split) or 1):.2f}" for s in split)
        print(
            f"| {c} | {fair['p50_ms'] - base['p50_ms']:+.1f} | "
            f"{fair['p99_ms'] - base['p99_ms']:+.1f} | {fair['p50_ms'] / base['p50_ms']:.3f} | "
            f"{tf / tb:.2f} | {shares} |"
        )


def soak(
    args: argparse.Namespace,
    api_url: str,
    api_pids: list[int],
    sim_pid: int,
    token: str,
) -> None:
    """Concurrency 16 for `--soak-s` seconds in slices; the API's RSS after each slice."""
    started, samples = time.monotonic(), []
    slice_count = count_for(16, 1.0)
    print()
    print("| elapsed s | comparisons | comparisons/s (slice) | RSS MiB | peak RSS MiB |")
    print("|---|---|---|---|---|")
    total = 0
    while time.monotonic() - started < args.soak_s:
        result = run_client(
            "fairpair", api_url, 16, slice_count, {"sim": [sim_pid], "api": api_pids}, None, token
        )
        total += result["count"]
        rss = sum(rss_mb(p) for p in api_pids)
        peak = sum(rss_mb(p, "VmHWM") for p in api_pids)
        samples.append(rss)
        rate = result["count"] / result["seconds"]
        print(
            f"| {time.monotonic() - started:.0f} | {total} | {rate:.1f} | {rss:.0f} | {peak:.0f} |",
            flush=True,
        )
    print(
        f"RSS growth from the first slice to the last: {samples[-1] - samples[0]:+.1f} MiB "
        f"over {total} comparisons"
    )


if __name__ == "__main__":
    rerun_unless_postgres_answers("FAIRPAIR_TEST_POSTGRES")
    main()
