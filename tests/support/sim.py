"""The sim-judge's HTTP app behind an in-process transport that counts requests."""

from __future__ import annotations

import httpx2

from app.judging.types import SimKnobs
from app.simjudge.server import create_sim_app


class CountingTransport(httpx2.AsyncBaseTransport):
    """Forwards to the sim-judge app and counts the chat requests it answers."""

    def __init__(self, knobs: SimKnobs) -> None:
        self.inner = httpx2.ASGITransport(app=create_sim_app(knobs))
        self.requests = 0

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        self.requests += 1
        return await self.inner.handle_async_request(request)


def http_sim_judges_toml(name: str = "http-sim", model: str = "sim-http", family: str = "") -> str:
    """A judges file whose judge talks to the sim-judge over the OpenAI API."""
    family_line = f'family = "{family}"' if family else ""
    return f"""
default_panel = ["{name}"]

[[judges]]
name = "{name}"
provider = "openai"
model = "{model}"
base_url = "http://sim.test/v1"
api_key = "sk-test"
{family_line}
"""
