"""`fairpair` as real processes: migrate, keys, serve on PostgreSQL and on the embedded default,
judging through the openai provider against `fairpair sim-judge` over real HTTP, and a SIGKILL
(whose kept calls the restarted service's report counts)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

import httpx2
import pytest
from sqlalchemy import select

from app.db import create_engine, create_sessionmaker
from app.judges.models import JudgeVersion
from app.ledger.models import Comparison, JudgeCall
from tests.batches.support import redis_server
from tests.support.databases import create_database, drop_database, sqlalchemy_url
from tests.support.processes import (
    FAIRPAIR,
    free_port,
    run_cli,
    run_fairpair,
    running,
    wait_until_up,
)

EQUAL = "\n[sim q=0]"
SECRET_KEY = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
T = TypeVar("T")


def judges_file(tmp_path: Path, sim_port: int) -> Path:
    path = tmp_path / "judges.toml"
    path.write_text(f"""
default_panel = ["http-sim"]

[[judges]]
name = "http-sim"
provider = "openai"
model = "sim-http"
base_url = "http://127.0.0.1:{sim_port}/v1"
api_key = "sk-local"
""")
    return path


async def rows(url: str, model: type[T]) -> list[T]:
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        result = list(await session.scalars(select(model)))
    await engine.dispose()
    return result


def test_postgresql_deployment_round_trips_judges_and_compares_over_real_http(
    own_pg: str, tmp_path: Path
) -> None:
    sim_port, api_port = free_port(), free_port()
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": SECRET_KEY,
        "FAIRPAIR_JUDGES_FILE": str(judges_file(tmp_path, sim_port)),
        # The API-posted judge below is the sim judge on loopback (README "Security").
        "FAIRPAIR_JUDGE_HOSTS_ALLOW": "127.0.0.1",
    }
    run_cli("migrate", env=env)
    admin = run_cli("keys", "create", "--name", "ops", "--scopes", "admin", env=env).strip()
    admin = admin.splitlines()[-1]
    reader = run_cli("keys", "create", "--name", "ro", "--scopes", "read", env=env).splitlines()[-1]
    base = f"http://127.0.0.1:{api_port}"
    with (
        running(
            "sim-judge",
            "--port",
            str(sim_port),
            "--latency-ms",
            "20",
            env={},
            health_url=f"http://127.0.0.1:{sim_port}/v1/models",
        ),
        running(
            "serve",
            "--host",
            "127.0.0.1",
            "--port",
            str(api_port),
            env=env,
            health_url=f"{base}/healthz",
        ),
    ):
        assert httpx2.get(f"{base}/readyz").status_code == 200
        assert httpx2.get(f"{base}/v1/judges").status_code == 401
        as_admin = {"Authorization": f"Bearer {admin}"}
        judge = {
            "name": "api-judge",
            "provider": "openai",
            "model": "gpt-4o-mini",
            "base_url": f"http://127.0.0.1:{sim_port}/v1",
            "api_key": "sk-never-echoed",
        }
        created = httpx2.post(f"{base}/v1/judges", json=judge, headers=as_admin)
        assert created.status_code == 201
        assert "sk-never-echoed" not in created.text
        listed = httpx2.get(f"{base}/v1/judges", headers=as_admin)
        assert "api-judge" in listed.text
        assert "sk-never-echoed" not in listed.text
        forbidden = httpx2.post(
            f"{base}/v1/judges",
            json={**judge, "name": "x"},
            headers={"Authorization": f"Bearer {reader}"},
        )
        assert forbidden.status_code == 403
        body = {
            "prompt": "2+2?",
            "response_a": "4\n[sim q=8]",
            "response_b": "5\n[sim q=-8]",
            "judges": ["http-sim", "api-judge"],
        }
        answer = httpx2.post(f"{base}/v1/compare", json=body, headers=as_admin, timeout=30)
        assert answer.status_code == 200, answer.text
        assert answer.json()["winner"] == "A"
        assert answer.json()["status"] == "complete"
    ciphertexts = [v.api_key_ciphertext for v in asyncio.run(rows(own_pg, JudgeVersion))]
    assert any(ciphertexts)
    assert all("sk-never-echoed" not in (c or "") for c in ciphertexts)


def test_embedded_default_serves_health_openapi_and_a_simulated_comparison(tmp_path: Path) -> None:
    port = free_port()
    env = {"FAIRPAIR_AUTH": "off"}
    base = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [FAIRPAIR, "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=tmp_path,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_until_up(f"{base}/healthz")
        assert httpx2.get(f"{base}/openapi.json").json()["info"]["title"] == "fairpair"
        answer = httpx2.post(
            f"{base}/v1/compare",
            timeout=30,
            json={"prompt": "p", "response_a": "a", "response_b": "b"},
        )
        assert answer.status_code == 200
        assert answer.json()["simulated"] is True
        assert answer.headers["fairpair-simulated"] == "true"
        assert (tmp_path / "fairpair.db").exists()
    finally:
        process.terminate()
        process.wait(timeout=15)


def test_auth_off_on_a_public_address_refuses_to_start(tmp_path: Path) -> None:
    args = ("serve", "--host", "0.0.0.0", "--port", str(free_port()))
    result = run_fairpair(*args, env={"FAIRPAIR_AUTH": "off"}, cwd=tmp_path)
    assert result.returncode != 0
    assert "loopback" in result.stderr


async def test_a_database_without_migrations_refuses_to_start_in_one_line(
    tmp_path: Path,
) -> None:
    """Issue 37: `serve` and `worker` on an unmigrated PostgreSQL printed a page of traceback
    from the first query; now one line says what to run. An unreachable database says so, by
    the error's class only (a driver's message may quote the URL and its password)."""
    empty = await create_database()
    try:
        env = {"FAIRPAIR_DATABASE_URL": sqlalchemy_url(empty), "FAIRPAIR_SECRET_KEY": SECRET_KEY}
        commands = (("serve", "--port", str(free_port())), ("worker",))
        for args in commands:
            worker_env = (
                {"FAIRPAIR_REDIS_URL": "redis://127.0.0.1:1"} if args == ("worker",) else {}
            )
            result = await asyncio.to_thread(
                run_fairpair, *args, env=env | worker_env, cwd=tmp_path
            )
            assert result.returncode == 2, result.stderr
            assert "Traceback" not in result.stderr
            assert "run `fairpair migrate` first" in result.stderr
        unreachable = "postgresql+asyncpg://me:hunter2@127.0.0.1:1/none"
        args = ("serve", "--port", str(free_port()))
        result = await asyncio.to_thread(
            run_fairpair, *args, env=env | {"FAIRPAIR_DATABASE_URL": unreachable}, cwd=tmp_path
        )
        assert result.returncode == 2
        assert "the database does not answer" in result.stderr
        assert "hunter2" not in result.stderr
    finally:
        await drop_database(empty)


@pytest.mark.slow
def test_sigkill_mid_comparison_keeps_completed_calls_and_the_sweeper_closes_it(
    own_pg: str, tmp_path: Path
) -> None:
    sim_port, api_port = free_port(), free_port()
    env = {
        "FAIRPAIR_DATABASE_URL": own_pg,
        "FAIRPAIR_SECRET_KEY": SECRET_KEY,
        "FAIRPAIR_AUTH": "off",
        "FAIRPAIR_SWEEP_GRACE_S": "0",
        "FAIRPAIR_JUDGES_FILE": str(judges_file(tmp_path, sim_port)),
    }
    base = f"http://127.0.0.1:{api_port}"
    body = {
        "prompt": "p",
        "response_a": "a" + EQUAL,
        "response_b": "b" + EQUAL,
        "protocol": {"kind": "shuffle", "pairs": 5},
        "timeout_s": 4,
    }
    with running(
        "sim-judge",
        "--port",
        str(sim_port),
        "--latency-ms",
        "700",
        "--tie-rate",
        "1",
        env={},
        health_url=f"http://127.0.0.1:{sim_port}/v1/models",
    ):
        with running(
            "serve", "--port", str(api_port), env=env, health_url=f"{base}/healthz"
        ) as api:
            # All-tie pairs never reach a majority early: kill during the second pair.
            killer = _kill_after(api, 1.2)
            with pytest.raises(httpx2.TransportError):
                httpx2.post(f"{base}/v1/compare", json=body, timeout=10)
            killer.join()
        comparison = asyncio.run(rows(own_pg, Comparison))[0]
        calls = asyncio.run(rows(own_pg, JudgeCall))
        assert comparison.status == "running"
        assert sorted(c.round for c in calls) == [0, 1]
        time.sleep(max(0.0, (comparison.deadline_at.timestamp() - time.time())) + 0.5)
        with running("serve", "--port", str(api_port), env=env, health_url=f"{base}/healthz"):
            swept = asyncio.run(rows(own_pg, Comparison))[0]
            # Stopped now: the report folds it and counts both of its kept calls.
            report = httpx2.get(f"{base}/v1/bias-report", timeout=30).json()
    assert (swept.status, swept.error_kind) == ("partial", "interrupted")
    assert len(asyncio.run(rows(own_pg, JudgeCall))) == 2
    assert [judge["calls"]["total"] for judge in report["judges"]] == [2]
    assert asyncio.run(rows(own_pg, Comparison))[0].folded


def _kill_after(process: subprocess.Popen[bytes], seconds: float) -> threading.Thread:
    def kill() -> None:
        time.sleep(seconds)
        process.send_signal(signal.SIGKILL)
        process.wait()

    thread = threading.Thread(target=kill)
    thread.start()
    return thread


def test_sqlite_deployment_compares_through_the_sim_judge_over_http(tmp_path: Path) -> None:
    sim_port, api_port = free_port(), free_port()
    env = {
        "FAIRPAIR_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'fp.db'}",
        "FAIRPAIR_AUTH": "off",
        "FAIRPAIR_JUDGES_FILE": str(judges_file(tmp_path, sim_port)),
    }
    base = f"http://127.0.0.1:{api_port}"
    with (
        running(
            "sim-judge",
            "--port",
            str(sim_port),
            env={},
            health_url=f"http://127.0.0.1:{sim_port}/v1/models",
        ),
        running("serve", "--port", str(api_port), env=env, health_url=f"{base}/healthz"),
    ):
        # A quality gap that no draw overturns (logit 24; a gap of 4 lost a call 1 in 400).
        body = {"prompt": "p", "response_a": "a\n[sim q=-8]", "response_b": "b\n[sim q=8]"}
        answer = httpx2.post(f"{base}/v1/compare", json=body, timeout=30).json()
        assert (answer["status"], answer["winner"], answer["simulated"]) == ("complete", "B", False)
        stored = httpx2.get(f"{base}/v1/comparisons/{answer['id']}").json()
        assert stored == answer


def api_processes(server: subprocess.Popen[bytes]) -> list[int]:
    """The uvicorn worker processes under `fairpair serve --workers N` (not multiprocessing's
    resource tracker)."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    return [
        int(pid)
        for pid in children
        if "resource_tracker" not in Path(f"/proc/{pid}/cmdline").read_bytes().decode()
    ]


def test_two_api_processes_share_the_port_answer_and_shut_down_gracefully(
    own_pg: str, tmp_path: Path
) -> None:
    sim_port, api_port = free_port(), free_port()
    with redis_server() as redis:
        env = {
            "FAIRPAIR_DATABASE_URL": own_pg,
            "FAIRPAIR_REDIS_URL": redis.url,
            "FAIRPAIR_SECRET_KEY": SECRET_KEY,
            "FAIRPAIR_JUDGES_FILE": str(judges_file(tmp_path, sim_port)),
        }
        run_cli("migrate", env=env)
        admin = run_cli("keys", "create", "--name", "ops", "--scopes", "admin", env=env)
        headers = {"Authorization": f"Bearer {admin.splitlines()[-1]}"}
        base = f"http://127.0.0.1:{api_port}"
        body = {"prompt": "2+2?", "response_a": "4\n[sim q=2]", "response_b": "5\n[sim q=-2]"}
        sim_url = f"http://127.0.0.1:{sim_port}/v1/models"
        with (
            running("sim-judge", "--port", str(sim_port), "--latency-ms", "400", env={},
                    health_url=sim_url),
            running("serve", "--port", str(api_port), "--workers", "2", env=env,
                    health_url=f"{base}/readyz") as server,
        ):  # fmt: skip
            assert len(api_processes(server)) == 2

            def compare() -> httpx2.Response:
                return httpx2.post(f"{base}/v1/compare", json=body, headers=headers, timeout=30)

            with ThreadPoolExecutor(4) as pool:
                answers = list(pool.map(lambda _: compare(), range(4)))
                assert [a.status_code for a in answers] == [200] * 4
                assert {a.json()["status"] for a in answers} == {"complete"}
                in_flight = pool.submit(compare)
                time.sleep(0.2)  # the judges are thinking (400 ms a call)
                server.send_signal(signal.SIGTERM)
                assert in_flight.result().status_code == 200  # drained, not cut
            assert server.wait(timeout=30) == 0
    stored = asyncio.run(rows(own_pg, Comparison))
    assert [c.status for c in stored] == ["complete"] * 5


def test_more_than_one_api_process_is_refused_on_the_embedded_default(tmp_path: Path) -> None:
    args = ("serve", "--port", str(free_port()), "--workers", "2")
    result = run_fairpair(*args, env={}, cwd=tmp_path)
    assert result.returncode == 2
    assert "--workers > 1 needs PostgreSQL" in result.stderr
