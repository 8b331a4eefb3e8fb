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


def number(value: float | None, digits: int = 3) -> str:
    """A figure for people: thousands grouped, a fraction to `digits` places (whole numbers
    stay whole), `—` for none."""
    if value is None:
        return "—"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:,.{digits}f}"


def yesno(value: bool | None) -> str:
    """`yes`, `no`, or `—` when not known (not checked yet)."""
    return "—" if value is None else "yes" if value else "no"


def usd(value: float | None) -> str:
    """A cost in dollars to four significant digits (judge calls cost fractions of a cent)."""
    return "—" if value is None else f"${value:,.4g}" if value < 1000 else f"${value:,.2f}"


TEMPLATES.filters.update(number=number, yesno=yesno, usd=usd)
# No script may run, nothing loads from elsewhere; charts are data: images.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "private, no-store",
}
# A page with charts runs the app's own scripts (vega-embed draws them interactive), and only
# those: same origin, no inline script, no eval.
SCRIPT_HEADERS = {
    **SECURITY_HEADERS,
    "Content-Security-Policy": SECURITY_HEADERS["Content-Security-Policy"] + "; script-src 'self'",
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
    """A rendered template with the dashboard's security headers. A `scripts` list in the
    context (same-origin URLs) is loaded at the end of the page, and the CSP then admits them."""
    body = TEMPLATES.get_template(template).render(nav=NAV, windows=WINDOWS, **context)
    headers = SCRIPT_HEADERS if context.get("scripts") else SECURITY_HEADERS
    return HTMLResponse(body, status_code=status_code, headers=headers)


def login_redirect(request: Request) -> RedirectResponse:
    """To the login form, coming back here afterwards."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return RedirectResponse(f"/dashboard/login?{urlencode({'next': target})}", status_code=303)
