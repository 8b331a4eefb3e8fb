"""`fairpair sim-judge`: the simulated judge as an OpenAI-compatible HTTP endpoint (raw ASGI)."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import uvicorn
from starlette.types import ASGIApp, Receive, Scope, Send

from app.judging.simulation import (
    AttemptCounter,
    SimReply,
    estimate_tokens,
    messages_key,
    simulate_chat,
)
from app.judging.types import SimKnobs, TokenLogprob
from app.simjudge.azure import azure_deployment, azure_refusal
from app.simjudge.batches import (
    ApiError,
    BatchEmulator,
    anthropic_chat_messages,
    anthropic_reply_json,
    anthropic_thinking,
    read_body,
)

MAX_BODY_BYTES = 32 * 1024 * 1024
_JSON = (b"content-type", b"application/json")
_SIMULATED = (b"fairpair-simulated", b"true")


ANSWER_ID_PREFIX = "sim-answer-"


class AnswerIds:
    """`sim-judge --answer-ids`: every answer with a JSON object as its text (a verdict, scores)
    gets an `"answer_id"` as the object's last field, and the sim keeps when it sent each one
    (`GET /stats/answers`). A soak then finds each answer it paid for in what fairpair stored or
    returned (bench/soak.py); the ids change the answers' text, so they are off by default."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.sent: list[tuple[str, float]] = []
        self._clock = clock

    def tag(self, reply: SimReply) -> SimReply:
        """The reply with its answer's id, recorded as sent now; other replies as they are."""
        if reply.status != 200 or not reply.text.endswith("}"):
            return reply
        answer_id = f"{ANSWER_ID_PREFIX}{len(self.sent) + 1}"
        self.sent.append((answer_id, self._clock()))
        suffix = f', "answer_id": "{answer_id}"}}'
        logprobs = reply.logprobs
        if logprobs:  # the tokens still spell the text: the id goes in the last one
            last = logprobs[-1]
            logprobs = (*logprobs[:-1], replace(last, token=last.token[:-1] + suffix))
        return replace(reply, text=reply.text[:-1] + suffix, logprobs=logprobs)

    def as_json(self) -> dict[str, Any]:
        return {"sent": [[answer_id, at] for answer_id, at in self.sent]}


def _untagged(reply: SimReply) -> SimReply:
    return reply


class BadRequestError(ValueError):
    """The request body is not a chat completion request the sim understands."""


def parse_offsets(text: str) -> dict[str, float]:
    """Parse reviewer offsets written as `name=1,other=-0.5`."""
    offsets: dict[str, float] = {}
    for item in filter(None, (part.strip() for part in text.split(","))):
        name, equals, value = item.rpartition("=")
        if not equals or not name.strip():
            raise ValueError(f"offset {item!r} is not name=number")
        try:
            offsets[name.strip()] = float(value)
        except ValueError:
            raise ValueError(f"offset {item!r} is not name=number") from None
    return offsets


def _content_text(content: object) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    raise BadRequestError("message content must be a string or a list of text parts")


def _json_body(body: bytes) -> object:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequestError("the body is not JSON") from None


def _chat_payload(
    payload: object, default_model: str = "sim"
) -> tuple[str, list[dict[str, str]], int | None]:
    """Model (`default_model` when the body names none), messages and requested top logprobs of
    a chat completion request body."""
    if not isinstance(payload, dict) or not isinstance(payload.get("messages"), list):
        raise BadRequestError("the body needs a list of messages")
    messages = [
        {"role": str(m.get("role", "")), "content": _content_text(m.get("content", ""))}
        for m in payload["messages"]
        if isinstance(m, dict)
    ]
    top_logprobs: int | None = None
    if payload.get("logprobs"):
        top = payload.get("top_logprobs")
        top_logprobs = top if isinstance(top, int) else 0
    return str(payload.get("model") or default_model), messages, top_logprobs


def _logprobs_json(tokens: tuple[TokenLogprob, ...] | None) -> dict[str, Any] | None:
    if tokens is None:
        return None
    return {
        "content": [
            {
                "token": t.token,
                "logprob": t.logprob,
                "bytes": None,
                "top_logprobs": [{"token": a, "logprob": lp, "bytes": None} for a, lp in t.top],
            }
            for t in tokens
        ]
    }


def _completion_json(
    model: str, messages: list[dict[str, str]], reply: SimReply, reasoning: bool = False
) -> dict[str, Any]:
    prompt_tokens = sum(estimate_tokens(m["content"]) for m in messages)
    # A reasoning model counts its hidden reasoning in completion_tokens, and says how much.
    thought = SIM_REASONING_TOKENS if reasoning else 0
    completion_tokens = estimate_tokens(reply.text) + thought
    usage: dict[str, Any] = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if reasoning:
        usage["completion_tokens_details"] = {"reasoning_tokens": thought}
    return {
        "id": "chatcmpl-sim-" + messages_key(model, messages)[:24],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.text},
                "finish_reason": "stop",
                "logprobs": _logprobs_json(reply.logprobs),
            }
        ],
        "usage": usage,
    }


async def _send_json(
    send: Send,
    status: int,
    body: Mapping[str, Any],
    extra_headers: tuple[tuple[bytes, bytes], ...] = (),
) -> None:
    encoded = json.dumps(body).encode()
    headers = [_JSON, _SIMULATED, (b"content-length", str(len(encoded)).encode()), *extra_headers]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": encoded})


def _error_body(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": None}}


# The reasoning tokens the sim reports for each answer in `--reasoning` mode.
SIM_REASONING_TOKENS = 96
# What OpenAI's reasoning models (o1, o3, o4-mini, gpt-5) refuse, in their words.
_REFUSED_PARAMETERS = {
    "max_tokens": "Unsupported parameter: 'max_tokens' is not supported with this model. "
    "Use 'max_completion_tokens' instead.",
    "logprobs": "Unsupported parameter: 'logprobs' is not supported with this model.",
    "top_logprobs": "Unsupported parameter: 'top_logprobs' is not supported with this model.",
}


def reasoning_refusal(payload: object) -> dict[str, Any] | None:
    """The 400 body a reasoning model answers a request that carries what it refuses, or None."""
    if not isinstance(payload, dict):
        return None
    for param, message in _REFUSED_PARAMETERS.items():
        if param in payload:
            return _refusal(message, param, "unsupported_parameter")
    temperature = payload.get("temperature", 1)
    if temperature != 1:
        message = (
            f"Unsupported value: 'temperature' does not support {json.dumps(temperature)} with "
            "this model. Only the default (1) value is supported."
        )
        return _refusal(message, "temperature", "unsupported_value")
    return None


def _refusal(message: str, param: str, code: str) -> dict[str, Any]:
    return {
        "error": {"message": message, "type": "invalid_request_error", "param": param, "code": code}
    }


async def _read_body(receive: Receive) -> bytes:
    body = await read_body(receive, MAX_BODY_BYTES)
    if body is None:
        raise BadRequestError("the body is too large")
    return body


async def _client_stays(receive: Receive, seconds: float) -> bool:
    """Wait out the simulated latency; False as soon as the client hangs up.

    A real judge server stops generating for a client that went away, and tests that count what
    the sim answered must not count answers nobody could receive.
    """
    if seconds <= 0:
        return True
    # The body is read, so the next message can only be `http.disconnect`.
    hang_up = asyncio.ensure_future(receive())
    try:
        done, _ = await asyncio.wait({hang_up}, timeout=seconds)
    finally:
        hang_up.cancel()
    return not done


def _reply_json(
    model: str, messages: list[dict[str, str]], reply: SimReply, reasoning: bool = False
) -> dict[str, Any]:
    """The JSON body of the sim's answer: a chat completion, or an error."""
    if reply.status == 200:
        return _completion_json(model, messages, reply, reasoning)
    if reply.status == 429:
        return _error_body(reply.text, "rate_limit_error")
    kind = "server_error" if reply.status >= 500 else "invalid_request_error"
    return _error_body(reply.text, kind)


def _retry_after(reply: SimReply) -> tuple[tuple[bytes, bytes], ...]:
    wait = reply.retry_after_s or 0.0
    return (b"retry-after", b"1"), (b"retry-after-ms", str(int(wait * 1000)).encode())


async def _reply(
    send: Send,
    model: str,
    messages: list[dict[str, str]],
    reply: SimReply,
    reasoning: bool = False,
) -> None:
    headers = _retry_after(reply) if reply.status == 429 else ()
    await _send_json(send, reply.status, _reply_json(model, messages, reply, reasoning), headers)


def first_attempt_answer(
    knobs: SimKnobs, tag: Callable[[SimReply], SimReply] = _untagged, reasoning: bool = False
) -> Callable[[object], tuple[int, dict[str, Any]]]:
    """What the live endpoint answers a body the first time (a provider batch never retries):
    the batch emulation's answers; with `reasoning`, a reasoning model's usage and refusals."""

    def answer(payload: object) -> tuple[int, dict[str, Any]]:
        try:
            model, messages, top_logprobs = _chat_payload(payload)
        except BadRequestError as err:
            return 400, _error_body(str(err), "invalid_request_error")
        if reasoning and (refusal := reasoning_refusal(payload)) is not None:
            return 400, refusal
        reply = tag(simulate_chat(knobs, model, messages, attempt=0, top_logprobs=top_logprobs))
        return reply.status, _reply_json(model, messages, reply, reasoning)

    return answer


@dataclass
class ServedCounts:
    """Chat requests received, answered by status, and abandoned by their client mid-latency."""

    received: int = 0
    answered: Counter[int] = field(default_factory=Counter)
    abandoned: int = 0

    def as_json(self) -> dict[str, Any]:
        """The counts as `GET /stats` shows them."""
        return {
            "received": self.received,
            "answered": {str(status): n for status, n in sorted(self.answered.items())},
            "abandoned": self.abandoned,
        }


class SimJudgeApp:
    """The ASGI app: `POST /v1/chat/completions`, `POST /v1/messages`, `GET /v1/models`,
    `GET /healthz`, `GET /stats`, and the provider batch APIs (app/simjudge/batches.py); with
    `azure`, `POST /openai/deployments/{deployment}/chat/completions` as well."""

    def __init__(
        self,
        knobs: SimKnobs,
        clock: Callable[[], float] = time.time,
        *,
        reasoning: bool = False,
        answer_ids: bool = False,
        azure: bool = False,
    ) -> None:
        self.knobs = knobs
        # Answer as an OpenAI reasoning model would: refuse temperature, logprobs, max_tokens.
        self.reasoning = reasoning
        # Serve Azure OpenAI's deployment route too (`azure_refusal`).
        self.azure = azure
        self.served = ServedCounts()
        self.served_messages = ServedCounts()
        self.answer_ids = AnswerIds(clock) if answer_ids else None
        self._tag = self.answer_ids.tag if self.answer_ids else _untagged
        self._attempts = AttemptCounter()
        self.batches = BatchEmulator(
            knobs,
            first_attempt_answer(knobs, self._tag, reasoning),
            clock=clock,
            body_limit=MAX_BODY_BYTES,
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        route = (scope["method"], scope["path"].rstrip("/"))
        deployment = azure_deployment(route[1]) if self.azure else None
        if route == ("POST", "/v1/chat/completions"):
            await self._chat_completions(receive, send)
        elif deployment is not None and route[0] == "POST":
            await self._azure_chat_completions(scope, receive, send, deployment)
        elif route == ("POST", "/v1/messages"):
            await self._messages(receive, send)
        elif route == ("GET", "/v1/models"):
            models = [{"id": "sim", "object": "model", "created": 0, "owned_by": "fairpair"}]
            await _send_json(send, 200, {"object": "list", "data": models})
        elif route == ("GET", "/healthz"):
            await _send_json(send, 200, {"status": "ok"})
        elif route == ("GET", "/stats"):
            stats = {
                "chat_completions": self.served.as_json(),
                "messages": self.served_messages.as_json(),
                **self.batches.counts.as_json(),
            }
            await _send_json(send, 200, stats)
        elif route == ("GET", "/stats/answers") and self.answer_ids is not None:
            await _send_json(send, 200, self.answer_ids.as_json())
        elif self.batches.serves(scope["path"]):
            await self.batches(scope, receive, send)
        else:
            await _send_json(send, 404, _error_body("not found", "not_found_error"))

    async def _azure_chat_completions(
        self, scope: Scope, receive: Receive, send: Send, deployment: str
    ) -> None:
        """Azure OpenAI's route: its 404 without `api-version`, its 401 without `api-key`, else
        the chat endpoint's answer, the deployment standing for the model a body may not name."""
        refusal = azure_refusal(scope)
        if refusal is not None:
            self.served.received += 1
            self.served.answered[refusal[0]] += 1
            await _send_json(send, *refusal)
            return
        await self._chat_completions(receive, send, default_model=deployment)

    async def _chat_completions(
        self, receive: Receive, send: Send, default_model: str = "sim"
    ) -> None:
        self.served.received += 1
        try:
            payload = _json_body(await _read_body(receive))
            model, messages, top_logprobs = _chat_payload(payload, default_model)
        except BadRequestError as err:
            self.served.answered[400] += 1
            await _send_json(send, 400, _error_body(str(err), "invalid_request_error"))
            return
        if self.reasoning and (refusal := reasoning_refusal(payload)) is not None:
            self.served.answered[400] += 1
            await _send_json(send, 400, refusal)
            return
        attempt = self._attempts.next_attempt(messages_key(model, messages))
        reply = simulate_chat(
            self.knobs, model, messages, attempt=attempt, top_logprobs=top_logprobs
        )
        if not await _client_stays(receive, reply.latency_s):
            self.served.abandoned += 1
            return
        self.served.answered[reply.status] += 1
        await _reply(send, model, messages, self._tag(reply), self.reasoning)

    async def _messages(self, receive: Receive, send: Send) -> None:
        """The Anthropic Messages API over the same sim (the `system` prompt as a leading system
        message), so an Anthropic judge can be run live against it as batches are."""
        counts = self.served_messages
        counts.received += 1
        try:
            params = json.loads(await _read_body(receive))
            model, messages = anthropic_chat_messages(params)
            thinking = anthropic_thinking(params)
        except (ValueError, RecursionError, ApiError) as err:
            counts.answered[400] += 1
            error = {"type": "invalid_request_error", "message": str(err) or "bad request"}
            await _send_json(send, 400, {"type": "error", "error": error})
            return
        attempt = self._attempts.next_attempt(messages_key(model, messages))
        reply = simulate_chat(self.knobs, model, messages, attempt=attempt)
        if not await _client_stays(receive, reply.latency_s):
            counts.abandoned += 1
            return
        counts.answered[reply.status] += 1
        status, body = anthropic_reply_json(model, messages, self._tag(reply), thinking=thinking)
        await _send_json(send, status, body, _retry_after(reply) if status == 429 else ())


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def create_sim_app(
    knobs: SimKnobs, *, reasoning: bool = False, answer_ids: bool = False, azure: bool = False
) -> ASGIApp:
    """The sim-judge ASGI app for these knobs; `reasoning`: it refuses what reasoning models do;
    `answer_ids`: every answer carries its id (`AnswerIds`); `azure`: it serves Azure OpenAI's
    `/openai/deployments/{deployment}/chat/completions` too."""
    return SimJudgeApp(knobs, reasoning=reasoning, answer_ids=answer_ids, azure=azure)


def run_sim_judge(
    host: str,
    port: int,
    knobs: SimKnobs,
    *,
    reasoning: bool = False,
    answer_ids: bool = False,
    azure: bool = False,
) -> None:
    """Serve the sim judge until interrupted (blocking)."""
    app = create_sim_app(knobs, reasoning=reasoning, answer_ids=answer_ids, azure=azure)
    uvicorn.run(app, host=host, port=port, access_log=False, log_level="info")
