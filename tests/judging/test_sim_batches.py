"""The sim judge's provider batch APIs (issue 24's groundwork): OpenAI Files + Batches and
Anthropic Message Batches, checked against the installed SDKs' own types and clients, and
answering exactly what the live endpoint answers to the same request."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from anthropic.types.messages import MessageBatch, MessageBatchIndividualResponse
from anthropic.types.messages.batch_create_params import (
    BatchCreateParams as AnthropicBatchCreateParams,
)
from openai.types import Batch, FileObject
from openai.types.batch_create_params import BatchCreateParams
from openai.types.chat import ChatCompletion
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from pydantic import TypeAdapter
from typer.testing import CliRunner

import app.simjudge.server as sim_server
from app.cli import app as cli_app
from app.judging.providers import build_judge
from app.judging.simulation import simulate_chat
from app.judging.types import JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash
from app.simjudge.batches import BoundedStore
from app.simjudge.server import SimJudgeApp

KNOBS = SimKnobs(position_bias=0.6, tie_rate=0.1, error_rate=0.2, seed=11)
SYSTEM = "You compare two responses and answer with the better one's label."


class Clock:
    """A clock the test moves by hand, so no assertion depends on real time."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def _block(label: str, nonce: str, text: str) -> str:
    return f'<response label="{label}" nonce="{nonce}">\n{text}\n</response nonce="{nonce}">'


def _pair_prompt(index: int) -> str:
    first = f"Answer {index}.\n[sim q={(index % 5 - 2) / 2}]"
    second = f"Other answer {index}.\n[sim q={(index % 3 - 1) / 2}]"
    return _block("X", "a" * 16, first) + "\n\n" + _block("Y", "b" * 16, second)


def _chat_body(index: int, *, logprobs: bool = False) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": "gpt-sim",
        "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": _pair_prompt(index)},
        ],
        "temperature": 0,
    }
    if logprobs:
        body |= {"logprobs": True, "top_logprobs": 5}
    return body


def _materialised(value: object) -> object:
    """Walk a validated TypedDict, consuming the lazily validated iterables (so they validate)."""
    if isinstance(value, dict):
        return {key: _materialised(item) for key, item in value.items()}
    if isinstance(value, list | tuple) or isinstance(value, Iterator):
        return [_materialised(item) for item in value]
    return value


def _validate(typed_dict: Any, value: object) -> None:
    _materialised(TypeAdapter(typed_dict).validate_python(value))


def _input_line(custom_id: str, body: object) -> dict[str, Any]:
    return {"custom_id": custom_id, "method": "POST", "url": "/v1/chat/completions", "body": body}


def _jsonl(lines: list[dict[str, Any]]) -> bytes:
    return b"".join(json.dumps(line).encode() + b"\n" for line in lines)


def _lines(content: bytes) -> list[dict[str, Any]]:
    return [json.loads(line) for line in content.splitlines()]


def _client(app: SimJudgeApp) -> httpx2.AsyncClient:
    return httpx2.AsyncClient(transport=httpx2.ASGITransport(app=app), base_url="http://sim.test")


async def _upload(client: httpx2.AsyncClient, content: bytes) -> FileObject:
    files = {"file": ("batch.jsonl", content, "application/jsonl")}
    answer = await client.post("/v1/files", data={"purpose": "batch"}, files=files)
    assert answer.status_code == 200, answer.text
    return FileObject.model_validate(answer.json())


async def _create_batch(client: httpx2.AsyncClient, lines: list[dict[str, Any]]) -> Batch:
    for line in lines:
        if isinstance(line.get("body"), dict) and "messages" in line["body"]:
            _validate(CompletionCreateParamsNonStreaming, line["body"])
    uploaded = await _upload(client, _jsonl(lines))
    params = {
        "input_file_id": uploaded.id,
        "endpoint": "/v1/chat/completions",
        "completion_window": "24h",
        "metadata": {"fairpair_batch": "b1"},
    }
    _validate(BatchCreateParams, params)
    answer = await client.post("/v1/batches", json=params)
    assert answer.status_code == 200, answer.text
    return Batch.model_validate(answer.json())


async def _retrieve(client: httpx2.AsyncClient, batch_id: str) -> Batch:
    answer = await client.get(f"/v1/batches/{batch_id}")
    assert answer.status_code == 200, answer.text
    return Batch.model_validate(answer.json())


async def _file_lines(client: httpx2.AsyncClient, file_id: str | None) -> list[dict[str, Any]]:
    if file_id is None:
        return []
    answer = await client.get(f"/v1/files/{file_id}/content")
    assert answer.status_code == 200
    return _lines(answer.content)


def _without_created(body: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in body.items() if key != "created"}


# --- OpenAI -----------------------------------------------------------------------------------


async def test_openai_batch_answers_equal_the_live_endpoints_first_answers() -> None:
    bodies = [_chat_body(i, logprobs=i % 2 == 0) for i in range(40)]
    lines = [_input_line(f"req-{i}", body) for i, body in enumerate(bodies)]
    async with _client(SimJudgeApp(KNOBS)) as client:
        created = await _create_batch(client, lines)
        assert created.status == "validating"
        assert created.request_counts is not None
        assert created.request_counts.total == 40
        done = await _retrieve(client, created.id)
        output = await _file_lines(client, done.output_file_id)
        errors = await _file_lines(client, done.error_file_id)
        stats = (await client.get("/stats")).json()
    async with _client(SimJudgeApp(KNOBS)) as live:
        expected = [await live.post("/v1/chat/completions", json=body) for body in bodies]

    assert done.status == "completed"
    assert done.metadata == {"fairpair_batch": "b1"}
    assert done.model == "gpt-sim"
    got = {line["custom_id"]: line["response"] for line in output + errors}
    assert sorted(got) == sorted(line["custom_id"] for line in lines)
    for index, answer in enumerate(expected):
        response = got[f"req-{index}"]
        assert response["status_code"] == answer.status_code
        assert _without_created(response["body"]) == _without_created(answer.json())
    for line in output:
        assert line["error"] is None
        ChatCompletion.model_validate(line["response"]["body"])
    n_ok = sum(answer.status_code == 200 for answer in expected)
    assert 0 < n_ok < 40, "the error_rate knob should fail some of the 40 requests"
    assert (len(output), len(errors)) == (n_ok, 40 - n_ok)
    assert done.request_counts is not None
    assert (done.request_counts.completed, done.request_counts.failed) == (n_ok, 40 - n_ok)
    assert stats["openai"] == {"files_uploaded": 1, "jobs_created": 1, "jobs_cancelled": 0}
    assert stats["chat_completions"]["received"] == 0


async def test_a_reasoning_sims_batch_lines_get_the_refusals_of_its_live_endpoint() -> None:
    """`sim-judge --reasoning` refuses a batch line as its live endpoint refuses the request:
    400 with OpenAI's `invalid_request_error`, `param` and `code`; a line a reasoning model takes
    is answered, with the reasoning tokens it reports."""
    allowed = {key: value for key, value in _chat_body(1).items() if key != "temperature"}
    bodies = {
        "temperature": _chat_body(1),
        "max_tokens": {**allowed, "max_tokens": 100},
        "logprobs": {**allowed, "logprobs": True},
        "top_logprobs": {**allowed, "top_logprobs": 5},
        "allowed": {**allowed, "max_completion_tokens": 100, "temperature": 1},
    }
    lines = [_input_line(name, body) for name, body in bodies.items()]
    async with _client(SimJudgeApp(SimKnobs(seed=2), reasoning=True)) as client:
        done = await _retrieve(client, (await _create_batch(client, lines)).id)
        got = {
            line["custom_id"]: line["response"]
            for line in await _file_lines(client, done.output_file_id)
            + await _file_lines(client, done.error_file_id)
        }
        live = {
            name: await client.post("/v1/chat/completions", json=body)
            for name, body in bodies.items()
        }

    for name in ("temperature", "max_tokens", "logprobs", "top_logprobs"):
        error = got[name]["body"]["error"]
        assert got[name]["status_code"] == live[name].status_code == 400
        assert got[name]["body"] == live[name].json()
        assert (error["type"], error["param"]) == ("invalid_request_error", name)
    assert got["allowed"]["status_code"] == 200
    usage = got["allowed"]["body"]["usage"]
    assert usage["completion_tokens_details"]["reasoning_tokens"] == sim_server.SIM_REASONING_TOKENS
    assert done.request_counts is not None
    assert (done.request_counts.completed, done.request_counts.failed) == (1, 4)


async def test_a_line_that_is_not_a_chat_request_is_a_per_request_error() -> None:
    lines = [
        _input_line("good", _chat_body(1)),
        _input_line("no-messages", {"model": "gpt-sim"}),
        _input_line("not-an-object", [1, 2]),
    ]
    async with _client(SimJudgeApp(SimKnobs(seed=2))) as client:
        done = await _retrieve(client, (await _create_batch(client, lines)).id)
        output = await _file_lines(client, done.output_file_id)
        errors = await _file_lines(client, done.error_file_id)
    assert done.status == "completed"
    assert [line["custom_id"] for line in output] == ["good"]
    assert {line["custom_id"]: line["response"]["status_code"] for line in errors} == {
        "no-messages": 400,
        "not-an-object": 400,
    }
    assert all(line["response"]["body"]["error"]["message"] for line in errors)
    assert done.request_counts is not None
    assert (done.request_counts.completed, done.request_counts.failed) == (1, 2)


async def test_invalid_input_lines_fail_the_whole_batch_at_validation() -> None:
    content = _jsonl([_input_line("a", _chat_body(1)), _input_line("a", _chat_body(2))])
    content += b"{not json\n" + json.dumps(_input_line("c", {}) | {"url": "/v1/x"}).encode()
    async with _client(SimJudgeApp(SimKnobs())) as client:
        uploaded = await _upload(client, content)
        params = {"input_file_id": uploaded.id, "endpoint": "/v1/chat/completions"}
        created = await client.post("/v1/batches", json=params | {"completion_window": "24h"})
        failed = await _retrieve(client, created.json()["id"])
    assert failed.status == "failed"
    assert failed.output_file_id is None
    assert failed.error_file_id is None
    assert failed.errors is not None
    assert failed.errors.data is not None
    codes = [(error.code, error.line) for error in failed.errors.data]
    assert codes == [("duplicate_custom_id", 2), ("invalid_json_line", 3), ("mismatched_url", 4)]


async def test_the_job_runs_for_the_batch_delay_and_cancel_keeps_what_was_answered() -> None:
    clock = Clock()
    lines = [_input_line(f"r{i}", _chat_body(i)) for i in range(10)]
    async with _client(SimJudgeApp(SimKnobs(batch_delay_s=100), clock=clock)) as client:
        created = await _create_batch(client, lines)
        clock.now += 30
        running = await _retrieve(client, created.id)
        cancelling = Batch.model_validate(
            (await client.post(f"/v1/batches/{created.id}/cancel")).json()
        )
        clock.now += 1
        cancelled = await _retrieve(client, created.id)
        again = await client.post(f"/v1/batches/{created.id}/cancel")
        output = await _file_lines(client, cancelled.output_file_id)
        errors = await _file_lines(client, cancelled.error_file_id)
        stats = (await client.get("/stats")).json()
    assert running.status == "in_progress"
    assert running.output_file_id is None
    assert running.request_counts is not None
    assert running.request_counts.completed == 3
    assert cancelling.status == "cancelling"
    assert cancelled.status == "cancelled"
    assert cancelled.cancelled_at is not None
    assert cancelled.cancelling_at is not None
    assert [line["custom_id"] for line in output] == ["r0", "r1", "r2"]
    assert [line["custom_id"] for line in errors] == [f"r{i}" for i in range(3, 10)]
    assert {line["error"]["code"] for line in errors} == {"batch_cancelled"}
    assert all(line["response"] is None for line in errors)
    assert again.status_code == 409
    assert stats["openai"]["jobs_cancelled"] == 1


async def test_an_expired_job_answers_the_first_half_and_expires_the_rest() -> None:
    clock = Clock()
    knobs = SimKnobs(batch_delay_s=60, batch_outcome="expired")
    lines = [_input_line(f"r{i}", _chat_body(i)) for i in range(7)]
    async with _client(SimJudgeApp(knobs, clock=clock)) as client:
        created = await _create_batch(client, lines)
        clock.now += 59
        assert (await _retrieve(client, created.id)).status == "in_progress"
        clock.now += 1
        expired = await _retrieve(client, created.id)
        output = await _file_lines(client, expired.output_file_id)
        errors = await _file_lines(client, expired.error_file_id)
    assert expired.status == "expired"
    assert expired.expired_at is not None
    assert [line["custom_id"] for line in output] == ["r0", "r1", "r2"]
    assert [line["error"]["code"] for line in errors] == ["batch_expired"] * 4
    assert expired.request_counts is not None
    assert (expired.request_counts.completed, expired.request_counts.failed) == (3, 4)


async def test_the_failed_outcome_fails_the_job_without_files() -> None:
    knobs = SimKnobs(batch_outcome="failed")
    async with _client(SimJudgeApp(knobs)) as client:
        created = await _create_batch(client, [_input_line("r0", _chat_body(0))])
        failed = await _retrieve(client, created.id)
    assert failed.status == "failed"
    assert failed.failed_at is not None
    assert failed.output_file_id is None
    assert failed.error_file_id is None
    assert failed.errors is not None
    assert failed.errors.data
    assert failed.errors.data[0].code == "simulated_failure"


async def test_list_files_and_deletion() -> None:
    async with _client(SimJudgeApp(SimKnobs())) as client:
        ids = [
            (await _create_batch(client, [_input_line("r", _chat_body(i))])).id for i in range(3)
        ]
        page = (await client.get("/v1/batches", params={"limit": 2})).json()
        rest = (await client.get("/v1/batches", params={"after": page["last_id"]})).json()
        bad_limit = await client.get("/v1/batches", params={"limit": "x"})
        done = await _retrieve(client, ids[0])
        deleted = await client.delete(f"/v1/files/{done.output_file_id}")
        gone = await client.get(f"/v1/files/{done.output_file_id}/content")
        missing = await client.get("/v1/batches/batch_nope")
    assert [b["id"] for b in page["data"]] == ids[:0:-1]
    assert page["has_more"] is True
    assert [b["id"] for b in rest["data"]] == ids[:1]
    assert rest["has_more"] is False
    assert bad_limit.status_code == 400
    assert deleted.json() == {"id": done.output_file_id, "object": "file", "deleted": True}
    assert gone.status_code == 404
    assert gone.json()["error"]["message"]
    assert missing.status_code == 404


# --- Anthropic --------------------------------------------------------------------------------


def _anthropic_request(custom_id: str, index: int) -> dict[str, Any]:
    params = {
        "model": "claude-sim",
        "max_tokens": 256,
        "system": SYSTEM,
        "messages": [{"role": "user", "content": _pair_prompt(index)}],
    }
    return {"custom_id": custom_id, "params": params}


async def _create_message_batch(
    client: httpx2.AsyncClient, requests: list[dict[str, Any]]
) -> httpx2.Response:
    body = {"requests": requests}
    if all(isinstance(r.get("custom_id"), str) for r in requests):
        _validate(AnthropicBatchCreateParams, body)
    return await client.post("/v1/messages/batches", json=body)


async def _results(client: httpx2.AsyncClient, batch: MessageBatch) -> dict[str, Any]:
    assert batch.results_url is not None
    answer = await client.get(batch.results_url)
    assert answer.status_code == 200
    parsed = [
        MessageBatchIndividualResponse.model_validate(line) for line in _lines(answer.content)
    ]
    return {line.custom_id: line.result for line in parsed}


async def test_anthropic_batch_answers_as_the_sim_judge_with_the_system_prompt() -> None:
    requests = [_anthropic_request(f"r_{i}", i) for i in range(20)]
    async with _client(SimJudgeApp(KNOBS)) as client:
        created = MessageBatch.model_validate(
            (await _create_message_batch(client, requests)).json()
        )
        ended = MessageBatch.model_validate(
            (await client.get(f"/v1/messages/batches/{created.id}")).json()
        )
        results = await _results(client, ended)
        assert ended.results_url is not None
        raw = _lines((await client.get(ended.results_url)).content)
        stats = (await client.get("/stats")).json()
    async with _client(SimJudgeApp(KNOBS)) as live:
        expected = [await live.post("/v1/messages", json=r["params"]) for r in requests]
    # Each result is, byte for byte, what the live Messages endpoint answers the first time.
    by_id = {line["custom_id"]: line["result"] for line in raw}
    for request, answer in zip(requests, expected, strict=True):
        result = by_id[request["custom_id"]]
        assert result["type"] == ("succeeded" if answer.status_code == 200 else "errored")
        assert result.get("message", result.get("error")) == answer.json()
    assert created.processing_status == "in_progress"
    assert created.request_counts.processing == 20
    assert created.results_url is None
    assert ended.processing_status == "ended"
    succeeded = 0
    for index in range(20):
        messages = [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": _pair_prompt(index)},
        ]
        reply = simulate_chat(KNOBS, "claude-sim", messages, attempt=0)
        result = results[f"r_{index}"]
        if reply.status == 200:
            succeeded += 1
            assert result.type == "succeeded"
            assert [(b.type, getattr(b, "text", None)) for b in result.message.content] == [
                ("text", reply.text)
            ]
            assert result.message.stop_reason == "end_turn"
            assert result.message.model == "claude-sim"
            assert result.message.usage.input_tokens > 0
        else:
            assert result.type == "errored"
            assert result.error.error.type == "api_error"
    assert 0 < succeeded < 20
    counts = ended.request_counts
    assert (counts.succeeded, counts.errored, counts.processing) == (succeeded, 20 - succeeded, 0)
    assert stats["anthropic"] == {"jobs_created": 1, "jobs_cancelled": 0}


async def test_anthropic_per_request_errors_cancel_and_expiry() -> None:
    clock = Clock()
    bad = {"custom_id": "bad", "params": {"model": "claude-sim", "messages": []}}
    async with _client(SimJudgeApp(SimKnobs(batch_delay_s=100), clock=clock)) as client:
        mixed = (await client.post("/v1/messages/batches", json={"requests": [bad]})).json()
        clock.now += 100
        view = await client.get(f"/v1/messages/batches/{mixed['id']}")
        results = await _results(client, MessageBatch.model_validate(view.json()))
        requests = [_anthropic_request(f"r{i}", i) for i in range(4)]
        to_cancel = (await _create_message_batch(client, requests)).json()
        early = await client.get(f"/v1/messages/batches/{to_cancel['id']}/results")
        clock.now += 50
        canceling = (await client.post(f"/v1/messages/batches/{to_cancel['id']}/cancel")).json()
        ended = MessageBatch.model_validate(
            (await client.get(f"/v1/messages/batches/{to_cancel['id']}")).json()
        )
        cancelled_results = await _results(client, ended)
    assert results["bad"].type == "errored"
    assert results["bad"].error.error.type == "invalid_request_error"
    assert early.status_code == 400
    assert early.json()["type"] == "error"
    assert canceling["processing_status"] == "canceling"
    assert ended.processing_status == "ended"
    assert ended.cancel_initiated_at is not None
    assert [cancelled_results[f"r{i}"].type for i in range(4)] == ["succeeded"] * 2 + [
        "canceled"
    ] * 2
    assert (ended.request_counts.succeeded, ended.request_counts.canceled) == (2, 2)

    knobs = SimKnobs(batch_delay_s=10, batch_outcome="expired")
    async with _client(SimJudgeApp(knobs, clock=clock)) as client:
        requests = [_anthropic_request(f"r{i}", i) for i in range(5)]
        created = (await _create_message_batch(client, requests)).json()
        clock.now += 10
        expired = MessageBatch.model_validate(
            (await client.get(f"/v1/messages/batches/{created['id']}")).json()
        )
        expired_results = await _results(client, expired)
    assert [expired_results[f"r{i}"].type for i in range(5)] == ["succeeded"] * 2 + ["expired"] * 3
    assert (expired.request_counts.succeeded, expired.request_counts.expired) == (2, 3)


@pytest.mark.parametrize("custom_id", ["has space", "", "x" * 65, "dot.ted", 7, None], ids=repr)
async def test_a_bad_custom_id_refuses_the_whole_anthropic_batch(custom_id: object) -> None:
    requests = [_anthropic_request("ok", 0), {**_anthropic_request("x", 1), "custom_id": custom_id}]
    app = SimJudgeApp(SimKnobs())
    async with _client(app) as client:
        answer = await _create_message_batch(client, requests)
        listed = (await client.get("/v1/messages/batches")).json()
    assert answer.status_code == 400
    assert answer.json()["type"] == "error"
    assert answer.json()["error"]["type"] == "invalid_request_error"
    assert listed["data"] == []
    assert app.batches.counts.anthropic_created == 0


async def test_an_anthropic_judge_runs_live_against_the_sim_with_the_in_process_picks(
    deadline_in: Callable[[float], float],
) -> None:
    knobs = SimKnobs(position_bias=0.7, tie_rate=0.15, seed=42)
    local = build_judge(JudgeConfig(name="c", provider="sim", model="claude-sim", sim=knobs))
    app = SimJudgeApp(knobs)
    remote_config = JudgeConfig(
        name="c", provider="anthropic", model="claude-sim", base_url="http://sim.test",
        api_key="sk-test", backoff_base_s=0.01,
    )  # fmt: skip
    remote = build_judge(remote_config, transport=httpx2.ASGITransport(app=app))
    texts = [f"Answer {i}.\n[sim q={(i % 7 - 3) / 3:.3f}]" for i in range(12)]
    picks = []
    for judge in (local, remote):
        rng = random.Random(2024)
        results = [
            await judge.judge_pair("Which is right?", a, b, deadline=deadline_in(20), rng=rng)
            for a, b in zip(texts, reversed(texts), strict=True)
        ]
        await judge.aclose()
        picks.append([(r.pick, r.label_pair) for r in results])
    assert picks[0] == picks[1]
    assert {pick for pick, _ in picks[0]} == {"first", "second", "tie"}
    assert app.served_messages.answered[200] == 12


async def test_the_live_messages_endpoint_refuses_bad_params_with_an_anthropic_error() -> None:
    async with _client(SimJudgeApp(SimKnobs())) as client:
        answers = [
            await client.post("/v1/messages", content=body)
            for body in (b"{", b"[]", b'{"model": "m", "max_tokens": 1, "messages": []}')
        ]
    for answer in answers:
        assert answer.status_code == 400
        assert answer.json()["type"] == "error"
        assert answer.json()["error"]["type"] == "invalid_request_error"


# --- hostile input and bounds -----------------------------------------------------------------

HOSTILE = [
    ("POST", "/v1/batches", b"{"),
    ("POST", "/v1/batches", b"[" * 100_000 + b"]" * 100_000),
    ("POST", "/v1/batches", b'"text"'),
    ("POST", "/v1/batches", b'{"endpoint": "/v1/chat/completions", "completion_window": "24h"}'),
    ("POST", "/v1/batches", b'{"endpoint": "/v1/embeddings", "completion_window": "24h"}'),
    ("POST", "/v1/files", b"plain"),
    ("POST", "/v1/messages/batches", b"{"),
    ("POST", "/v1/messages/batches", b'{"requests": {}}'),
    ("POST", "/v1/messages/batches", b'{"requests": [1]}'),
    ("POST", "/v1/messages/batches", b'{"requests": [{"custom_id": "a"}]}'),
    ("POST", "/v1/messages/batches", b'{"requests": [{"custom_id": "a"}, {"custom_id": "a"}]}'),
    ("GET", "/v1/messages/batches?limit=0", b""),
    ("GET", "/v1/files/file-nope/content", b""),
    ("PUT", "/v1/batches", b""),
]


@pytest.mark.parametrize(("method", "path", "body"), HOSTILE, ids=lambda v: repr(v)[:40])
async def test_hostile_requests_get_a_4xx_with_an_error_body(
    method: str, path: str, body: bytes
) -> None:
    async with _client(SimJudgeApp(SimKnobs())) as client:
        answer = await client.request(method, path, content=body)
    assert 400 <= answer.status_code < 500
    assert answer.json()["error"]["message"]


@pytest.mark.parametrize(
    "content_type",
    [
        "multipart/form-data",
        "multipart/form-data; boundary=zz",
        'multipart/form-data; boundary="q"',
        "multipart/form-data; boundary=\x00",
    ],
)
async def test_malformed_multipart_uploads_are_400(content_type: str) -> None:
    bodies = [b"", b"--zz\r\nno header end", b"--q\r\nContent-Disposition: x\r\n\r\nv\r\n--q--"]
    async with _client(SimJudgeApp(SimKnobs())) as client:
        for body in bodies:
            answer = await client.post(
                "/v1/files", content=body, headers={"content-type": content_type}
            )
            assert answer.status_code == 400, (content_type, body)


def test_the_store_keeps_at_most_its_bounds_evicting_the_oldest() -> None:
    store: BoundedStore[int] = BoundedStore(max_items=3, max_bytes=100)
    for key in range(5):
        store.put(str(key), key, size=10)
    assert list(store.newest_first()) == [4, 3, 2]
    store.put("big", 99, size=95)
    assert list(store.newest_first()) == [99]
    assert store.get("0") is None


# --- the SDK clients and the CLI --------------------------------------------------------------


async def test_the_openai_and_anthropic_sdk_clients_drive_the_emulation() -> None:
    app = SimJudgeApp(SimKnobs(seed=5))
    transport = httpx2.ASGITransport(app=app)
    oai = openai.AsyncOpenAI(
        api_key="sk-test",
        base_url="http://sim.test/v1",
        http_client=httpx2.AsyncClient(transport=transport),
    )
    claude = anthropic.AsyncAnthropic(
        api_key="sk-test",
        base_url="http://sim.test",
        http_client=httpx2.AsyncClient(transport=transport),
    )
    lines = [_input_line(f"r{i}", _chat_body(i)) for i in range(3)]
    uploaded = await oai.files.create(file=("in.jsonl", _jsonl(lines)), purpose="batch")
    batch = await oai.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    done = await oai.batches.retrieve(batch.id)
    assert done.output_file_id is not None
    output = _lines((await oai.files.content(done.output_file_id)).content)
    listed = [b.id async for b in oai.batches.list(limit=10)]
    await oai.files.delete(uploaded.id)

    message_batch = await claude.messages.batches.create(
        requests=[_anthropic_request(f"c{i}", i) for i in range(3)]  # type: ignore[misc]
    )
    ended = await claude.messages.batches.retrieve(message_batch.id)
    results = [r async for r in await claude.messages.batches.results(message_batch.id)]
    await claude.messages.batches.delete(message_batch.id)
    await oai.close()
    await claude.close()

    assert done.status == "completed"
    assert sorted(line["custom_id"] for line in output) == ["r0", "r1", "r2"]
    assert listed == [batch.id]
    assert ended.processing_status == "ended"
    assert sorted((r.custom_id, r.result.type) for r in results) == [
        ("c0", "succeeded"), ("c1", "succeeded"), ("c2", "succeeded"),
    ]  # fmt: skip
    stats = app.batches.counts.as_json()
    assert (stats["openai"]["jobs_created"], stats["anthropic"]["jobs_created"]) == (1, 1)


def test_the_cli_options_set_the_batch_knobs(monkeypatch: pytest.MonkeyPatch) -> None:
    served: list[tuple[str, int, SimKnobs]] = []
    monkeypatch.setattr(sim_server, "run_sim_judge", lambda *args, **_: served.append(args))
    args = ["sim-judge", "--batch-delay", "2.5", "--batch-outcome", "expired"]
    assert CliRunner().invoke(cli_app, args).exit_code == 0
    assert CliRunner().invoke(cli_app, ["sim-judge", "--batch-outcome", "nope"]).exit_code != 0
    assert served == [
        ("127.0.0.1", 8100, SimKnobs(batch_delay_s=2.5, batch_outcome="expired")),
    ]


def test_the_batch_knobs_leave_a_sim_judges_version_unchanged() -> None:
    # They say how provider batch jobs run and end, not what the judge answers: stored sim
    # judges must keep their versions.
    judge = JudgeConfig(name="s", provider="sim", model="m")
    batchy = replace(judge, sim=SimKnobs(batch_delay_s=30, batch_outcome="expired"))
    assert judge_config_hash(batchy) == judge_config_hash(judge)
    assert judge_config_hash(replace(judge, sim=SimKnobs(seed=1))) != judge_config_hash(judge)
