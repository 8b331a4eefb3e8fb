"""What the judges' batch APIs send is what the installed SDKs would send: the bodies validate
against the SDKs' own request types, and the calls go to the routes the SDKs call."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any, Literal

import anthropic
import httpx2
import openai
import pytest
from anthropic.types.message_create_params import MessageCreateParamsNonStreaming
from anthropic.types.messages.batch_create_params import (
    BatchCreateParams as AnthropicBatchCreateParams,
)
from openai.types.batch_create_params import BatchCreateParams
from openai.types.chat.completion_create_params import CompletionCreateParamsNonStreaming
from pydantic import TypeAdapter, ValidationError

from app.judging.batchapi import BatchRequest
from app.judging.judge import ChatRequest
from app.judging.providers import build_judge
from app.judging.providers.http import HttpJudge
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, SimKnobs
from app.simjudge.batches import multipart_fields
from app.simjudge.server import SimJudgeApp
from tests.judging.test_batchapi import all_results

Provider = Literal["openai", "anthropic"]
BASE_URLS = {"openai": "http://sim.test/v1", "anthropic": "http://sim.test"}
_IDS = re.compile(r"(file-|msgbatch_|batch_)[0-9a-f]+")


class Recording(httpx2.AsyncBaseTransport):
    """The sim judge behind a transport that keeps every request it passes on."""

    def __init__(self, app: SimJudgeApp) -> None:
        self._inner = httpx2.ASGITransport(app=app)
        self.requests: list[httpx2.Request] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        await request.aread()
        self.requests.append(request)
        return await self._inner.handle_async_request(request)

    def sent(self, method: str, path: str) -> list[httpx2.Request]:
        return [r for r in self.requests if (r.method, r.url.path) == (method, path)]

    def routes(self) -> set[tuple[str, str]]:
        """(method, path with the providers' ids as placeholders) of every request."""
        return {(r.method, _IDS.sub(r"\1{id}", r.url.path)) for r in self.requests}


def _materialised(value: object) -> object:
    """Walk a validated TypedDict, consuming the lazily validated iterables (so they validate)."""
    if isinstance(value, dict):
        return {key: _materialised(item) for key, item in value.items()}
    if isinstance(value, list | tuple | Iterator):
        return [_materialised(item) for item in value]
    return value


def _validate(typed_dict: Any, value: object) -> None:
    _materialised(TypeAdapter(typed_dict).validate_python(value))


def _judge(provider: Provider, transport: httpx2.AsyncBaseTransport) -> HttpJudge:
    config = JudgeConfig(
        name=provider,
        provider=provider,
        model={"openai": "gpt-sim", "anthropic": "claude-sim"}[provider],
        base_url=BASE_URLS[provider],
        api_key="sk-test",
        # Every optional part of the body: JSON mode, and logprobs where the API has them.
        json_mode=True,
        logprobs=True,
    )
    judge = build_judge(config, transport=transport)
    assert isinstance(judge, HttpJudge)
    return judge


def _requests(judge: HttpJudge) -> list[BatchRequest]:
    """A pairwise and a scoring request, rendered and built as the judge sends them live."""
    renderer, logprobs = judge.renderer, judge.config.use_logprobs
    pair = renderer.render_pair("Which?", "One.", "Two.", rng=random.Random(1))
    scores = renderer.render_scores(
        "Score.", ["One.", "Two.", "Three."], DEFAULT_RUBRIC, rng=random.Random(2), max_chars=9999
    )
    chats = [
        ChatRequest(pair.system, pair.user, "pair", logprobs),
        ChatRequest(scores.system, scores.user, "scores", logprobs),
    ]
    return [BatchRequest(f"r{i}", judge.request_body(chat)) for i, chat in enumerate(chats)]


async def test_openai_upload_lines_and_batch_create_validate_against_the_sdk_types() -> None:
    transport = Recording(SimJudgeApp(SimKnobs()))
    judge = _judge("openai", transport)
    await judge.batch_api().submit(_requests(judge), {"fairpair_batch": "b1"})
    await judge.aclose()
    (upload,) = transport.sent("POST", "/v1/files")
    (create,) = transport.sent("POST", "/v1/batches")

    fields = multipart_fields(upload.headers["content-type"], upload.content)
    assert fields["purpose"] == (None, b"batch")
    filename, content = fields["file"]
    assert filename == "batch.jsonl"
    lines = [json.loads(line) for line in content.splitlines()]
    assert len(lines) == 2
    for line in lines:
        # The SDK has no type for an input line: its envelope by hand, its parts by the SDK.
        assert set(line) == {"custom_id", "method", "url", "body"}
        assert line["method"] == "POST"
        _validate(BatchCreateParams, {"input_file_id": "f", "completion_window": "24h",
                                      "endpoint": line["url"]})  # fmt: skip
        _validate(CompletionCreateParamsNonStreaming, line["body"])
        assert {"response_format", "logprobs", "top_logprobs"} <= set(line["body"])
    body = json.loads(create.content)
    _validate(BatchCreateParams, body)
    assert body["endpoint"] == lines[0]["url"] == "/v1/chat/completions"
    assert body["metadata"] == {"fairpair_batch": "b1"}


async def test_the_message_batch_create_body_validates_against_the_sdk_type() -> None:
    transport = Recording(SimJudgeApp(SimKnobs()))
    judge = _judge("anthropic", transport)
    await judge.batch_api().submit(_requests(judge), {"ignored": "x"})
    await judge.aclose()
    (create,) = transport.sent("POST", "/v1/messages/batches")
    body = json.loads(create.content)
    _validate(AnthropicBatchCreateParams, body)
    assert set(body) == {"requests"}
    assert [request["custom_id"] for request in body["requests"]] == ["r0", "r1"]
    assert "output_config" in body["requests"][0]["params"]


@pytest.mark.parametrize(
    ("typed_dict", "valid", "drop"),
    [
        (
            BatchCreateParams,
            {"input_file_id": "f", "endpoint": "/v1/chat/completions", "completion_window": "24h"},
            ("input_file_id",),
        ),
        (CompletionCreateParamsNonStreaming, {"model": "m", "messages": []}, ("model",)),
        (
            AnthropicBatchCreateParams,
            {
                "requests": [
                    {"custom_id": "a", "params": {"model": "m", "max_tokens": 1, "messages": []}}
                ]
            },
            ("requests", 0, "params", "max_tokens"),
        ),
    ],
    ids=["batch create", "chat body", "message batch"],
)
def test_a_body_missing_a_required_key_fails_the_sdk_type(
    typed_dict: Any, valid: dict[str, Any], drop: tuple[str | int, ...]
) -> None:
    _validate(typed_dict, valid)
    broken = json.loads(json.dumps(valid))
    parent = broken
    for key in drop[:-1]:
        parent = parent[key]
    del parent[drop[-1]]
    with pytest.raises(ValidationError, match=str(drop[-1])):
        _validate(typed_dict, broken)


async def test_a_job_takes_the_routes_the_sdks_take() -> None:
    """Submit, retrieve, cancel, retrieve, results and cleanup, by us and by each SDK."""
    knobs = SimKnobs(batch_delay_s=600)  # running until cancelled
    ours, theirs = Recording(SimJudgeApp(knobs)), Recording(SimJudgeApp(knobs))
    for provider in ("openai", "anthropic"):
        judge = _judge(provider, ours)
        api = judge.batch_api()
        job = await api.submit(_requests(judge), {})
        await api.retrieve(job.id)
        await api.cancel(job.id)
        job = await api.retrieve(job.id)
        assert len(await all_results(api, job)) == 2
        await api.cleanup(job)
        await judge.aclose()
    await _openai_sdk_job(theirs)
    await _anthropic_sdk_job(theirs)
    assert ours.routes() == theirs.routes()
    for path in ("/content", "/results"):
        ours_accept = {r.headers["accept"] for r in ours.requests if r.url.path.endswith(path)}
        sdk_accept = {r.headers["accept"] for r in theirs.requests if r.url.path.endswith(path)}
        assert ours_accept == sdk_accept == {"application/binary"}


async def _openai_sdk_job(transport: Recording) -> None:
    client = openai.AsyncOpenAI(
        api_key="sk-test",
        base_url=BASE_URLS["openai"],
        http_client=httpx2.AsyncClient(transport=transport),
    )
    line = {"custom_id": "r0", "method": "POST", "url": "/v1/chat/completions",
            "body": {"model": "m", "messages": [{"role": "user", "content": "hi"}]}}  # fmt: skip
    uploaded = await client.files.create(
        file=("batch.jsonl", json.dumps(line).encode()), purpose="batch"
    )
    batch = await client.batches.create(
        input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
    )
    await client.batches.retrieve(batch.id)
    await client.batches.cancel(batch.id)
    ended = await client.batches.retrieve(batch.id)
    assert ended.error_file_id is not None
    await client.files.content(ended.error_file_id)
    for file_id in (uploaded.id, ended.error_file_id):
        await client.files.delete(file_id)
    await client.close()


async def _anthropic_sdk_job(transport: Recording) -> None:
    client = anthropic.AsyncAnthropic(
        api_key="sk-test",
        base_url=BASE_URLS["anthropic"],
        http_client=httpx2.AsyncClient(transport=transport),
    )
    params: MessageCreateParamsNonStreaming = {
        "model": "m",
        "max_tokens": 5,
        "messages": [{"role": "user", "content": "hi"}],
    }
    batch = await client.messages.batches.create(requests=[{"custom_id": "r0", "params": params}])
    await client.messages.batches.retrieve(batch.id)
    await client.messages.batches.cancel(batch.id)
    await client.messages.batches.retrieve(batch.id)
    assert [r.custom_id async for r in await client.messages.batches.results(batch.id)] == ["r0"]
    await client.messages.batches.delete(batch.id)
    await client.close()
