"""The comparison explorer in real headless Chromium (Debian's), against a real server: find a
comparison, open it, and follow a report figure's link to its comparisons; no console errors.
The fixtures are test_browser.py's, copied so that each file stands alone."""

from __future__ import annotations

import re
import shutil
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx2
import pytest
import uvicorn
from playwright.async_api import BrowserContext, Page, async_playwright

from app.config import Settings
from app.main import create_app
from tests.dashboard.seed import seed
from tests.support.processes import free_port

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-quic",
    "--no-first-run",
    "--disable-component-update",
    "--disable-sync",
]
COMPARE = {
    "prompt": "Name a prime number below ten.",
    "response_a": {"text": "Seven.\n[sim q=2]", "model": "model-left"},
    "response_b": {"text": "Nine, which is prime.\n[sim q=-2]", "model": "model-right"},
    "judges": ["sim-a", "sim-b"],
    "tags": {"case": "browser-1"},
}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="Debian chromium not installed"),
]


@pytest.fixture
def server(settings_factory: Callable[..., Settings]) -> Iterator[str]:
    """The app under uvicorn in a thread, auth on; its base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(settings_factory()),
        host="127.0.0.1",
        port=port,
        log_level="warning",
        lifespan="on",
    )
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert time.monotonic() < deadline, "server did not start"
        assert thread.is_alive(), "server exited"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=30)


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    """Headless Chromium with a fresh profile."""
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            tmp_path / "profile",
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 1000},
        )
        yield context
        await context.close()


def watch(page: Page) -> list[str]:
    """The console errors (and page errors) the page will produce."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


async def log_in(context: BrowserContext, base: str, token: str) -> Page:
    """Through the login form, as a person would; the page, left open for the next steps."""
    page = await context.new_page()
    await page.goto(f"{base}/dashboard/comparisons")
    assert "/dashboard/login" in page.url
    await page.fill("input[name=key]", token)
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{base}/dashboard/comparisons")
    return page


async def shown_total(page: Page) -> int:
    """The count of matching comparisons the list states."""
    return int(await page.locator('[data-field="total"]').inner_text())


async def test_find_open_and_follow_a_figure_to_its_comparisons_without_console_errors(
    server: str,
    browser: BrowserContext,
    clean_pg: str,
    reader: dict[str, str],
    comparer: dict[str, str],
) -> None:
    await seed(clean_pg)
    async with httpx2.AsyncClient(base_url=server, timeout=60) as api:
        compared = await api.post("/v1/compare", headers=comparer, json=COMPARE)
        assert compared.status_code == 200, compared.text
        comparison_id = compared.json()["id"]
        answer = (await api.get(f"/v1/comparisons/{comparison_id}", headers=reader)).json()
    page = await log_in(browser, server, reader["Authorization"].removeprefix("Bearer "))
    errors = watch(page)
    ARTIFACTS.mkdir(exist_ok=True)

    # Find it with the form, by judge and tag.
    await page.fill("input[name=judge]", "sim-b")
    await page.fill("input[name=tag]", "case:browser-1")
    await page.click("form.filters button[type=submit]")
    await page.wait_for_url(re.compile(r".*judge=sim-b.*"))
    assert await shown_total(page) == 1
    assert await page.locator("table#comparisons tr[data-id]").count() == 1
    await page.screenshot(path=str(ARTIFACTS / "comparisons.png"), full_page=True)

    # Search its text: the list narrows to it, the prompt's start shown in its row; a text no
    # comparison holds lists none.
    await page.goto(f"{server}/dashboard/comparisons")
    await page.fill("input[name=q]", "PRIME number")
    await page.click("form.filters button[type=submit]")
    await page.wait_for_url(re.compile(r".*q=PRIME.*"))
    assert await shown_total(page) == 1
    row = page.locator("table#comparisons tr[data-id]")
    assert await row.get_attribute("data-id") == comparison_id
    assert await row.locator('[data-field="prompt"]').inner_text() == COMPARE["prompt"]
    await page.fill("input[name=q]", "100%_ of nothing")
    await page.click("form.filters button[type=submit]")
    await page.wait_for_url(re.compile(r".*q=100.*"))
    assert await shown_total(page) == 0

    # Open it: every call of the API's answer, with its pick and latency.
    await page.goto(f"{server}/dashboard/comparisons?q=prime")
    await page.click(f'a[href="/dashboard/comparisons/{comparison_id}"]')
    await page.wait_for_url(f"{server}/dashboard/comparisons/{comparison_id}")
    calls = [(j["judge"], c) for j in answer["judges"] for c in j["calls"]]
    assert await page.locator("table#calls tr[data-round]:not(.raw)").count() == len(calls)
    for judge, call in calls:
        row = page.locator(f'table#calls tr[data-judge="{judge}"][data-round="{call["round"]}"]')
        cells = row.first
        assert (await cells.locator('[data-field="pick"]').inner_text()) == call["pick"]
        latency = await cells.locator('[data-field="latency_ms"]').inner_text()
        assert latency == f"{call['latency_ms']:,.0f}"
    assert "model-left" in await page.locator("#response-a h3").inner_text()
    await page.screenshot(path=str(ARTIFACTS / "comparison.png"), full_page=True)

    # From the judge page's primacy figure to the comparisons behind it.
    await page.goto(f"{server}/dashboard/judge?judge=judge-a")
    link = page.locator('a[data-field="primacy_pairs"]')
    figure = int((await link.inner_text()).removeprefix("primacy "))
    assert figure > 0
    await link.click()
    await page.wait_for_url(re.compile(r".*swap=primacy.*"))
    assert await shown_total(page) == figure
    assert errors == []
    await page.close()
