"""Run `fairpair` commands as real processes on free loopback ports."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2

FAIRPAIR = str(Path(sys.executable).with_name("fairpair"))


# Ports this process handed out: the kernel may give a port just closed again, and two servers
# told to use one port meant the second failed to bind while the first answered its health check
# (a CI run saw `/readyz` answered 404 by the sim-judge on the API's port).
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A port nobody listens on right now, never one this process handed out before."""
    while True:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
        if port not in _HANDED_OUT:
            _HANDED_OUT.add(port)
            return port


def run_fairpair(
    *args: str, env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a fairpair command to completion, whatever it exits with."""
    return subprocess.run(
        [FAIRPAIR, *args],
        cwd=cwd,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def run_cli(*args: str, env: dict[str, str]) -> str:
    """Run a fairpair command that must succeed; its stdout."""
    result = run_fairpair(*args, env=env)
    assert result.returncode == 0, result.stderr
    return result.stdout


def wait_until_up(url: str, timeout_s: float = 30) -> None:
    """Poll `url` until it answers."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx2.TransportError):
            if httpx2.get(url, timeout=1).status_code < 500:
                return
        time.sleep(0.1)
    raise TimeoutError(f"{url} did not come up")


@contextlib.contextmanager
def running(*args: str, env: dict[str, str], health_url: str) -> Iterator[subprocess.Popen[bytes]]:
    """A fairpair process, up and answering `health_url`; terminated on exit."""
    process = subprocess.Popen(
        [FAIRPAIR, *args],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_up(health_url)
        # Something answered; it must be this process (one that could not bind has exited).
        assert process.poll() is None, f"{' '.join(args)} exited: another server answered"
        yield process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:  # open keep-alive connections can hold uvicorn's graceful shutdown
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
