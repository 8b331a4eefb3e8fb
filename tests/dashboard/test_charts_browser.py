"""The dashboard's interactive charts in real headless Chromium (Debian's), against a real server:
every chart is drawn by vega-embed from the app's own files under the page's CSP (a violation is
a console error), a tooltip appears on hover, the time series zoom under the wheel, and with
JavaScript off the server's SVG is the chart. Run: `timeout 900 bash scripts/test -q -p
no:cacheprovider -m slow tests/dashboard/test_charts_browser.py`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import httpx2
import pytest
from playwright.async_api import BrowserContext, Page, Route, async_playwright

from tests.dashboard.seed import seed
from tests.dashboard.test_browser import (
    ARTIFACTS,
    CHARTS,
    CHROMIUM,
    FLAGS,
    browser,
    log_in,
    open_page,
    pytestmark,
    server,
)

__all__ = ["browser", "pytestmark", "server"]


async def interactive(page: Page) -> int:
    """Wait until every chart with a spec has been drawn (or failed); how many were drawn."""
    await page.wait_for_function(
        "[...document.querySelectorAll('figure.chart')]"
        ".filter(f => f.querySelector('script.spec'))"
        ".every(f => f.hasAttribute('data-interactive'))",
        timeout=30_000,
    )
    count = await page.locator('figure.chart[data-interactive="true"]').count()
    return int(count)


async def only_this_server(context: BrowserContext, base: str) -> list[str]:
    """Abort (and record) every request to another origin."""
    elsewhere: list[str] = []

    async def route(request: Route) -> None:
        if request.request.url.startswith(base):
            await request.continue_()
        else:
            elsewhere.append(request.request.url)
            await request.abort()

    await context.route("**/*", route)
    return elsewhere


async def test_every_chart_is_interactive_with_tooltips_and_zoom_and_no_console_errors(
    server: str, browser: BrowserContext, clean_pg: str, reader: dict[str, str]
) -> None:
    await seed(clean_pg)
    elsewhere = await only_this_server(browser, server)
    await log_in(browser, server, reader["Authorization"].removeprefix("Bearer "))
    ARTIFACTS.mkdir(exist_ok=True)
    for path, count in CHARTS.items():
        page, errors = await open_page(browser, server + path)
        assert await interactive(page) == count, path
        # The server's picture is hidden once the interactive chart is there.
        assert await page.locator("figure.chart img.fallback:visible").count() == 0, path
        assert errors == [], (path, errors)
        await page.close()

    page, errors = await open_page(browser, f"{server}/dashboard")
    assert await interactive(page) == CHARTS["/dashboard"]
    # Hover a point of the first-pick series: the tooltip names its judge and day.
    chart = page.locator('figure[data-chart="series_first_pick"] .interactive')
    point = chart.locator("g.mark-symbol.role-mark path").first
    await point.scroll_into_view_if_needed()
    box = await point.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tooltip = page.locator("#vg-tooltip-element.visible")
    await tooltip.wait_for(state="visible", timeout=10_000)
    said = await tooltip.inner_text()
    assert "judge" in said
    assert "first pick rate" in said
    assert "judge-" in said
    await page.screenshot(path=str(ARTIFACTS / "charts-tooltip.png"), full_page=True)

    # The wheel zooms the time axis: the points move apart from the plot's centre.
    plot = await chart.locator("svg").bounding_box()
    assert plot is not None
    before = await point.bounding_box()
    assert before is not None
    await page.mouse.move(plot["x"] + plot["width"] / 2, plot["y"] + plot["height"] / 2)
    for _ in range(5):
        await page.mouse.wheel(0, -200)
    await page.wait_for_function(
        "([selector, x]) => Math.abs(document.querySelector(selector)"
        ".getBoundingClientRect().x - x) > 5",
        arg=[
            'figure[data-chart="series_first_pick"] .interactive g.mark-symbol.role-mark path',
            before["x"],
        ],
        timeout=10_000,
    )
    assert errors == []
    assert elsewhere == []
    await page.close()


async def test_the_judge_page_tooltips_a_lone_day_over_its_version_line(
    server: str, browser: BrowserContext, clean_pg: str, reader: dict[str, str]
) -> None:
    await seed(clean_pg)
    await log_in(browser, server, reader["Authorization"].removeprefix("Bearer "))
    # judge-a's series: its second day is where its version changed (a rule on that day).
    page, errors = await open_page(browser, f"{server}/dashboard/judge?judge=judge-a")
    assert await interactive(page) == CHARTS["/dashboard/judge?judge=judge-a"]
    chart = page.locator('figure[data-chart="series_first_pick"] .interactive')
    points = chart.locator("g.mark-symbol.role-mark path")
    assert await points.count() == 2
    await points.last.scroll_into_view_if_needed()
    box = await points.last.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    tooltip = page.locator("#vg-tooltip-element.visible")
    await tooltip.wait_for(state="visible", timeout=10_000)
    # The point, not the version rule under it, answers the pointer.
    assert "first pick rate" in await tooltip.inner_text()
    assert errors == []
    await page.close()


@pytest.fixture
async def no_script_browser(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    """Headless Chromium with JavaScript off."""
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            tmp_path / "profile-noscript",
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            java_script_enabled=False,
            viewport={"width": 1280, "height": 1000},
        )
        yield context
        await context.close()


async def test_without_javascript_the_svg_is_the_chart_and_the_download(
    server: str, no_script_browser: BrowserContext, clean_pg: str, reader: dict[str, str]
) -> None:
    await seed(clean_pg)
    async with httpx2.AsyncClient(base_url=server, headers=reader, timeout=60) as api:
        page_html = (await api.get("/dashboard")).text
        svg = await api.get("/dashboard/charts/overview/latency_by_day.svg")
        assert svg.status_code == 200
        assert svg.headers["content-type"] == "image/svg+xml"
        assert svg.text.lstrip().startswith("<svg")
        empty = await api.get("/dashboard/charts/judge/series_first_pick.svg?judge=judge-c")
        assert empty.status_code == 404
    assert 'href="/dashboard/charts/overview/latency_by_day.svg?"' in page_html
    # The page itself, scripts off: every chart is the server's picture.
    page = await no_script_browser.new_page()
    await page.goto(f"{server}/dashboard/login")
    await page.fill("input[name=key]", reader["Authorization"].removeprefix("Bearer "))
    await page.click("button[type=submit]")
    await page.wait_for_url(f"{server}/dashboard")
    drawn = await page.locator("figure.chart img.fallback").count()
    assert drawn == CHARTS["/dashboard"]
    assert await page.locator("figure.chart .interactive").count() == 0
    await page.close()
