"""The dashboard in real headless Chromium (Debian's), against a real server on a free port."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

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
# page: charts drawn with the seeded data
CHARTS = {
    "/dashboard": 7,
    "/dashboard/judge?judge=judge-a": 4,
    "/dashboard/reviewers": 1,
    "/dashboard/position-score": 2,
    "/dashboard/leaderboard": 2,
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


async def open_page(context: BrowserContext, url: str) -> tuple[Page, list[str]]:
    """A loaded page and the console errors (and page errors) it produced."""
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    answer = await page.goto(url, wait_until="load")
    assert answer is not None, url
    assert answer.status == 200, url
    return page, errors


async def drawn_charts(page: Page) -> int:
    """Chart images the browser decoded (a broken SVG has no natural width)."""
    count: Any = await page.evaluate(
        "[...document.querySelectorAll('figure.chart img')]"
        ".filter(i => i.complete && i.naturalWidth > 0).length"
    )
    return int(count)


async def log_in(context: BrowserContext, base: str, token: str) -> None:
    """Through the login form, as a person would."""
    page, errors = await open_page(context, f"{base}/dashboard")
    assert "/dashboard/login" in page.url
    await page.fill("input[name=key]", token)
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{base}/dashboard")
    assert errors == []
    cookie = next(c for c in await context.cookies() if c["name"] == "fairpair_key")
    assert cookie["httpOnly"]
    assert cookie["sameSite"] == "Strict"
    await page.close()


async def test_every_page_loads_clean_with_its_charts_and_the_json_reports_figures(
    server: str, browser: BrowserContext, clean_pg: str, reader: dict[str, str]
) -> None:
    await seed(clean_pg)
    await log_in(browser, server, reader["Authorization"].removeprefix("Bearer "))
    ARTIFACTS.mkdir(exist_ok=True)
    for path, count in CHARTS.items():
        page, errors = await open_page(browser, server + path)
        assert await drawn_charts(page) == count, path
        slug = path.removeprefix("/dashboard").strip("/").split("?")[0] or "overview"
        await page.screenshot(path=str(ARTIFACTS / f"dashboard-page-{slug}.png"), full_page=True)
        assert await page.locator("p.insufficient").count() == 0, path
        assert errors == [], (path, errors)
        await page.close()

    async with httpx2.AsyncClient(base_url=server, headers=reader, timeout=60) as api:
        report = (await api.get("/v1/bias-report")).json()
    page, errors = await open_page(browser, f"{server}/dashboard")
    await page.screenshot(path=str(ARTIFACTS / "dashboard-overview.png"), full_page=True)
    assert len(report["judges"]) == 3
    for judge in report["judges"]:
        row = page.locator(f'tr[data-judge="{judge["judge"]}"]')
        shown = {
            field: (await row.locator(f'td[data-field="{field}"]').inner_text()).strip()
            for field in ("n", "first_pick_rate", "position_consistency")
        }
        position, consistency = judge["position"], judge["consistency"]
        want = {
            "n": position["n"],
            "first_pick_rate": position["first_pick_rate"],
            "position_consistency": consistency["position_consistency"],
        }
        assert shown == {
            k: str(v) if k == "n" else "—" if v is None else f"{v:.3f}" for k, v in want.items()
        }, judge["judge"]
    assert errors == []


async def test_a_judge_without_enough_data_shows_messages_not_empty_frames(
    server: str, browser: BrowserContext, clean_pg: str, reader: dict[str, str]
) -> None:
    await seed(clean_pg)
    await log_in(browser, server, reader["Authorization"].removeprefix("Bearer "))
    page, errors = await open_page(browser, f"{server}/dashboard/judge?judge=judge-c")
    assert await drawn_charts(page) == 0
    messages = page.locator("p.insufficient")
    assert await messages.count() == 4
    assert "Insufficient data" in await messages.first.inner_text()
    assert errors == []
