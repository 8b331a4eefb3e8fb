"""Prometheus metrics: judge calls, comparisons, batch items, and the counters bias comes from.

One module-level `CollectorRegistry` serves the whole process. A metric describes the process, not
an app: batches, the sweeper and the request path all record into it without a registry threaded
through `Services`, and Prometheus sums replicas in PromQL. Several apps in one process (tests)
share the counters, so tests read differences between two scrapes.

The bias counters follow STATISTICS.md so that PromQL reproduces the report across replicas:

- `fairpair_design_calls_total{judge,pick}`: parsed design calls off placebo comparisons;
  first-pick rate = `pick="first"` / (`first` + `second`).
- `fairpair_swap_pairs_total{judge,class}`: swap pairs (round 0 AB and round 1 BA of one judge on
  one comparison, both parsed, off placebo) as `consistent`, `primacy` or `recency`;
  PC = `consistent` / all. Pairs are counted when the comparison finishes, so a comparison cut off
  by shutdown (`interrupted`) counts in the report but not here.
- `fairpair_placebo_design_calls_total{judge,pick}`: the same picks on placebo comparisons.

HTTP RED metrics come from prometheus-fastapi-instrumentator (`instrument`):
`http_requests_total{handler,method,status}` and `http_request_duration_seconds{handler,method,
status}`, where `handler` is the route template (`/v1/comparisons/{comparison_id}`), `none` for a
path no route matches (so a scanner cannot grow the series), and `status` the class (`2xx`...).

Where the numbers are read: `fairpair serve` answers `/metrics` for its process;
`serve --workers N` gives its processes one fresh `PROMETHEUS_MULTIPROC_DIR` (`multiprocess_dir`),
so any of them answers for all (`exposition`); `fairpair worker --metrics-port` serves the
worker's from a thread (`serve_metrics`), where its batch items, provider rounds and canary ticks
run.
"""

from __future__ import annotations

import contextlib
import hmac
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from ipaddress import ip_address
from typing import Any, Literal, Protocol
from wsgiref.simple_server import WSGIRequestHandler, make_server

import structlog
from fastapi import APIRouter, Depends, FastAPI, Request, Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    ProcessCollector,
    generate_latest,
    make_wsgi_app,
    multiprocess,
)
from prometheus_client.exposition import ThreadingWSGIServer
from prometheus_fastapi_instrumentator import metrics as http_metrics
from prometheus_fastapi_instrumentator import routing
from prometheus_fastapi_instrumentator.middleware import PrometheusInstrumentatorMiddleware
from pydantic import SecretStr
from starlette.routing import BaseRoute

from app.deps import KeyCheckDep, SettingsDep, principal_of, require

SwapClass = Literal["consistent", "primacy", "recency"]
log = structlog.get_logger()

REGISTRY = CollectorRegistry()
ProcessCollector(registry=REGISTRY)


def counter(name: str, documentation: str, labels: list[str]) -> Counter:
    """A counter in the process's registry."""
    return Counter(name, documentation, labels, registry=REGISTRY)


CANARY_DRIFT = Gauge(
    "fairpair_canary_drift",
    "1 from the judge's run of the canary that flagged drift until acknowledged, else 0; absent "
    "before a run had an earlier one to compare with (every process "
    "publishes the same value from the database: aggregate with max).",
    ["judge", "canary"],
    registry=REGISTRY,
    multiprocess_mode="mostrecent",  # an acknowledgement (0) replaces the 1 any process set
)
JUDGE_CALLS = counter(
    "fairpair_judge_calls",
    "Judge calls by outcome (parsed or failed) and error kind.",
    ["judge", "outcome", "error_kind"],
)
REASONING_TOKENS = counter(
    "fairpair_judge_reasoning_tokens",
    "Tokens reasoning judges spent reasoning (a part of their output tokens), by judge.",
    ["judge"],
)
# The judge-call cache (app/jobs/callcache.py): look-ups of judges with `cache: true`.
JUDGE_CACHE_LOOKUPS = counter(
    "fairpair_judge_cache_lookups",
    "Judge-call cache look-ups by outcome: hit (answered from a stored call, nothing paid) or "
    "miss (the judge was asked).",
    ["judge", "outcome"],
)
JUDGE_CACHE_SAVED_USD = counter(
    "fairpair_judge_cache_saved_usd",
    "What the stored calls that cache hits repeated had cost: the money the cache saved.",
    ["judge"],
)
JUDGE_CALL_SECONDS = Histogram(
    "fairpair_judge_call_duration_seconds",
    "Judge call latency, retries included.",
    ["judge", "outcome"],
    buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120),
    registry=REGISTRY,
)
JUDGE_RETRIES = counter(
    "fairpair_judge_call_retries", "Retries made within judge calls.", ["judge"]
)
# Off and on placebo comparisons alike, so that PromQL sets one beside the other.
PICK_LABELS = ["judge", "pick"]
DESIGN_CALLS = counter(
    "fairpair_design_calls",
    "Parsed design calls off placebo comparisons, by pick (first, second, tie).",
    PICK_LABELS,
)
PLACEBO_DESIGN_CALLS = counter(
    "fairpair_placebo_design_calls",
    "Parsed design calls on placebo comparisons (identical texts), by pick.",
    PICK_LABELS,
)
SWAP_PAIRS = counter(
    "fairpair_swap_pairs",
    "Swap pairs off placebo comparisons by class (consistent, primacy, recency).",
    ["judge", "class"],
)
COMPARISONS = counter(
    "fairpair_comparisons",
    "Finished comparisons by status (complete, partial, failed) and protocol.",
    ["status", "protocol"],
)
BATCH_ITEMS = counter(
    "fairpair_batch_items", "Batch items finished, by state (completed, failed).", ["state"]
)
PROVIDER_STEPS = counter(
    "fairpair_provider_steps",
    "Steps of the provider rounds (resolve_unclear, submit_ready, poll_due, wake_ready) run by "
    "this process, by outcome (ok, failed).",
    ["step", "outcome"],
)
PROVIDER_JOBS = counter(
    "fairpair_provider_jobs",
    "Provider batch jobs by event: submitted, submit_failed (tried again or looked up), "
    "refused (for good), ended (results mapped), failed_whole (requests sent once more).",
    ["event"],
)
CANARY_TICKS = counter(
    "fairpair_canary_ticks", "Canary scheduler ticks by outcome (ok, failed).", ["outcome"]
)
CANARY_RUNS = counter(
    "fairpair_canary_runs_started",
    "Canary runs this process claimed and sent, by trigger (manual, schedule, version, model).",
    ["trigger"],
)
LOOP_SUCCESS = Gauge(
    "fairpair_loop_last_success_timestamp_seconds",
    "Unix time the background loop (provider_rounds, canary_scheduler) last finished a round "
    "without an error, in this process (across processes: max).",
    ["loop"],
    registry=REGISTRY,
    multiprocess_mode="max",
)

EXPERIMENT_DECISION = Gauge(
    "fairpair_experiment_decision",
    "An experiment's decision: 1 candidate better, -1 baseline better, 0 equivalent; published "
    "by the process that stored it (absent while undecided: aggregate with max).",
    ["experiment"],
    registry=REGISTRY,
    multiprocess_mode="mostrecent",
)
EXPERIMENT_DECISION_CALLS = Histogram(
    "fairpair_experiment_decision_calls",
    "Judge calls an experiment had spent when it decided.",
    buckets=(50, 100, 200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000),
    registry=REGISTRY,
)
_DECISION_VALUES = {"candidate_better": 1.0, "baseline_better": -1.0, "equivalent": 0.0}


class RecordedComparison(Protocol):
    """What the counters read of a comparison (app/ledger/models.py, a layer above)."""

    id: str
    placebo: bool
    protocol: str


class RecordedCall(Protocol):
    """What the counters read of a judge call."""

    judge_name: str
    round: int
    design: bool
    display_order: str
    pick: str | None
    error_kind: str | None
    retries: int
    latency_ms: float
    reasoning_tokens: int | None
    cached_from: int | None


_AB_WINNER = {"first": "A", "second": "B", "tie": "tie"}
_BA_WINNER = {"first": "B", "second": "A", "tie": "tie"}


def swap_class(p1: str, p2: str) -> SwapClass:
    """The class of a swap pair from the picks of its AB call (p1) and BA call (p2)."""
    if _AB_WINNER[p1] == _BA_WINNER[p2]:
        return "consistent"
    return "primacy" if "second" not in (p1, p2) else "recency"


def record_cache_lookup(judge: str, saved_usd: float | None) -> None:
    """Count one cache look-up: a hit when `saved_usd` (what the repeated call cost) is given."""
    if saved_usd is None:
        JUDGE_CACHE_LOOKUPS.labels(judge, "miss").inc()
        return
    JUDGE_CACHE_LOOKUPS.labels(judge, "hit").inc()
    JUDGE_CACHE_SAVED_USD.labels(judge).inc(saved_usd)


def count_reasoning_tokens(judge: str, tokens: int | None) -> None:
    """Add a call's reasoning tokens to its judge's counter (pair and score calls alike)."""
    if tokens:
        REASONING_TOKENS.labels(judge).inc(tokens)


def record_call(comparison: RecordedComparison, call: RecordedCall) -> None:
    """Count one completed judge call: outcome, latency, retries and, for design calls, the pick.
    A call answered from the cache is not a call to the judge: the cache's counters have it, and
    the bias counters count the call it repeats once (STATISTICS.md)."""
    if call.cached_from is not None:
        return
    outcome = "failed" if call.pick is None else "parsed"
    if call.pick is None:
        log.warning(
            "judge_call_failed",
            comparison_id=comparison.id,
            judge=call.judge_name,
            round=call.round,
            error_kind=call.error_kind,
            retries=call.retries,
        )
    JUDGE_CALLS.labels(call.judge_name, outcome, call.error_kind or "").inc()
    JUDGE_CALL_SECONDS.labels(call.judge_name, outcome).observe(call.latency_ms / 1000)
    if call.retries:
        JUDGE_RETRIES.labels(call.judge_name).inc(call.retries)
    count_reasoning_tokens(call.judge_name, call.reasoning_tokens)
    if call.design and call.pick is not None:
        picks = PLACEBO_DESIGN_CALLS if comparison.placebo else DESIGN_CALLS
        picks.labels(call.judge_name, call.pick).inc()


def swap_pair(calls: Iterable[RecordedCall]) -> tuple[str, str] | None:
    """The (AB, BA) picks of one judge's round 0 and round 1, when both parsed."""
    picks = {
        (c.round, c.display_order): c.pick for c in calls if c.design and c.cached_from is None
    }
    p1, p2 = picks.get((0, "AB")), picks.get((1, "BA"))
    return (p1, p2) if p1 is not None and p2 is not None else None


def record_comparison(
    comparison: RecordedComparison, status: str, calls: Mapping[str, Iterable[RecordedCall]]
) -> None:
    """Count (and log) a finished comparison and, off placebo, the swap pair of each judge."""
    COMPARISONS.labels(status, comparison.protocol).inc()
    log.info(
        "comparison_finished",
        comparison_id=comparison.id,
        judges=list(calls),
        status=status,
        protocol=comparison.protocol,
    )
    if comparison.placebo:
        return
    for judge, judge_calls in calls.items():
        pair = swap_pair(judge_calls)
        if pair is not None:
            SWAP_PAIRS.labels(judge, swap_class(*pair)).inc()


def record_batch_item(state: str) -> None:
    """Count a finished batch item."""
    BATCH_ITEMS.labels(state).inc()


def record_loop_success(loop: str) -> None:
    """A background loop finished a round without an error (its staleness is the alert)."""
    LOOP_SUCCESS.labels(loop).set_to_current_time()


def record_experiment_decision(experiment: str, decision: str, calls: int) -> None:
    """Publish a decision the moment it is stored, with the calls it took."""
    EXPERIMENT_DECISION.labels(experiment).set(_DECISION_VALUES[decision])
    EXPERIMENT_DECISION_CALLS.observe(calls)


def _is_loopback(request: Request) -> bool:
    if request.client is None:
        return False
    try:
        return ip_address(request.client.host).is_loopback
    except ValueError:
        return False


_require_read = require("read")


def _shows_token(authorization: str, token: SecretStr) -> bool:
    scheme, _, given = authorization.partition(" ")
    expected = token.get_secret_value().encode()
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), expected)


async def scrape_access(request: Request, keys: KeyCheckDep, settings: SettingsDep) -> None:
    """With `metrics_token` set, its bearer token; without it, any loopback scraper. Anyone
    else needs a key with the `read` scope."""
    token = settings.metrics_token
    authorization = request.headers.get("authorization", "")
    if _shows_token(authorization, token) if token is not None else _is_loopback(request):
        return
    await _require_read(await principal_of(request, keys))


router = APIRouter(tags=["operations"])


@router.get(
    "/metrics",
    operation_id="metrics",
    dependencies=[Depends(scrape_access)],
    response_class=Response,
    responses={
        200: {
            "description": "Prometheus text exposition format",
            "content": {"text/plain": {"schema": {"type": "string"}}},
        },
        401: {
            "description": "no valid key or metrics token (scrapers off loopback, or any "
            "scraper when `FAIRPAIR_METRICS_TOKEN` is set)",
            "content": {"application/problem+json": {}},
        },
        403: {"description": "missing scope", "content": {"application/problem+json": {}}},
    },
)
async def metrics() -> Response:
    """Prometheus metrics of this process (open on loopback unless a metrics token is set;
    else the token or a `read` key)."""
    return Response(exposition(), media_type=CONTENT_TYPE_LATEST)


# HTTP RED metrics, made once per process: the instrumentator's own functions, which skip a
# metric already in the registry (the second app of a test process would record nothing).
_HTTP_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)
HTTP_REQUESTS = http_metrics.requests(registry=REGISTRY)
HTTP_DURATION = http_metrics.latency(buckets=_HTTP_BUCKETS, registry=REGISTRY)


class _TemplatesOnly(PrometheusInstrumentatorMiddleware):
    """The instrumentator's middleware with the route looked up among the app's templates only,
    from a list flattened once (it flattens every router's routes on each request, most of its
    cost: BENCHMARKS.md). Its own lookup names a path that matches only with a trailing slash
    toggled by the raw path, so `/v1/comparisons/<anything>/` made a series each: here such a
    path is `none`, like any path no route matches."""

    _routes: list[BaseRoute] | None = None

    def _get_handler(self, request: Request) -> tuple[str, bool]:
        if self._routes is None:
            self._routes = routing._effective_routes(request.app.routes)
        name = routing._get_route_name(request.scope, self._routes)
        return (name, True) if name is not None else (request.url.path, False)


def instrument(app: FastAPI) -> None:
    """Count every request of `app` by route template, method and status class, with its
    duration (the outermost middleware: refusals by the others are counted too)."""
    assert HTTP_REQUESTS is not None  # made once, above
    assert HTTP_DURATION is not None
    app.add_middleware(
        _TemplatesOnly,
        should_group_untemplated=True,
        instrumentations=(HTTP_REQUESTS, HTTP_DURATION),
        registry=REGISTRY,
    )


MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"


def scrape_registry() -> CollectorRegistry:
    """What a scrape reads: this process's registry, or with `PROMETHEUS_MULTIPROC_DIR` set
    (`serve --workers N`) every process's files, summed (gauges as each declares)."""
    path = os.environ.get(MULTIPROC_DIR)
    if not path:
        return REGISTRY
    merged = CollectorRegistry()
    multiprocess.MultiProcessCollector(merged, path)  # type: ignore[no-untyped-call]
    return merged


def exposition() -> bytes:
    """The text of a scrape."""
    return generate_latest(scrape_registry())


@contextlib.contextmanager
def multiprocess_dir() -> Iterator[str]:
    """A fresh `PROMETHEUS_MULTIPROC_DIR` (in the temporary directory, `TMPDIR`) in the
    environment the API processes inherit, removed at exit: files left by an earlier start would
    add its counts to this one's. One the operator set is put back afterwards, never used: a
    directory shared by several starts sums them all."""
    before = os.environ.get(MULTIPROC_DIR)
    path = tempfile.mkdtemp(prefix="fairpair-metrics-")
    os.environ[MULTIPROC_DIR] = path
    try:
        yield path
    finally:
        if before is None:
            os.environ.pop(MULTIPROC_DIR, None)
        else:
            os.environ[MULTIPROC_DIR] = before
        shutil.rmtree(path, ignore_errors=True)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes are not logged: one every few seconds says nothing."""


def serve_metrics(host: str, port: int, token: SecretStr | None) -> Callable[[], None]:
    """Serve `exposition()` on `host:port` from a thread (the worker's, which has no API); with
    `token`, only to its bearer. Returns the stop. OSError when the port cannot be bound."""
    scrape = make_wsgi_app(scrape_registry())

    def guarded(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if token is not None and not _shows_token(environ.get("HTTP_AUTHORIZATION", ""), token):
            start_response("401 Unauthorized", [("WWW-Authenticate", "Bearer")])
            return [b"the metrics token (FAIRPAIR_METRICS_TOKEN) is needed as a bearer token\n"]
        return scrape(environ, start_response)  # type: ignore[no-any-return]

    server = make_server(host, port, guarded, ThreadingWSGIServer, handler_class=_QuietHandler)
    thread = threading.Thread(target=server.serve_forever, name="metrics", daemon=True)
    thread.start()

    def stop() -> None:
        server.shutdown()
        server.server_close()

    return stop
