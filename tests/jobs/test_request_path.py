"""The job routes' dependencies run on the event loop: FastAPI runs a plain `def` dependency in
a worker thread, and a thread hop per dependency per request showed as API CPU per comparison."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator

import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute

from app.comparisons.router import router as comparisons
from app.scoring.router import router as scoring


def calls(dependant: Dependant) -> Iterator[Callable[..., object]]:
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from calls(dependency)


@pytest.mark.parametrize(
    "path", ["/v1/compare", "/v1/score", "/v1/comparisons/{comparison_id}", "/v1/comparisons"]
)
def test_every_dependency_of_a_job_route_is_a_coroutine(path: str) -> None:
    routes = [*comparisons.routes, *scoring.routes]
    matching = [r for r in routes if isinstance(r, APIRoute) and r.path == path]
    assert matching  # every method on the path (GET and DELETE of /v1/comparisons)
    threaded = [
        getattr(call, "__qualname__", repr(call))
        for route in matching
        for call in calls(route.dependant)
        if not is_async(call)
    ]
    assert threaded == []


def is_async(call: Callable[..., object]) -> bool:
    """As FastAPI decides whether to run a dependency on the loop: a coroutine (or async
    generator) function, or an instance whose `__call__` is one (the `HTTPBearer` scheme)."""
    target = call if inspect.isfunction(call) else getattr(call, "__call__", call)  # noqa: B004
    return inspect.iscoroutinefunction(target) or inspect.isasyncgenfunction(target)
