"""Fixtures of the hardening tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.batches.support import RedisServer, redis_server


@pytest.fixture
def own_redis() -> Iterator[RedisServer]:
    """A redis-server of the test's own on a free port; ask for it before `live_factory` so that
    the apps stop before it does."""
    with redis_server() as redis:
        yield redis
