"""Fixtures for the judging tests."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest


@pytest.fixture
def deadline_in() -> Callable[[float], float]:
    """An absolute monotonic deadline this many seconds from now."""
    return lambda seconds: time.monotonic() + seconds
