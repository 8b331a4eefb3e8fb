"""`/metrics` of real processes, read with prometheus-client's own parser: one scrape of a
`serve --workers 2` counts the requests of both processes (multiprocess mode, a fresh directory per
start, removed at exit), and `fairpair worker --metrics-port` serves the counts of the batch items,
provider rounds and canary ticks it runs."""

from __future__ import annotations

import shutil
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx2
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from tests.batches.stack import START_TIMEOUT_S, api, base_env, serving, sim_judge, spawn
from tests.batches.support import poll_batch, redis_server
from tests.support.processes import free_port, run_cli, run_fairpair, wait_until_up
from tests.test_metrics import Samples, scrape, total
from tests.test_serve_processes import api_processes

SIM_JUDGES = """
default_panel = ["sim-a"]

[[judges]]
name = "sim-a"
provider = "sim"
model = "sim-a"
"""
HEALTH = "/healthz"


def scrape_until(url: str, done: Callable[[Samples], bool], headers: dict[str, str]) -> Samples:
    """Scrape `url` until `done` holds for what it shows (bounded: START_TIMEOUT_S)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        samples = scrape(httpx2.get(url, headers=headers, timeout=10).text)
        if done(samples) or time.monotonic() > deadline:
            return samples
        time.sleep(0.2)


def health_requests_of(directory: Path, pid: int) -> float:
    """`GET /healthz` requests counted by one process: its counter file alone (none before it
    counted anything)."""
    counters = directory / f"counter_{pid}.db"
    if not counters.exists():
        return 0
    own = directory.parent / f"own-{pid}"
    own.mkdir()
    shutil.copy(counters, own)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, str(own))  # type: ignore[no-untyped-call]
    samples = scrape(generate_latest(registry).decode())
    shutil.rmtree(own)
    return total(samples, "http_requests_total", handler=HEALTH, method="GET", status="2xx")


def test_one_scrape_of_a_two_process_server_counts_both_processes(
    own_pg: str, tmp_path: Path
) -> None:
    parent = tmp_path / "tmp"  # TMPDIR: where the fresh directory goes
    parent.mkdir()
    judges = tmp_path / "judges.toml"
    judges.write_text(SIM_JUDGES)
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with redis_server() as redis:
        env = base_env(own_pg, redis.url) | {
            "FAIRPAIR_JUDGES_FILE": str(judges),
            "TMPDIR": str(parent),
        }
        run_cli("migrate", env=env)
        args = ["serve", "--port", str(port), "--workers", "2"]
        with serving(args, env, f"{base}/readyz", tmp_path / "api.log") as server:
            pids = api_processes(server)
            assert len(pids) == 2
            (directory,) = parent.glob("fairpair-metrics-*")
            # Until each process has answered some (the kernel picks who accepts), bounded.
            sent = 0
            with ThreadPoolExecutor(8) as pool:
                while sent < 4000 and not all(health_requests_of(directory, p) for p in pids):
                    codes = pool.map(lambda _: httpx2.get(f"{base}{HEALTH}").status_code, range(40))
                    assert set(codes) == {200}
                    sent += 40
            per_process = [health_requests_of(directory, pid) for pid in pids]
            assert all(per_process), per_process
            assert sum(per_process) == sent
            for n in range(3):
                assert httpx2.get(f"{base}/scan/{n}").status_code == 404
            compare = {"prompt": "p", "response_a": "a\n[sim q=2]", "response_b": "b\n[sim q=-2]"}
            for _ in range(4):
                assert httpx2.post(f"{base}/v1/compare", json=compare, timeout=60).is_success
            for _ in range(6):  # whichever process answers the scrape, it counts them all
                samples = scrape(httpx2.get(f"{base}/metrics").text)
                health = total(samples, "http_requests_total", handler=HEALTH, status="2xx")
                assert health == sent
                assert total(samples, "http_requests_total", handler="none", status="4xx") == 3
                assert total(samples, "http_requests_total", handler="/v1/compare") == 4
                assert total(samples, "fairpair_comparisons_total", status="complete") == 4
                assert total(samples, "fairpair_judge_calls_total", judge="sim-a") == 8
                assert total(samples, "http_request_duration_seconds_count", handler=HEALTH) == sent
                handlers = {dict(ls)["handler"] for n, ls in samples if n == "http_requests_total"}
                assert not any("scan" in handler for handler in handlers), handlers
        assert server.returncode == 0
    assert list(parent.glob("fairpair-metrics-*")) == []  # removed at exit


def test_a_worker_serves_the_counts_of_the_work_it_runs(own_pg: str, tmp_path: Path) -> None:
    token_value = "scrape-me-0123456789"
    token = {"Authorization": f"Bearer {token_value}"}
    settings = {
        "canary_tick_s": 0.3,
        "provider_tick_s": 0.3,
        "metrics_token": "scrape-me-0123456789",
    }
    with redis_server() as redis, sim_judge() as sim_port:
        env = base_env(own_pg, redis.url, **settings)
        with api(tmp_path, sim_port, env) as stack:
            metrics_port = free_port()
            url = f"http://127.0.0.1:{metrics_port}/metrics"
            args = ["worker", "--concurrency", "4", "--metrics-port", str(metrics_port)]
            stack.workers.append(spawn(args, stack.env, tmp_path / "worker.log"))
            wait_until_up(url, timeout_s=START_TIMEOUT_S)
            assert httpx2.get(url).status_code == 401  # FAIRPAIR_METRICS_TOKEN is set
            assert httpx2.get(url, headers={"Authorization": "Bearer wrong"}).status_code == 401
            batch_id = stack.submit(6)
            poll_batch(stack.base, batch_id, lambda b: b["status"] == "completed", 300)

            def loops_ran(samples: Samples) -> bool:
                return all(
                    total(samples, name, outcome="ok") > 0
                    for name in ("fairpair_provider_steps_total", "fairpair_canary_ticks_total")
                )

            worker = scrape_until(url, loops_ran, token)
            served = scrape(httpx2.get(f"{stack.base}/metrics", headers=token).text)
            # A busy metrics port: one clear line, exit 2, no traceback.
            taken = ["worker", "--metrics-port", str(metrics_port)]
            refused = run_fairpair(*taken, env=stack.env)
    assert total(worker, "fairpair_batch_items_total", state="completed") == 6
    assert total(worker, "fairpair_judge_calls_total", judge="http-sim") == 12
    assert total(worker, "fairpair_comparisons_total", status="complete") == 6
    assert loops_ran(worker)
    for step in ("resolve_unclear", "submit_ready", "poll_due", "wake_ready"):
        assert total(worker, "fairpair_provider_steps_total", step=step, outcome="ok") > 0
    stamps = {
        dict(labels)["loop"]: value
        for (name, labels), value in worker.items()
        if name == "fairpair_loop_last_success_timestamp_seconds"
    }
    assert set(stamps) == {"provider_rounds", "canary_scheduler"}
    assert all(value > 1.7e9 for value in stamps.values())
    assert "http_requests_total" not in {name for name, _ in worker}  # no HTTP app in a worker
    # Counted where they ran: the API, with Redis, ran no item and no judge call.
    assert total(served, "fairpair_batch_items_total") == 0
    assert total(served, "fairpair_judge_calls_total") == 0
    assert total(served, "http_requests_total", handler="/v1/batches", method="POST") == 1
    assert refused.returncode == 2, refused.stderr
    assert f"cannot serve metrics on 127.0.0.1:{metrics_port}" in refused.stderr
    assert "Traceback" not in refused.stderr


def test_a_worker_metrics_host_off_loopback_needs_the_metrics_token(tmp_path: Path) -> None:
    args = ("worker", "--metrics-port", str(free_port()), "--metrics-host", "0.0.0.0")
    env = {"FAIRPAIR_REDIS_URL": "redis://127.0.0.1:1"}
    result: subprocess.CompletedProcess[str] = run_fairpair(*args, env=env, cwd=tmp_path)
    assert result.returncode == 2
    assert "--metrics-host off loopback needs FAIRPAIR_METRICS_TOKEN" in result.stderr
