"""The batch deployment as real processes: sim-judge over HTTP, the API, and `fairpair worker`s."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2

from tests.batches.support import compare_item
from tests.support.processes import FAIRPAIR, free_port, wait_until_up


def judges_file(directory: Path, sim_port: int, extra: str = "") -> Path:
    """One judge: the sim-judge process through the OpenAI provider (`extra` TOML lines added
    to its table)."""
    path = directory / "judges.toml"
    path.write_text(f"""
default_panel = ["http-sim"]

[[judges]]
name = "http-sim"
provider = "openai"
model = "sim-http"
base_url = "http://127.0.0.1:{sim_port}/v1"
api_key = "sk-local"
max_concurrency = 64
{extra}
""")
    return path


START_TIMEOUT_S = 120  # importing the app alone takes 15 s on a loaded 2-core machine


def spawn(args: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    """A `fairpair` process with its output in `log`."""
    with open(log, "ab") as out:
        return subprocess.Popen(
            [FAIRPAIR, *args], env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT
        )


def stop(process: subprocess.Popen[bytes], timeout_s: float = 30) -> None:
    """SIGTERM, then SIGKILL after `timeout_s`."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextlib.contextmanager
def serving(
    args: list[str], env: dict[str, str], health_url: str, log: Path
) -> Iterator[subprocess.Popen[bytes]]:
    """A `fairpair` server process, up and answering `health_url`; stopped on exit."""
    process = spawn(args, env, log)
    try:
        wait_until_up(health_url, timeout_s=START_TIMEOUT_S)
        yield process
    finally:
        stop(process, timeout_s=10)


@dataclass
class Stack:
    """A running API (and its sim judge); workers are started and stopped by the caller."""

    base: str
    env: dict[str, str]
    logs: Path
    process: subprocess.Popen[bytes]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start_worker(self, concurrency: int = 16) -> subprocess.Popen[bytes]:
        """A `fairpair worker` process, logging to the stack's directory."""
        log = self.logs / f"worker-{len(self.workers)}.log"
        process = spawn(["worker", "--concurrency", str(concurrency)], self.env, log)
        self.workers.append(process)
        return process

    def submit(self, count: int, mode: str = "live") -> str:
        """A batch of `count` swap comparisons; its id."""
        items = [compare_item(i) for i in range(count)]
        body = {"items": items, "mode": mode}
        answer = httpx2.post(f"{self.base}/v1/batches", json=body, timeout=120)
        assert answer.status_code == 202, answer.text
        batch_id: str = answer.json()["id"]
        return batch_id

    def stop_workers(self) -> None:
        """SIGTERM every worker still running, SIGKILL after a grace period."""
        for process in self.workers:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.workers:
            stop(process)


def base_env(database_url: str, redis_url: str | None, **settings: Any) -> dict[str, str]:
    """Environment of every process of the stack; `settings` become FAIRPAIR_* variables."""
    env = {
        "FAIRPAIR_DATABASE_URL": database_url,
        "FAIRPAIR_SECRET_KEY": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "FAIRPAIR_AUTH": "off",
        "FAIRPAIR_LOG_LEVEL": "warning",
        **{f"FAIRPAIR_{k.upper()}": str(v) for k, v in settings.items()},
    }
    if redis_url:
        env["FAIRPAIR_REDIS_URL"] = redis_url
    return env


@contextlib.contextmanager
def sim_judge(latency_ms: float = 20, *options: str) -> Iterator[int]:
    """`fairpair sim-judge` on a free port (with more `options`); the port."""
    port = free_port()
    args = ["sim-judge", "--port", str(port), "--latency-ms", str(latency_ms), *options]
    with serving(args, {}, f"http://127.0.0.1:{port}/v1/models", Path(os.devnull)):
        yield port


@contextlib.contextmanager
def api(
    directory: Path, sim_port: int, env: dict[str, str], judge_extra: str = ""
) -> Iterator[Stack]:
    """`fairpair serve` on a free port with the sim judge; workers are stopped on exit."""
    port = free_port()
    judges = judges_file(directory, sim_port, judge_extra)
    env = {**env, "FAIRPAIR_JUDGES_FILE": str(judges)}
    base = f"http://127.0.0.1:{port}"
    log = directory / "api.log"
    with serving(["serve", "--port", str(port)], env, f"{base}/healthz", log) as process:
        stack = Stack(base, env, directory, process)
        try:
            yield stack
        finally:
            stack.stop_workers()
