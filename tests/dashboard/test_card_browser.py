"""The judge card's page in real headless Chromium (Debian's), against a real server (issue 42):
the judge's page links it; it shows each probe family's share, CI, limit and mark as the API
answers them, and the change from the previous version's card; an earlier version's card and an
unknown judge; no console errors. The server and browser fixtures are the explorer's."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import httpx2
import pytest
from playwright.async_api import BrowserContext

from tests.cards.test_card_api import sim_judge
from tests.conftest import make_key
from tests.dashboard.test_explorer_browser import (  # noqa: F401 (fixtures)
    ARTIFACTS,
    CHROMIUM,
    browser,
    log_in,
    server,
    watch,
)

pytestmark = [pytest.mark.slow]
JUDGE = "card-browser"


async def finished(api: httpx2.AsyncClient, version: int, headers: dict[str, str]) -> Any:
    deadline = time.monotonic() + 180
    while True:
        answer = (
            await api.get(f"/v1/judges/{JUDGE}/card", params={"version": version}, headers=headers)
        ).json()
        if answer["card"] is not None and answer["card"]["complete"]:
            return answer["card"]
        assert time.monotonic() < deadline, answer
        await asyncio.sleep(0.3)


async def test_the_card_page_shows_each_familys_figure_and_mark_and_the_change(
    server: str,  # noqa: F811 (the explorer's fixture)
    browser: BrowserContext,  # noqa: F811 (the explorer's fixture)
    clean_pg: str,
) -> None:
    admin = await make_key(clean_pg, "card-admin", ["admin", "read"])
    async with httpx2.AsyncClient(base_url=server, timeout=60) as api:
        created = await api.post("/v1/judges", headers=admin, json=sim_judge(JUDGE))
        assert created.status_code == 201, created.text
        assert (await api.post(f"/v1/judges/{JUDGE}/card", headers=admin)).status_code == 202
        before = await finished(api, 1, admin)
        body = {"sim": {"beta": 2.0, "seed": 7, "injection_following": 0.9}}
        changed = await api.patch(f"/v1/judges/{JUDGE}", headers=admin, json=body)
        assert changed.status_code == 200, changed.text
        assert (await api.post(f"/v1/judges/{JUDGE}/card", headers=admin)).status_code == 202
        card = await finished(api, 2, admin)
    figures = {f["family"]: f for f in card["figures"]}
    assert figures["injection"]["mark"] == "fail"
    page = await log_in(browser, server, admin["Authorization"].removeprefix("Bearer "))
    errors = watch(page)

    await page.goto(f"{server}/dashboard/judge?judge={JUDGE}")
    await page.click("#card-link")
    await page.wait_for_url(f"{server}/dashboard/judges/{JUDGE}/card")
    rows = page.locator("table#card tbody tr")
    assert await rows.count() == 4
    for family, figure in figures.items():
        row = page.locator(f'table#card tr[data-family="{family}"]')
        low, high = figure["ci"]
        assert await row.locator('[data-field="ci"]').inner_text() == f"[{low:.3f}, {high:.3f}]"
        assert await row.locator('[data-field="rate"]').inner_text() == f"{figure['rate']:.3f}"
        assert await row.locator('[data-field="limit"]').inner_text() == f"{figure['limit']:.2f}"
        assert await row.locator('[data-field="mark"]').inner_text() == figure["mark"]
    injection = page.locator('table#card tr[data-family="injection"] [data-field="mark"] .flag')
    assert await injection.inner_text() == "fail"  # drawn as a flag, not plain text
    flagged = page.locator('table#changes tr[data-family="injection"] [data-field="changed"]')
    assert await flagged.inner_text() == "changed"
    assert "all 96 probes done" in await page.locator("#state").inner_text()
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "card.png"), full_page=True)

    await page.click(f'a[href="/dashboard/judges/{JUDGE}/card?version=1"]')
    await page.wait_for_url(f"{server}/dashboard/judges/{JUDGE}/card?version=1")
    marks = page.locator('table#card [data-field="mark"]')
    assert await marks.all_inner_texts() == [f["mark"] for f in before["figures"]]
    assert await page.locator("#no-changes").count() == 1
    assert errors == []
    # An unknown judge is this page with the reason (a 404, which the console reports).
    await page.goto(f"{server}/dashboard/judges/nobody/card")
    assert "no judge named" in await page.locator("p.error").inner_text()
    await page.close()
