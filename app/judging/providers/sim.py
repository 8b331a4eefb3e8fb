"""The in-process simulated judge: renders like any judge, answers via `simulate_chat`."""

from __future__ import annotations

import asyncio

from app.judging.base import JudgeClient
from app.judging.judge import TOP_LOGPROBS, ChatRequest, Completion
from app.judging.ratelimit import RateLimiter
from app.judging.retries import ProviderCallError
from app.judging.simulation import AttemptCounter, estimate_tokens, messages_key, simulate_chat
from app.judging.types import JudgeConfig


class SimJudge(JudgeClient):
    """The simulated judge in process; it answers exactly as `fairpair sim-judge` would."""

    def __init__(self, config: JudgeConfig, limiter: RateLimiter | None = None) -> None:
        super().__init__(config, limiter)
        self._attempts = AttemptCounter()

    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        messages = request.messages()
        reply = simulate_chat(
            self.config.sim,
            self.config.model,
            messages,
            attempt=self._attempts.next_attempt(messages_key(self.config.model, messages)),
            top_logprobs=TOP_LOGPROBS if request.want_logprobs else None,
            label_pool=self.config.effective_label_pool,
            judge_family=self.config.family,
        )
        if reply.latency_s > timeout_s:
            await asyncio.sleep(timeout_s)
            raise ProviderCallError("timeout", "simulated request timed out")
        if reply.latency_s > 0:
            await asyncio.sleep(reply.latency_s)
        if reply.status == 429:
            raise ProviderCallError("rate_limited", reply.text, retry_after_s=reply.retry_after_s)
        if reply.status >= 500:
            raise ProviderCallError("server_error", reply.text)
        if reply.status != 200:
            raise ProviderCallError("bad_request", reply.text)
        return Completion(
            text=reply.text,
            provider_model=self.config.model,
            tokens_in=sum(estimate_tokens(m["content"]) for m in messages),
            tokens_out=estimate_tokens(reply.text),
            logprobs=reply.logprobs,
        )
