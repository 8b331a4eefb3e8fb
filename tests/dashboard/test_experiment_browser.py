"""The experiments' pages in real headless Chromium (Debian's), against a real server (issue 41):
the list links each experiment, and its page shows the decision, the figures the API answers and
the confidence sequence narrowing over the comparisons with the decision marked; no console
errors. The server and browser fixtures are the explorer's."""

from __future__ import annotations

import asyncio
import base64
import time
from typing import Any

import httpx2
import pytest
from playwright.async_api import BrowserContext

from tests.batches.support import wait_for_batch
from tests.dashboard.test_explorer_browser import (  # noqa: F401 (fixtures)
    ARTIFACTS,
    CHROMIUM,
    browser,
    log_in,
    server,
    watch,
)

pytestmark = [pytest.mark.slow]
DECISION_RED = "#c0392b"


def items(n: int) -> list[dict[str, Any]]:
    return [
        {
            "prompt": f"question {i}",
            "baseline": f"old {i}\n[sim q=-3]",
            "candidate": f"new {i}\n[sim q=3]",
        }
        for i in range(n)
    ]


async def decided(api: httpx2.AsyncClient, name: str, headers: dict[str, str]) -> dict[str, Any]:
    deadline = time.monotonic() + 90
    while True:
        found: dict[str, Any] = (await api.get(f"/v1/experiments/{name}", headers=headers)).json()
        if found["status"] != "running":
            # Items running when it decided finish: read it once its batch is done.
            await wait_for_batch(api, found["batch_id"], headers)
            final: dict[str, Any] = (
                await api.get(f"/v1/experiments/{name}", headers=headers)
            ).json()
            return final
        assert time.monotonic() < deadline, found
        await asyncio.sleep(0.2)


async def test_the_experiment_page_shows_the_sequence_narrowing_to_its_decision(
    server: str,  # noqa: F811 (the explorer's fixture)
    browser: BrowserContext,  # noqa: F811 (the explorer's fixture)
    comparer: dict[str, str],
) -> None:
    body = {"name": "prompt-v2", "baseline": "v1", "candidate": "v2", "items": items(150)}
    async with httpx2.AsyncClient(base_url=server, timeout=60) as api:
        created = await api.post("/v1/experiments", headers=comparer, json=body)
        assert created.status_code == 201, created.text
        found = await decided(api, "prompt-v2", comparer)
    assert found["decision"] == "candidate_better"
    page = await log_in(browser, server, comparer["Authorization"].removeprefix("Bearer "))
    errors = watch(page)

    await page.goto(f"{server}/dashboard/experiments")
    row = page.locator("table#experiments tbody tr")
    assert await row.count() == 1
    assert "candidate_better" in await row.inner_text()
    await page.click('a[href="/dashboard/experiments/prompt-v2"]')
    await page.wait_for_url(f"{server}/dashboard/experiments/prompt-v2")
    decision = await page.locator("#decision").inner_text()
    assert decision == f"candidate_better after {found['decided_after']} comparisons"
    low, high = found["win_rate"]["cs95"]
    assert await page.locator("#cs95").inner_text() == f"[{low:.3f}, {high:.3f}]"

    image = page.locator('figure[data-chart="sequence"] img')
    assert await image.evaluate("i => i.complete && i.naturalWidth > 0")
    source = await image.get_attribute("src")
    assert source is not None
    svg = base64.b64decode(source.removeprefix("data:image/svg+xml;base64,")).decode()
    assert DECISION_RED in svg  # the decision's rule is drawn
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "experiment.png"), full_page=True)

    assert errors == []
    # An unknown name is this page with the reason (a 404, which the console reports).
    await page.goto(f"{server}/dashboard/experiments/nobody")
    assert "no experiment named" in await page.locator("p.error").inner_text()
    await page.close()
