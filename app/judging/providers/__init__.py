"""JudgeClient providers behind one interface, and the factory that picks one."""

from __future__ import annotations

import httpx2

from app.judging.base import JudgeClient
from app.judging.egress import EgressPolicy
from app.judging.providers.anthropic import AnthropicJudge
from app.judging.providers.azure import AzureOpenAIJudge
from app.judging.providers.http import Connection
from app.judging.providers.openai import OpenAIJudge
from app.judging.providers.sim import SimJudge
from app.judging.ratelimit import RateLimiter
from app.judging.types import JudgeConfig


def build_judge(
    config: JudgeConfig,
    *,
    transport: httpx2.AsyncBaseTransport | None = None,
    limiter: RateLimiter | None = None,
    egress: EgressPolicy | None = None,
    max_connections: int | None = None,
) -> JudgeClient:
    """The judge for `config`; `transport` replaces the network (tests, replays).

    Without a transport an HTTP judge connects itself, only to addresses `egress` allows (by
    default the judges file's trust), with at most `max_connections` (default: its
    `max_concurrency`). `limiter` counts the judge's `rpm` (shared through Redis); without one,
    the judge counts it in process.
    """
    connection = Connection(
        transport=transport, egress=egress, max_connections=max_connections, limiter=limiter
    )
    if config.provider == "openai":
        return OpenAIJudge(config, **connection)
    if config.provider == "azure_openai":
        return AzureOpenAIJudge(config, **connection)
    if config.provider == "anthropic":
        return AnthropicJudge(config, **connection)
    return SimJudge(config, limiter)
