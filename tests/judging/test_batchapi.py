"""The judges' provider batch APIs (issue 24) against the sim judge over real HTTP: what a batch
answers equals what the live endpoint answers to the same body, and every way a job or request
ends maps to the judging layer's kinds."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

import httpx2
import orjson
import pytest
import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from app.judging import batchapi
from app.judging.batchapi import (
    BatchApi,
    BatchRequest,
    ReportedBatchJob,
    RequestResult,
    jsonl_objects,
    same_origin,
)
from app.judging.egress import EgressPolicy
from app.judging.judge import ChatRequest, Completion, redact
from app.judging.providers import anthropic, build_judge, openai
from app.judging.providers.http import HttpJudge, HttpxWire
from app.judging.providers.wire import LeanWire
from app.judging.retries import ProviderCallError
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, SimKnobs
from app.simjudge.server import SimJudgeApp
from tests.judging.servers import answer, scripted_server
from tests.support.processes import free_port

Provider = Literal["openai", "anthropic"]
PROVIDERS: tuple[Provider, ...] = ("openai", "anthropic")
KEY = "sk-batch-test-0123456789abcdef"
LOOPBACK = EgressPolicy.parse(["127.0.0.1"])
# Some first answers are 429s and 500s, so both kinds of outcome come back.
KNOBS = SimKnobs(position_bias=0.5, error_rate=0.3, rate_limit_rate=0.2, seed=3)
CLEAN = SimKnobs(position_bias=0.5, seed=1)


@contextmanager
def serving(app: ASGIApp) -> Iterator[int]:
    """`app` under uvicorn on a free 127.0.0.1 port, in a thread; yields the port."""
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    give_up_at = time.monotonic() + 10
    while not server.started:
        assert thread.is_alive(), "the server stopped"
        assert time.monotonic() < give_up_at, "the server did not start"
        time.sleep(0.01)
    try:
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=5)


@dataclass
class Sim:
    """A sim judge served over HTTP, and the paths it was asked for."""

    app: SimJudgeApp
    port: int = 0
    paths: list[str] = field(default_factory=list)

    def judge(
        self,
        provider: Provider,
        *,
        egress: EgressPolicy = LOOPBACK,
        transport: httpx2.AsyncBaseTransport | None = None,
    ) -> HttpJudge:
        base_url = f"http://127.0.0.1:{self.port}" + ("/v1" if provider == "openai" else "")
        model = {"openai": "gpt-sim", "anthropic": "claude-sim"}[provider]
        config = JudgeConfig(
            name=f"{provider}-judge",
            provider=provider,
            model=model,
            base_url=base_url,
            api_key=KEY,
            logprobs=True,
            json_mode=True,
            max_attempts=1,
        )
        judge = build_judge(config, egress=egress, transport=transport)
        assert isinstance(judge, HttpJudge)
        return judge

    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"


class Recorder:
    """Serves the sim, noting each request's path; `host` replaces the Host header it sees
    (a provider that names another origin in its URLs)."""

    def __init__(self, sim: Sim, host: str | None = None) -> None:
        self.sim, self.host = sim, host

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            self.sim.paths.append(f"{scope['method']} {scope['path']}")
            if self.host is not None:
                headers = [(k, v) for k, v in scope["headers"] if k != b"host"]
                scope = {**scope, "headers": [*headers, (b"host", self.host.encode())]}
        await self.sim.app(scope, receive, send)


@contextmanager
def running(knobs: SimKnobs, host: str | None = None) -> Iterator[Sim]:
    sim = Sim(SimJudgeApp(knobs))
    with serving(Recorder(sim, host)) as port:
        sim.port = port
        yield sim


def chat_requests(judge: HttpJudge, count: int) -> list[ChatRequest]:
    """Rendered pairwise prompts, and one scoring prompt, as the judge asks them live."""
    requests = []
    for index in range(count - 1):
        first = f"Answer {index}.\n[sim q={(index % 5 - 2) / 2}]"
        second = f"Other answer {index}.\n[sim q={(index % 3 - 1) / 2}]"
        rendered = judge.renderer.render_pair(
            "Which is right?", first, second, rng=random.Random(index)
        )
        requests.append(ChatRequest(rendered.system, rendered.user, "pair", True))
    texts = ["One.\n[sim q=1]", "Two.\n[sim q=-1]"]
    scores = judge.renderer.render_scores(
        "Score them.", texts, DEFAULT_RUBRIC, rng=random.Random(99), max_chars=10_000
    )
    requests.append(ChatRequest(scores.system, scores.user, "scores", True))
    return [
        ChatRequest(r.system, r.user, r.answer_kind, judge.config.use_logprobs) for r in requests
    ]


def batch_requests(judge: HttpJudge, count: int) -> list[BatchRequest]:
    return [
        BatchRequest(f"call-{index}", judge.request_body(request))
        for index, request in enumerate(chat_requests(judge, count))
    ]


async def ended(api: BatchApi, job: ReportedBatchJob) -> ReportedBatchJob:
    """The job once it has ended, polled as the orchestrator does."""
    for _ in range(200):
        if job.ended:
            return job
        await asyncio.sleep(0.05)
        job = await api.retrieve(job.id)
    raise AssertionError(f"{job.id} did not end: {job.state}")


async def all_results(api: BatchApi, job: ReportedBatchJob) -> list[RequestResult]:
    """Every result of an ended job, its chunks joined."""
    return [result async for chunk in api.results(job) for result in chunk]


Outcome = Completion | tuple[str | None, str | None]


async def live_outcome(judge: HttpJudge, request: ChatRequest) -> Outcome:
    """What one live request (a first attempt, no retries) gives."""
    try:
        return await judge._complete(request, 10)
    except ProviderCallError as err:
        return err.kind, redact(err.message, KEY)


def outcome(result: RequestResult) -> Outcome:
    if result.completion is not None:
        return result.completion
    return result.error_kind, result.error


def by_id(results: list[RequestResult]) -> dict[str, RequestResult]:
    return {result.custom_id: result for result in results}


# --- a job from submission to cleanup -----------------------------------------------------------


@pytest.mark.parametrize("wire", ["lean", "transport"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_batch_results_equal_the_live_answers_to_the_same_bodies(
    provider: Provider, wire: str
) -> None:
    # A delay exact in binary: the sim's pace at the deadline could otherwise round one short.
    with running(replace(KNOBS, batch_delay_s=0.25)) as sim:
        transport = httpx2.ASGITransport(app=sim.app) if wire == "transport" else None
        judge = sim.judge(provider, transport=transport)
        api = judge.batch_api()
        requests = batch_requests(judge, 8)
        submitted = await api.submit(requests, {"fairpair_batch": "b1"})
        assert (submitted.total, submitted.ended, submitted.failed_whole) == (8, False, False)
        assert submitted.expires_at is not None
        assert abs(submitted.expires_at - datetime.now(UTC) - timedelta(hours=24)).seconds < 60
        job = await ended(api, submitted)
        results = by_id(await all_results(api, job))
        live = [await live_outcome(judge, request) for request in chat_requests(judge, 8)]
        await judge.aclose()
    assert set(results) == {r.custom_id for r in requests}
    assert [outcome(results[f"call-{i}"]) for i in range(8)] == live
    kinds = {result.error_kind for result in results.values()}
    assert kinds == {None, "rate_limited", "server_error"}
    succeeded = sum(result.completion is not None for result in results.values())
    assert (job.succeeded, job.failed, job.total) == (succeeded, 8 - succeeded, 8)


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_cleanup_deletes_what_the_job_left_and_may_run_twice(provider: Provider) -> None:
    with running(CLEAN) as sim:
        judge = sim.judge(provider)
        api = judge.batch_api()
        job = await ended(api, await api.submit(batch_requests(judge, 3), {}))
        await api.cleanup(job)
        await api.cleanup(job)  # already gone: fine
        async with httpx2.AsyncClient(base_url=sim.origin()) as client:
            if provider == "openai":
                files = [job.input_file_id, job.output_file_id]
                assert all(files)
                assert job.error_file_id is None
                gone = [(await client.get(f"/v1/files/{file_id}")).status_code for file_id in files]
                assert gone == [404, 404]
            else:
                gone = [(await client.get(f"/v1/messages/batches/{job.id}")).status_code]
                assert gone == [404]
        await judge.aclose()


@pytest.mark.parametrize(
    ("provider", "cancelling"), [("openai", "cancelling"), ("anthropic", "canceling")]
)
async def test_a_cancelled_job_ends_with_every_unrun_request_cancelled(
    provider: Provider, cancelling: str
) -> None:
    with running(SimKnobs(batch_delay_s=600)) as sim:
        judge = sim.judge(provider)
        api = judge.batch_api()
        job = await api.submit(batch_requests(judge, 4), {})
        stopping = await api.cancel(job.id)
        assert (stopping.state, stopping.ended) == (cancelling, False)
        job = await ended(api, stopping)
        results = await all_results(api, job)
        with pytest.raises(ProviderCallError) as again:
            await api.cancel(job.id)
        await judge.aclose()
    assert job.state == ("cancelled" if provider == "openai" else "ended")
    assert (job.succeeded, job.failed) == (0, 4)
    assert {(r.error_kind, r.completion) for r in results} == {("cancelled", None)}
    assert len(results) == 4
    assert again.value.kind == "bad_request"


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_an_expired_job_answers_half_and_expires_the_rest(provider: Provider) -> None:
    with running(SimKnobs(position_bias=0.5, seed=1, batch_outcome="expired")) as sim:
        judge = sim.judge(provider)
        api = judge.batch_api()
        job = await ended(api, await api.submit(batch_requests(judge, 8), {}))
        results = by_id(await all_results(api, job))
        await judge.aclose()
    assert job.state == ("expired" if provider == "openai" else "ended")
    assert not job.failed_whole
    assert (job.succeeded, job.failed) == (4, 4)
    assert [results[f"call-{i}"].error_kind for i in range(8)] == [None] * 4 + ["expired"] * 4
    assert all(results[f"call-{i}"].completion is not None for i in range(4))


async def test_an_openai_job_that_fails_validation_fails_whole_without_results() -> None:
    with running(SimKnobs(batch_outcome="failed")) as sim:
        judge = sim.judge("openai")
        api = judge.batch_api()
        job = await ended(api, await api.submit(batch_requests(judge, 3), {}))
        results = await all_results(api, job)
        await judge.aclose()
    assert (job.state, job.ended, job.failed_whole) == ("failed", True, True)
    assert job.error is not None
    assert "batch_outcome=failed" in job.error
    assert (job.output_file_id, job.error_file_id, results) == (None, None, [])


async def test_an_anthropic_job_that_fails_errors_every_request_as_live_would() -> None:
    with running(SimKnobs(batch_outcome="failed")) as sim:
        judge = sim.judge("anthropic")
        api = judge.batch_api()
        job = await ended(api, await api.submit(batch_requests(judge, 3), {}))
        results = await all_results(api, job)
        await judge.aclose()
    assert (job.state, job.failed_whole, job.failed) == ("ended", False, 3)
    body = {
        "type": "error",
        "error": {"type": "api_error", "message": "the simulated batch failed"},
    }
    expected = ("server_error", f"HTTP 500: Error code: 500 - {body}")
    assert {(r.error_kind, r.error) for r in results} == {expected}


async def test_results_from_a_url_on_another_origin_are_refused() -> None:
    with running(CLEAN, host="results.elsewhere.test") as sim:
        judge = sim.judge("anthropic")
        api = judge.batch_api()
        job = await ended(api, await api.submit(batch_requests(judge, 2), {}))
        assert job.results_url is not None
        assert job.results_url.startswith("http://results.elsewhere.test/")
        with pytest.raises(ProviderCallError, match="not the judge's origin") as refused:
            await all_results(api, job)
        await judge.aclose()
    assert refused.value.kind == "server_error"
    assert not any(path.endswith("/results") for path in sim.paths)


@pytest.mark.parametrize(
    ("url", "same"),
    [
        ("http://127.0.0.1:8000/v1/messages/batches/b/results", True),
        ("HTTP://127.0.0.1:8000/x?page=2", True),
        ("http://127.0.0.1:8001/x", False),
        ("https://127.0.0.1:8000/x", False),
        ("http://localhost:8000/x", False),
        ("http://user:pw@127.0.0.1:8000/x", False),
        ("http://127.0.0.1:port/x", False),
    ],
)
def test_same_origin_is_scheme_host_and_port(url: str, same: bool) -> None:
    assert same_origin(url, "http://127.0.0.1:8000") is same
    assert same_origin("https://api.anthropic.com:443/v1/x", "https://api.anthropic.com")


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_url_policy_refuses_batch_calls_to_a_forbidden_address(
    provider: Provider,
) -> None:
    with running(CLEAN) as sim:
        judge = sim.judge(provider, egress=EgressPolicy())  # loopback not allowed
        api = judge.batch_api()
        for call in (api.submit(batch_requests(judge, 2), {}), api.retrieve("batch_x")):
            with pytest.raises(ProviderCallError) as refused:
                await call
            assert refused.value.kind == "connection"
            assert refused.value.message.startswith(
                "Connection error: refused by the judge URL policy"
            )
        await judge.aclose()
    assert sim.paths == []


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_failed_batch_call_never_shows_the_key(provider: Provider) -> None:
    with running(CLEAN) as sim:
        judge = sim.judge(provider)
        with pytest.raises(ProviderCallError) as failed:
            await judge.batch_api().retrieve(KEY)  # the 404 names the id it was given
        await judge.aclose()
    assert failed.value.kind == "bad_request"
    assert "HTTP 404" in failed.value.message
    assert KEY not in failed.value.message
    assert "[redacted]" in failed.value.message


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_job_the_provider_would_refuse_is_refused_before_sending(
    provider: Provider,
) -> None:
    with running(CLEAN) as sim:
        judge = sim.judge(provider)
        api = judge.batch_api()
        body = batch_requests(judge, 2)[0].body
        refused = [
            [],
            [BatchRequest("a", body), BatchRequest("a", body)],
            [BatchRequest("has space", body)],
            [BatchRequest("x" * 65, body)],
        ]
        for requests in refused:
            with pytest.raises(ProviderCallError) as failed:
                await api.submit(requests, {})
            assert failed.value.kind == "bad_request"
        await judge.aclose()
    assert sim.paths == []


async def test_openai_request_sizes_add_up_to_the_uploaded_file() -> None:
    with running(CLEAN) as sim:
        judge = sim.judge("openai")
        api = judge.batch_api()
        requests = batch_requests(judge, 4)
        job = await api.submit(requests, {"fairpair_batch": "b1"})
        async with httpx2.AsyncClient(base_url=sim.origin()) as client:
            uploaded = (await client.get(f"/v1/files/{job.input_file_id}/content")).content
            batch = (await client.get(f"/v1/batches/{job.id}")).json()
        await judge.aclose()
    assert len(uploaded) == sum(api.request_size(request) for request in requests)
    assert [orjson.loads(line) for line in uploaded.splitlines()] == [
        {"custom_id": r.custom_id, "method": "POST", "url": "/v1/chat/completions", "body": r.body}
        for r in requests
    ]
    assert batch["metadata"] == {"fairpair_batch": "b1"}
    assert (api.max_requests, api.max_bytes) == (50_000, 200_000_000)


def test_anthropic_request_sizes_leave_room_for_the_body_around_them() -> None:
    config = JudgeConfig(name="a", provider="anthropic", model="m", base_url="http://h")
    judge = build_judge(config)
    assert isinstance(judge, HttpJudge)
    api = judge.batch_api()
    request = BatchRequest("r1", {"model": "m", "max_tokens": 5, "messages": []})
    element = b'{"custom_id":"r1","params":{"model":"m","max_tokens":5,"messages":[]}}'
    assert api.request_size(request) == len(element) + 1
    assert api.max_requests == 100_000
    assert api.max_bytes + len(b'{"requests":[]}') == 256_000_000


# --- reading results lines ----------------------------------------------------------------------


def test_malformed_result_lines_are_skipped_not_fatal() -> None:
    content = b"\n".join([
        b"not json",
        b'["a list"]',
        b'{"custom_id": "has space", "response": null}',
        b'{"custom_id": 7}',
        b"",
        b'{"custom_id": "ok-1", "response": null, "error": {"code": "batch_expired"}}',
    ])  # fmt: skip
    assert [custom_id for custom_id, _ in jsonl_objects(content)] == ["ok-1"]
    assert [r.error_kind for r in openai.batch_results(content, KEY)] == ["expired"]


def _openai_line(custom_id: str, **line: Any) -> bytes:
    return orjson.dumps({"id": "batch_req_1", "custom_id": custom_id, **line})


def _failed_response(status: int, message: str) -> dict[str, Any]:
    error = {"message": message, "type": "x", "param": None, "code": None}
    return {"status_code": status, "request_id": "req_1", "body": {"error": error}}


def test_openai_error_lines_map_as_live_status_errors_and_not_run_codes() -> None:
    lines = [
        _openai_line("a", response=_failed_response(429, "slow down"), error=None),
        _openai_line("b", response=_failed_response(400, "logprobs are not supported")),
        _openai_line("c", response=_failed_response(401, f"bad key {KEY}")),
        _openai_line("d", response=None, error={"code": "batch_cancelled", "message": "c"}),
        _openai_line("e", response=None, error={"code": "token_limit", "message": "too long"}),
        _openai_line("f", response={"status_code": 200, "body": {"choices": "oops"}}),
    ]
    results = openai.batch_results(b"\n".join(lines), KEY)
    assert [(r.custom_id, r.error_kind, r.error) for r in results] == [
        ("a", "rate_limited", "HTTP 429: Error code: 429 - slow down"),
        ("b", "unsupported_parameter", "HTTP 400: Error code: 400 - logprobs are not supported"),
        ("c", "auth", "HTTP 401: Error code: 401 - bad key [redacted]"),
        ("d", "cancelled", "batch_cancelled: c"),
        ("e", "server_error", "token_limit: too long"),
        ("f", "server_error", results[-1].error),
    ]
    assert results[-1].error is not None
    assert results[-1].error.startswith("invalid response:")


@pytest.mark.parametrize(
    ("error_type", "kind"),
    [
        ("invalid_request_error", "bad_request"),
        ("authentication_error", "auth"),
        ("permission_error", "auth"),
        ("rate_limit_error", "rate_limited"),
        ("overloaded_error", "server_error"),
        ("api_error", "server_error"),
        ("something_new", "server_error"),
    ],
)
def test_anthropic_errored_results_map_by_error_type(error_type: str, kind: str) -> None:
    error = {"type": "error", "error": {"type": error_type, "message": "no"}}
    line = {"custom_id": "a", "result": {"type": "errored", "error": error}}
    (result,) = anthropic.batch_results(orjson.dumps(line), KEY)
    assert (result.error_kind, result.completion) == (kind, None)
    assert result.error is not None
    assert str(error) in result.error


def test_anthropic_not_run_results_are_expired_or_cancelled() -> None:
    lines = [
        {"custom_id": "a", "result": {"type": "expired"}},
        {"custom_id": "b", "result": {"type": "canceled"}},
        {"custom_id": "c", "result": {"type": "succeeded", "message": {"content": 3}}},
    ]
    content = b"\n".join(orjson.dumps(line) for line in lines)
    kinds = [r.error_kind for r in anthropic.batch_results(content, None)]
    assert kinds == ["expired", "cancelled", "server_error"]


# --- the Wire's other methods ---------------------------------------------------------------------


async def test_lean_wire_sends_get_and_delete_with_an_empty_body() -> None:
    no_content = answer(204, b"", {"Content-Length": "0"})
    bodiless = type(no_content)(b"HTTP/1.1 204 No Content\r\n\r\n")
    async with scripted_server([answer(200, b"line\n"), bodiless, answer(200, {})]) as server:
        wire = LeanWire(server.base_url, LOOPBACK, 1)
        got = await wire.request("GET", "/v1/files/f%2F1/content", b"", {"Accept": "x/y"}, 5)
        deleted = await wire.request("DELETE", "/v1/files/f1", b"", {}, 5)
        posted = await wire.post_json("/v1/batches", {"a": 1}, {}, 5)
        with pytest.raises(Exception, match="invalid method"):
            await wire.request("GE T", "/", b"", {}, 5)
        await wire.aclose()
    assert (got.status, got.content, deleted.status, deleted.content) == (200, b"line\n", 204, b"")
    assert posted.json() == {}
    assert server.accepts == 1  # a 204 without a length still leaves the connection usable
    sent = [(r.method, r.path, r.headers["content-length"], r.body) for r in server.requests]
    assert sent == [
        ("GET", "/v1/files/f%2F1/content", "0", b""),
        ("DELETE", "/v1/files/f1", "0", b""),
        ("POST", "/v1/batches", "7", b'{"a":1}'),
    ]
    assert server.requests[0].headers["accept"] == "x/y"


async def test_a_download_may_be_larger_than_a_judge_answer_up_to_its_own_cap() -> None:
    big = answer(200, b"x" * (17 * 2**20))
    async with scripted_server([big]) as server:
        wire = LeanWire(server.base_url, LOOPBACK, 1)
        response = await wire.request("GET", "/v1/x", b"", {}, 10, max_bytes=32 * 2**20)
        with pytest.raises(ProviderCallError, match="larger than 16 MiB"):
            await wire.request("GET", "/v1/x", b"", {}, 10)
        await wire.aclose()
    assert len(response.content) == 17 * 2**20


async def test_the_transport_wire_caps_what_it_reads_too() -> None:
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=b"x" * 2048))
    wire = HttpxWire("http://judge.test/v1", transport, 5, 1)
    assert (await wire.request("GET", "/v1/x", b"", {}, 5)).content == b"x" * 2048
    with pytest.raises(ProviderCallError, match="larger than"):
        await wire.request("GET", "/v1/x", b"", {}, 5, max_bytes=1024)
    await wire.aclose()


# --- answers fairpair cannot store (issue 36) --------------------------------------------------


def _openai_batch(**fields: Any) -> dict[str, Any]:
    batch = {"id": "batch_1", "status": "in_progress", "created_at": 1, "expires_at": 2}
    return batch | {"request_counts": {"total": 1, "completed": 0, "failed": 0}} | fields


async def test_a_job_id_longer_than_its_column_is_an_invalid_answer_not_a_lost_job() -> None:
    long_id = "batch_" + "x" * 300
    transport = httpx2.MockTransport(
        lambda request: httpx2.Response(200, json=_openai_batch(id=long_id))
    )
    judge = Sim(SimJudgeApp(CLEAN)).judge("openai", transport=transport)
    with pytest.raises(ProviderCallError, match="invalid response") as refused:
        await judge.batch_api().retrieve("batch_1")
    assert refused.value.kind == "server_error"  # an unknown outcome: looked up, not stored
    with pytest.raises(ValueError, match="longer than"):
        openai.batch_job(_openai_batch(output_file_id="f" * 201), None)
    await judge.aclose()


@pytest.mark.parametrize("expires_at", [10**20, 1e300, float("nan")])
def test_an_expiry_past_what_a_time_holds_is_no_expiry(expires_at: float) -> None:
    assert openai.batch_job(_openai_batch(expires_at=expires_at), None).expires_at is None
    message_batch = {
        "id": "msgbatch_1",
        "processing_status": "in_progress",
        "request_counts": dict.fromkeys(("processing", "succeeded", "errored"), 0)
        | {"canceled": 0, "expired": 0},
        "expires_at": "9999-12-31T23:59:59-05:00",
    }
    assert anthropic.batch_job(message_batch).expires_at is None


# --- results files that would exhaust memory (issue 36) ---------------------------------------


def gzip_bomb(inflated_mib: int) -> bytes:
    """A gzip stream of `inflated_mib` MiB of zeros (about a thousandth of that compressed)."""
    deflater = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(2**20)
    return b"".join(deflater.compress(zeros) for _ in range(inflated_mib)) + deflater.flush()


def ended_openai_job(output_file_id: str = "file-out") -> ReportedBatchJob:
    return ReportedBatchJob(
        "batch_1", "completed", True, False, 1, 1, 0, None, output_file_id=output_file_id
    )


def openai_over(transport: httpx2.AsyncBaseTransport) -> HttpJudge:
    return Sim(SimJudgeApp(CLEAN)).judge("openai", transport=transport)


@contextmanager
def peak_memory() -> Iterator[list[int]]:
    """The peak of Python's allocations inside the block, in bytes (the list's one item)."""
    peak = [0]
    tracemalloc.start()
    try:
        yield peak
    finally:
        peak[0] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


class GzipBomb(httpx2.AsyncBaseTransport):
    """Answers every request with `bomb` as a gzip body, raw (httpx2's MockTransport reads, so
    inflates, what its handler answers before the client sees it)."""

    def __init__(self, bomb: bytes) -> None:
        self.bomb, self.accepted = bomb, list[str]()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.accepted.append(request.headers.get("accept-encoding", ""))
        headers = {"Content-Encoding": "gzip", "Content-Length": str(len(self.bomb))}
        return httpx2.Response(200, headers=headers, stream=httpx2.ByteStream(self.bomb))


async def test_a_gzip_bomb_results_file_is_refused_without_inflating_it() -> None:
    bomb = gzip_bomb(256)  # 256 MiB inflated, about 256 KiB sent
    transport = GzipBomb(bomb)
    judge = openai_over(transport)
    with peak_memory() as peak, pytest.raises(ProviderCallError, match="a download in gzip"):
        await all_results(judge.batch_api(), ended_openai_job())
    await judge.aclose()
    assert transport.accepted == [
        "identity"
    ]  # we say we take no encoding; one sent anyway is refused
    assert peak[0] < 8 * 2**20  # neither the inflated 256 MiB nor a part of it was held

    async with scripted_server([answer(200, bomb, {"Content-Encoding": "gzip"})]) as server:
        wire = LeanWire(server.base_url, LOOPBACK, 1)
        with tempfile.TemporaryFile() as sink:
            with pytest.raises(ProviderCallError, match="a download in gzip"):
                await wire.download("/v1/files/f/content", {}, 10, sink, 2**30)
            assert sink.tell() == 0  # not a byte of it written, let alone inflated
        await wire.aclose()


@pytest.fixture
def file_server(tmp_path: Any) -> Iterator[int]:
    """40 MiB at /output.jsonl, served by another process (so that only the client's
    allocations are traced); yields the port."""
    (tmp_path / "output.jsonl").write_bytes(b"x" * (40 * 2**20))
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port)):
                break
            time.sleep(0.05)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=10)


async def test_a_download_goes_to_disk_within_its_cap_not_into_memory(file_server: int) -> None:
    wire = LeanWire(f"http://127.0.0.1:{file_server}", LOOPBACK, 1)
    try:
        with tempfile.TemporaryFile() as sink, peak_memory() as peak:
            response = await wire.download("/output.jsonl", {}, 30, sink, 64 * 2**20)
            assert (response.status, response.content, sink.tell()) == (200, b"", 40 * 2**20)
        assert peak[0] < 8 * 2**20
        with tempfile.TemporaryFile() as sink, pytest.raises(ProviderCallError, match="larger"):
            await wire.download("/output.jsonl", {}, 30, sink, 32 * 2**20)
    finally:
        await wire.aclose()


def _output_line(custom_id: str, text: str) -> bytes:
    body = {"model": "gpt-sim", "choices": [{"message": {"content": text}}], "usage": None}
    response = {"status_code": 200, "request_id": "req_1", "body": body}
    return orjson.dumps({"id": "batch_req_1", "custom_id": custom_id, "response": response})


async def test_an_over_long_result_line_fails_only_its_own_request(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(batchapi, "MAX_LINE_BYTES", 2**20)
    content = b"\n".join([
        _output_line("first", "A"),
        _output_line("huge", "B" * (3 * 2**20)),
        _output_line("last", "B"),
    ])  # fmt: skip
    transport = httpx2.MockTransport(lambda request: httpx2.Response(200, content=content))
    judge = openai_over(transport)
    results = await all_results(judge.batch_api(), ended_openai_job())
    await judge.aclose()
    assert [(r.custom_id, r.error_kind) for r in results] == [
        ("first", None),
        ("huge", "invalid_response"),  # answered and paid, not a provider fault (issue 36)
        ("last", None),
    ]
    assert results[1].error == "invalid response: a result line over 1 MiB"
    assert [r.completion.text for r in results if r.completion is not None] == ["A", "B"]


async def test_parsing_a_big_results_file_holds_one_chunk_not_the_file(tmp_path: Any) -> None:
    path = tmp_path / "output.jsonl"
    line = _output_line("x", "Output (b) is better. " * 40) + b"\n"
    count = (96 * 2**20) // len(line)  # 96 MiB of results
    with path.open("wb") as out:
        for index in range(count):
            out.write(line.replace(b'"x"', f'"r{index}"'.encode()))

    def parse(custom_id: str, line: dict[str, Any]) -> RequestResult:
        return openai._line_result(custom_id, line, None)

    seen = 0
    with peak_memory() as peak:
        async for chunk in batchapi.file_results(path.open("rb"), parse):
            seen += len(chunk)
    assert seen == count
    assert peak[0] < 16 * 2**20  # a sixth of the file, whatever its size
