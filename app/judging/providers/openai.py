"""Judges behind any OpenAI-compatible Chat Completions endpoint, through the `openai` SDK."""

from __future__ import annotations

import httpx2
import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam

from app.judging.base import BaseJudge
from app.judging.judge import TOP_LOGPROBS, ChatRequest, Completion
from app.judging.providers.errors import (
    client_timeout,
    http_client,
    response_status_error,
    transport_error,
)
from app.judging.retries import ProviderCallError
from app.judging.types import JudgeConfig, TokenLogprob

# Local servers (vLLM, Ollama, llama.cpp) need no key, but the SDK insists on one.
_NO_KEY = "no-key"


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


class OpenAIJudge(BaseJudge):
    """A judge reached through the OpenAI SDK; we retry, the SDK does not."""

    def __init__(
        self, config: JudgeConfig, *, transport: httpx2.AsyncBaseTransport | None = None
    ) -> None:
        super().__init__(config)
        self._http = http_client(transport, config.timeout_s, config.max_concurrency)
        self._client = openai.AsyncOpenAI(
            base_url=config.base_url,
            api_key=config.api_key or _NO_KEY,
            http_client=self._http,
            max_retries=0,
        )

    async def aclose(self) -> None:
        """Release the judge's HTTP client."""
        await self._client.close()

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        messages: list[ChatCompletionMessageParam] = [
            {"role": "system", "content": request.system},
            {"role": "user", "content": request.user},
        ]
        try:
            response = await self._client.chat.completions.create(
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
        except openai.APIStatusError as err:
            raise response_status_error(err.response, err.message) from err
        except openai.APIConnectionError as err:
            timed_out = isinstance(err, openai.APITimeoutError)
            raise transport_error(timed_out, err.message) from err
        except openai.APIError as err:
            raise ProviderCallError("server_error", f"invalid response: {err.message}") from err
        return completion_from_response(response)
