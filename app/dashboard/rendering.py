"""What every dashboard page shares: its templates, its security headers, its navigation."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, PackageLoader, select_autoescape

from app.dashboard.filters import WINDOWS

TEMPLATES = Environment(
    loader=PackageLoader("app.dashboard", "templates"),
    autoescape=select_autoescape(["j2"]),
    enable_async=False,
)
# No script may run, nothing loads from elsewhere; charts are data: images.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "private, no-store",
}
NAV = [
    ("overview", "/dashboard", "Overview"),
    ("reviewers", "/dashboard/reviewers", "Reviewers"),
    ("position-score", "/dashboard/position-score", "Position-score bias"),
    ("leaderboard", "/dashboard/leaderboard", "Leaderboard"),
    ("comparisons", "/dashboard/comparisons", "Comparisons"),
    ("experiments", "/dashboard/experiments", "Experiments"),
    ("label", "/dashboard/label", "Label"),
]


def html(template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    """A rendered template with the dashboard's security headers."""
    body = TEMPLATES.get_template(template).render(nav=NAV, windows=WINDOWS, **context)
    return HTMLResponse(body, status_code=status_code, headers=SECURITY_HEADERS)


def login_redirect(request: Request) -> RedirectResponse:
    """To the login form, coming back here afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/dashboard/login?{urlencode({'next': target})}", status_code=303)
