"""`/docs` in real headless Chromium (Debian's), offline: Swagger UI from the app's own files.

Every request the page makes to another origin is aborted and recorded: the page must make none,
render every operation of the OpenAPI document, and log no console error (a CSP violation is
one). Run: `timeout 900 bash scripts/test -q -p no:cacheprovider -m slow
tests/dashboard/test_docs_browser.py`.
"""

from __future__ import annotations

import httpx2
from playwright.async_api import BrowserContext, Route

from tests.dashboard.test_browser import ARTIFACTS, browser, open_page, pytestmark, server

__all__ = ["browser", "pytestmark", "server"]


async def test_docs_render_every_operation_offline_without_console_errors(
    server: str, browser: BrowserContext
) -> None:
    elsewhere: list[str] = []

    async def only_this_server(route: Route) -> None:
        if route.request.url.startswith(server):
            await route.continue_()
        else:
            elsewhere.append(route.request.url)
            await route.abort()

    await browser.route("**/*", only_this_server)
    async with httpx2.AsyncClient(base_url=server, timeout=60) as api:
        schema = (await api.get("/openapi.json")).json()
        answer = await api.get("/docs")
    csp = answer.headers["content-security-policy"]
    assert "script-src 'self'" in csp
    assert "unsafe-eval" not in csp
    assert "<script>" not in answer.text  # no inline script: every script is a file of ours
    operations = sum(
        1 for item in schema["paths"].values() for method in item if method != "parameters"
    )

    page, errors = await open_page(browser, f"{server}/docs")
    await page.wait_for_selector(".opblock", timeout=30_000)
    assert await page.locator(".opblock").count() == operations
    assert "fairpair" in await page.locator(".info .title").inner_text()
    # An operation opens, with its parameters (Swagger UI's own rendering, not just the list).
    await page.locator(".opblock-summary", has_text="/v1/judges").first.click()
    await page.wait_for_selector(".opblock.is-open")
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "docs.png"))
    assert elsewhere == []
    assert errors == []
    await page.close()


async def test_the_docs_files_are_ours_and_cacheable(server: str) -> None:
    async with httpx2.AsyncClient(base_url=server, timeout=60) as api:
        page = await api.get("/docs")
        for src in ("swagger-ui-bundle.js", "swagger-ui.css", "docs.js"):
            assert src in page.text
        bundle = await api.get("/docs/static/swagger-ui-5.35.0/swagger-ui-bundle.js")
        assert bundle.status_code == 200
        assert bundle.headers["content-type"].startswith("text/javascript")
        assert bundle.headers["x-content-type-options"] == "nosniff"
        assert "immutable" in bundle.headers["cache-control"]
        # Only the listed files: no path reaches anything else in the package.
        for path in (
            "/docs/static/swagger-ui-5.35.0/../../assets.py",
            "/docs/static/swagger-ui-5.35.0/index.html",
            "/dashboard/static/vega-6.2.0/%2e%2e/charts.js",
            "/redoc",  # FastAPI's ReDoc page loads its script from a CDN: not served
        ):
            assert (await api.get(path)).status_code == 404, path
