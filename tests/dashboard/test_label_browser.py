"""The labeling page in real headless Chromium (Debian's): keyboard-only labeling, the order
shown as stored, the strict CSP with its one same-origin script, JavaScript off."""

from __future__ import annotations

import shutil
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
import uvicorn
from playwright.async_api import BrowserContext, Page, async_playwright

from app.config import Settings
from app.dashboard.labeling import CSP
from app.main import create_app
from tests.conftest import make_key
from tests.dashboard.test_labeling import (
    assert_blind,
    seed_items,
    side_shown_first,
    stored_labels,
)
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
KEYS = {"1": "left", "2": "right", "3": "tie"}

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="Debian chromium not installed"),
]


@pytest.fixture
def server(settings_factory: Callable[..., Settings]) -> Iterator[str]:
    """The app under uvicorn in a thread, auth on; its base URL (as tests/dashboard/
    test_browser.py starts it)."""
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


async def launch(tmp_path: Path, javascript: bool) -> AsyncIterator[BrowserContext]:
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            tmp_path / f"profile-{javascript}",
            executable_path=CHROMIUM,
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 1000},
            java_script_enabled=javascript,
        )
        yield context
        await context.close()


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    """Headless Chromium with a fresh profile."""
    async for context in launch(tmp_path, javascript=True):
        yield context


@pytest.fixture
async def browser_without_js(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    """Headless Chromium with JavaScript off."""
    async for context in launch(tmp_path, javascript=False):
        yield context


def watch(page: Page) -> list[str]:
    """The console errors (and page errors) the page produces from now on."""
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


async def log_in_by_keyboard(page: Page, base: str, token: str) -> None:
    """Through the login form, typing the key and pressing Enter: a label key lands on the
    labeling page."""
    await page.goto(f"{base}/dashboard/label", wait_until="load")
    assert "/dashboard/login" in page.url
    await page.focus("input[name=key]")
    await page.keyboard.type(token)
    async with page.expect_navigation(url=f"{base}/dashboard/label"):
        await page.keyboard.press("Enter")


async def assert_strict_page(page: Page) -> None:
    """The one script is the same-origin file; the texts are there; nothing gives them away."""
    scripts = await page.eval_on_selector_all("script", "s => s.map(e => [e.src, e.text])")
    assert scripts == [[page.url.split("/dashboard")[0] + "/dashboard/static/label.js", ""]]
    assert_blind(await page.content())


async def test_a_labeler_labels_twenty_items_by_keyboard_only(
    server: str, browser: BrowserContext, clean_pg: str
) -> None:
    await seed_items(clean_pg, 22)
    token = (await make_key(clean_pg, "keyboard", ["label"]))["Authorization"].split(" ")[1]
    page = await browser.new_page()
    errors = watch(page)
    csp: list[str] = []
    page.on(
        "response",
        lambda r: (
            csp.append(r.headers.get("content-security-policy", ""))
            if r.url.endswith("/dashboard/label") and r.status == 200
            else None
        ),
    )
    await log_in_by_keyboard(page, server, token)
    ARTIFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTIFACTS / "label.png"), full_page=True)
    shown_first, pressed = [], []
    for k in range(20):
        await assert_strict_page(page)
        assert await page.inner_text("[data-progress=labelled]") == str(k)
        shown_first.append(side_shown_first(await page.inner_text("[data-text=left]")))
        key = "123"[k % 3]
        pressed.append(KEYS[key])
        async with page.expect_navigation(wait_until="load"):
            await page.keyboard.press(key)
    assert await page.inner_text("[data-progress=labelled]") == "20"
    assert await page.inner_text("[data-progress=remaining]") == "2"
    assert errors == []
    assert csp
    assert set(csp) == {CSP}

    labels = await stored_labels(clean_pg)
    assert [label.shown_first for label in labels] == shown_first
    for label, choice in zip(labels, pressed, strict=True):
        second = "B" if label.shown_first == "A" else "A"
        assert label.winner == {"left": label.shown_first, "right": second, "tie": "tie"}[choice]
        assert label.from_queue is True


async def test_with_javascript_off_the_plain_form_labels_and_skips(
    server: str, browser_without_js: BrowserContext, clean_pg: str
) -> None:
    await seed_items(clean_pg, 3)
    token = (await make_key(clean_pg, "nojs", ["label"]))["Authorization"].split(" ")[1]
    page = await browser_without_js.new_page()
    errors = watch(page)
    await log_in_by_keyboard(page, server, token)
    skipped = await page.inner_text("[data-text=left]")
    async with page.expect_navigation(wait_until="load"):
        await page.click("button[value=skip]")
    assert "skip=" in page.url
    assert await page.inner_text("[data-text=left]") != skipped
    left = await page.inner_text("[data-text=left]")
    await page.fill("textarea[name=note]", "both fine, left clearer")
    async with page.expect_navigation(wait_until="load"):
        await page.click("button[value=left]")
    assert await page.inner_text("[data-progress=labelled]") == "1"
    assert errors == []
    [label] = await stored_labels(clean_pg)
    assert label.shown_first == side_shown_first(left)
    assert label.winner == label.shown_first
    assert label.note == "both fine, left clearer"
