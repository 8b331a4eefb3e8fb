"""CPU the HTTP RED instrumentation adds per request (issue 43), in one process, no network.

    PYTHONPATH=$PWD .venv/bin/python bench/bench_http_metrics.py [--requests 20000] [--rounds 5]
        [--multiprocess] [--app one-route|fairpair]

Two apps, one instrumented as `app.metrics.instrument` does it, are called straight through ASGI
(no server, no client), alternating app by app for `--rounds` rounds of `--requests` requests
each; CPU time (`time.process_time`) per request is printed for both and their difference.
`--app one-route`: a FastAPI app with one templated route (`GET /v1/items/{n}`, a small JSON
answer). `--app fairpair`: `create_app` itself (every route and middleware, auth off), the
other built without `instrument`, asked `GET /healthz` and a path no route matches (`/nope/{n}`,
404: the instrumentator, like the router, tries every route). `--multiprocess`
sets `PROMETHEUS_MULTIPROC_DIR` (a temporary directory) before prometheus-client is imported, as
each process of `serve --workers N` has it: values then live in mmap'ed files.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from typing import Any


def fairpair_apps() -> tuple[Any, Any]:
    """(bare, instrumented): `create_app` without and with `instrument`."""
    from app import main
    from app.config import Settings

    settings = Settings(auth="off", _env_file=None)  # type: ignore[call-arg]
    instrumented = main.create_app(settings)
    real = main.instrument
    main.instrument = lambda app: None  # type: ignore[assignment]
    try:
        bare = main.create_app(settings)
    finally:
        main.instrument = real
    return bare, instrumented


def make_apps() -> tuple[Any, Any]:
    """(bare, instrumented): the same route, the second with the RED middleware."""
    from fastapi import FastAPI

    from app.metrics import instrument

    def build() -> FastAPI:
        app = FastAPI()

        @app.get("/v1/items/{item_id}")
        async def read_item(item_id: str) -> dict[str, str]:
            return {"id": item_id}

        return app

    instrumented = build()
    instrument(instrumented)
    return build(), instrumented


async def call(app: Any, path: str) -> None:
    """One GET through the app's ASGI interface."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 40000),
        "server": ("127.0.0.1", 8000),
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        return None

    await app(scope, receive, send)


async def cpu_per_request(app: Any, requests: int, paths: tuple[str, ...]) -> float:
    start = time.process_time()
    for n in range(requests):
        await call(app, paths[n % len(paths)].format(n=n))
    return (time.process_time() - start) / requests * 1e6


async def main(args: argparse.Namespace) -> None:
    if args.app == "fairpair":
        bare, instrumented = fairpair_apps()
        paths: tuple[str, ...] = ("/healthz", "/nope/{n}")
    else:
        bare, instrumented = make_apps()
        paths = ("/v1/items/{n}",)

    async def cpu_per_request_us(app: Any, requests: int) -> float:
        return await cpu_per_request(app, requests, paths)

    await cpu_per_request_us(bare, 500)  # warm both
    await cpu_per_request_us(instrumented, 500)
    figures: dict[str, list[float]] = {"bare": [], "instrumented": []}
    for _ in range(args.rounds):
        figures["bare"].append(await cpu_per_request_us(bare, args.requests))
        figures["instrumented"].append(await cpu_per_request_us(instrumented, args.requests))
    bare_us, red_us = (statistics.median(figures[k]) for k in ("bare", "instrumented"))
    mode = f"{args.app}, " + ("multiprocess" if args.multiprocess else "single process")
    sys.stdout.write(
        f"{mode}: bare {bare_us:.1f} µs, instrumented {red_us:.1f} µs, added "
        f"{red_us - bare_us:.1f} µs/request (medians of {args.rounds} rounds of "
        f"{args.requests}; rounds bare {[round(v, 1) for v in figures['bare']]}, "
        f"instrumented {[round(v, 1) for v in figures['instrumented']]})\n"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--multiprocess", action="store_true")
    parser.add_argument("--app", choices=["one-route", "fairpair"], default="one-route")
    arguments = parser.parse_args()
    if arguments.multiprocess:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = tempfile.mkdtemp(prefix="bench-metrics-")
    asyncio.run(main(arguments))
