"""The DevBench replay, served once for the compare and the report tests (minutes, not seconds)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.replay.serving import ServedBench, served_bench


@pytest.fixture(scope="package")
async def devbench(
    pg_template: str, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[ServedBench]:
    """Every recorded DevBench swap pair of the five judges, served through `POST /v1/compare`."""
    async with served_bench(
        "DevBench", "human", pg_template, tmp_path_factory.mktemp("dev")
    ) as bench:
        yield bench
