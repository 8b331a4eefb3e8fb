"""How a route answers a job (the HTTP glue of the kernel): the job outlives a disconnected
client, and the answer's headers say a replay and simulated judges; the route's dependencies.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Annotated, Any, TypeVar

from fastapi import Depends, Header, Response

from app.deps import InFlightDep, from_state
from app.jobs.kind import Outcome, Services

T = TypeVar("T")

JobsDep = Annotated[Services, from_state("jobs")]


class Answering:
    """How a route answers a job: the job outlives a disconnected client (shutdown drains the
    process's in-flight jobs), and the answer's headers say a replay and simulated judges."""

    def __init__(self, response: Response, in_flight: set[asyncio.Task[Any]]) -> None:
        self.response = response
        self.in_flight = in_flight

    async def __call__(self, work: Coroutine[Any, Any, Outcome[T]]) -> T:
        task = asyncio.create_task(work)
        self.in_flight.add(task)
        task.add_done_callback(self.in_flight.discard)
        outcome = await asyncio.shield(task)
        if outcome.replayed:
            self.response.headers["Idempotent-Replayed"] = "true"
        if getattr(outcome.answer, "simulated", False):
            self.response.headers["Fairpair-Simulated"] = "true"
        return outcome.answer


async def answering(response: Response, in_flight: InFlightDep) -> Answering:
    """The route's `Answering`."""
    return Answering(response, in_flight)


AnsweringDep = Annotated[Answering, Depends(answering)]
IdempotencyKeyHeader = Annotated[str | None, Header(max_length=255)]
