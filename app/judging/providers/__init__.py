"""Judge providers behind one interface, and the factory that picks one."""

from __future__ import annotations

import httpx2

from app.judging.base import Judge
from app.judging.ratelimit import RateLimiter
from app.judging.types import JudgeConfig


def build_judge(
    config: JudgeConfig,
    *,
    transport: httpx2.AsyncBaseTransport | None = None,
    limiter: RateLimiter | None = None,
) -> Judge:
    """The judge for `config`; `transport` replaces the network (tests, replays).

    `limiter` counts the judge's `rpm` (shared through Redis); without one, the judge counts it
    in process.
    """
    # Imported here so that a process using only the sim never loads both SDKs.
    if config.provider == "openai":
        from app.judging.providers.openai import OpenAIJudge

        return OpenAIJudge(config, transport=transport, limiter=limiter)
    if config.provider == "anthropic":
        from app.judging.providers.anthropic import AnthropicJudge

        return AnthropicJudge(config, transport=transport, limiter=limiter)
    from app.judging.providers.sim import SimJudge

    return SimJudge(config, limiter)
