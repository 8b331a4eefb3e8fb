"""Judges behind any OpenAI-compatible Chat Completions endpoint.

api.openai.com is reached through the `openai` SDK, which follows the vendor's API (organization
and project headers from the environment, new parameters, its error shapes). Every other server
(vLLM, Ollama, llama.cpp, LM Studio, OpenRouter, the sim) gets the same Chat Completions JSON over
the same httpx2 client without the SDK's request and response models: those cost about 2 ms of CPU
a call, nothing beside a remote model's seconds, but most of a fast local judge's budget. Both
paths send the same body and map answers and failures to the same `Completion` and error kinds
(tests/judging/test_openai_json_path.py holds them equal).
"""

from __future__ import annotations

from typing import Any, Unpack

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from app.judging.judge import TOP_LOGPROBS, ChatRequest, Completion
from app.judging.providers.errors import (
    SdkErrorTypes,
    client_timeout,
    status_error,
    transport_error,
)
from app.judging.providers.http import Connection, HttpJudge
from app.judging.retries import ProviderCallError
from app.judging.types import JudgeConfig, TokenLogprob

# Local servers (vLLM, Ollama, llama.cpp) need no key, but the SDK insists on one.
_NO_KEY = "no-key"
_SDK_ERRORS = SdkErrorTypes(
    openai.APIStatusError, openai.APIConnectionError, openai.APITimeoutError
)
OPENAI_HOST = "api.openai.com"
_OPENAI_BASE_URL = f"https://{OPENAI_HOST}/v1"


def _token_logprobs(response: ChatCompletion) -> tuple[TokenLogprob, ...] | None:
    logprobs = response.choices[0].logprobs if response.choices else None
    if logprobs is None or not logprobs.content:
        return None
    return tuple(
        TokenLogprob(
            token=item.token,
            logprob=item.logprob,
            top=tuple((alt.token, alt.logprob) for alt in item.top_logprobs or ()),
        )
        for item in logprobs.content
    )


def completion_from_response(response: ChatCompletion) -> Completion:
    """The provider-neutral view of a chat completion."""
    text = response.choices[0].message.content if response.choices else None
    usage = response.usage
    return Completion(
        text=text or "",
        provider_model=response.model,
        tokens_in=usage.prompt_tokens if usage else None,
        tokens_out=usage.completion_tokens if usage else None,
        logprobs=_token_logprobs(response),
    )


def _json_token_logprobs(choice: dict[str, Any]) -> tuple[TokenLogprob, ...] | None:
    content = (choice.get("logprobs") or {}).get("content")
    if not content:
        return None
    return tuple(
        TokenLogprob(
            token=item["token"],
            logprob=item["logprob"],
            top=tuple((alt["token"], alt["logprob"]) for alt in item.get("top_logprobs") or ()),
        )
        for item in content
    )


def completion_from_json(body: Any) -> Completion:
    """`completion_from_response` for the decoded JSON of a chat completion."""
    choices = body.get("choices")
    usage = body.get("usage")
    return Completion(
        text=(choices[0]["message"].get("content") if choices else None) or "",
        provider_model=body.get("model"),
        tokens_in=usage.get("prompt_tokens") if usage else None,
        tokens_out=usage.get("completion_tokens") if usage else None,
        logprobs=_json_token_logprobs(choices[0]) if choices else None,
    )


def sdk_style_message(response: httpx2.Response) -> str:
    """The error text the SDK gives a status error: the code, then the body's error message."""
    text = f"Error code: {response.status_code}"
    try:
        body = response.json()
    except ValueError:
        return text
    error = body.get("error", body) if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return f"{text} - {message}" if isinstance(message, str) and message else text


class OpenAIJudge(HttpJudge):
    """A judge behind a Chat Completions endpoint; we retry, the HTTP layer does not."""

    def __init__(self, config: JudgeConfig, **connection: Unpack[Connection]) -> None:
        super().__init__(config, **connection)
        self._client: openai.AsyncOpenAI | None = None
        if config.base_url_host == OPENAI_HOST:
            self._client = openai.AsyncOpenAI(
                base_url=config.base_url,
                api_key=config.api_key or _NO_KEY,
                http_client=self._http,
                max_retries=0,
            )
        base_url = (config.base_url or _OPENAI_BASE_URL).rstrip("/")
        self._url = f"{base_url}/chat/completions"
        self._headers = {"Authorization": f"Bearer {config.api_key or _NO_KEY}"}

    def _body(self, request: ChatRequest) -> dict[str, Any]:
        """The Chat Completions request the SDK would send for `request`."""
        body: dict[str, Any] = {
            "messages": request.messages(),
            "model": self.config.model,
            "temperature": self.config.temperature,
        }
        if self.config.use_json_mode:
            body["response_format"] = {"type": "json_object"}
        if request.want_logprobs:
            body["logprobs"], body["top_logprobs"] = True, TOP_LOGPROBS
        return body

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        if self._client is None:
            return await self._complete_json(request, timeout_s)
        return await self._complete_sdk(self._client, request, timeout_s)

    async def _complete_json(self, request: ChatRequest, timeout_s: float) -> Completion:
        try:
            response = await self._http.post(
                self._url,
                json=self._body(request),
                headers=self._headers,
                timeout=client_timeout(timeout_s),
            )
        except httpx2.TimeoutException as err:
            raise transport_error(True, "Request timed out.") from err
        except httpx2.HTTPError as err:
            raise transport_error(False, "Connection error.") from err
        if not response.is_success:
            raise status_error(response.status_code, sdk_style_message(response), response.headers)
        try:
            return completion_from_json(response.json())
        except (ValueError, LookupError, TypeError, AttributeError) as err:
            raise ProviderCallError("server_error", f"invalid response: {err!r}") from err

    async def _complete_sdk(
        self, client: openai.AsyncOpenAI, request: ChatRequest, timeout_s: float
    ) -> Completion:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ]
        try:
            response = await client.chat.completions.create(
                model=self.config.model,
                messages=messages,
                temperature=self.config.temperature,
                response_format=(
                    {"type": "json_object"} if self.config.use_json_mode else openai.omit
                ),
                logprobs=True if request.want_logprobs else openai.omit,
                top_logprobs=TOP_LOGPROBS if request.want_logprobs else openai.omit,
                timeout=client_timeout(timeout_s),
            )
        except openai.APIError as err:
            raise _SDK_ERRORS.provider_error(err) from err
        return completion_from_response(response)
