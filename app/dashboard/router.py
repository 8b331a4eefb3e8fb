"""`/dashboard`: server-rendered pages over the report's queries. Each chart is an SVG drawn on the
server (the page without JavaScript, and the download) and its Vega-Lite spec, which
`static/charts.js` draws interactive in the browser (tooltips, hover, zoom on time series)."""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from typing import Annotated, Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.auth.sessions import open_session, revoke_session
from app.dashboard import cards, experiments, explorer, labeling
from app.dashboard.assets import CHART_SCRIPTS
from app.dashboard.auth import (
    COOKIE,
    COOKIE_MAX_AGE_S,
    Viewer,
    check_origin,
    is_https,
    landing,
    may_log_in,
)
from app.dashboard.cache import PageCache, PageView, watermark
from app.dashboard.charts import Chart, SvgRenderer, spec_rows, to_csv
from app.dashboard.filters import FiltersDep, PageFilters
from app.dashboard.rendering import html, login_redirect
from app.dashboard.service import PAGES, Sources
from app.deps import KeyCheckDep, SessionDep, SessionmakerDep, SettingsDep, from_state
from app.errors import NotFound, Unauthorized, ValidationProblem
from app.leaderboard.service import LeaderboardCacheDep

router = APIRouter(prefix="/dashboard", tags=["dashboard"], include_in_schema=False)
# The pages' own headers that apply to a file of the same logged-in data.
DOWNLOAD_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "private, no-store"}
PageCacheDep = Annotated[PageCache, from_state("dashboard_pages")]
ChartsDep = Annotated[SvgRenderer, from_state("dashboard_charts")]


def sources(
    session: SessionDep,
    sessionmaker: SessionmakerDep,
    settings: SettingsDep,
    cache: LeaderboardCacheDep,
    pages: PageCacheDep,
) -> Sources:
    """Everything a page builder reads from."""
    return Sources(session, sessionmaker, settings, cache, pages)


async def page_view(page: str, src: Sources, filters: PageFilters) -> PageView:
    """The page's view, from the cache unless something was stored since it was built."""
    mark = await watermark(src.session)
    return await src.pages.view((page, filters), mark, lambda: PAGES[page](src, filters))


SourcesDep = Annotated[Sources, Depends(sources)]


async def render_page(
    page: str,
    request: Request,
    viewer: Any,
    src: Sources,
    filters: PageFilters,
    renderer: SvgRenderer,
) -> Response:
    """Build a page's view, draw its charts and render its template."""
    if viewer is None:
        return login_redirect(request)
    view = await page_view(page, src, filters)
    figures = []
    for chart in view.charts:
        svg = await renderer.svg(chart.spec) if chart.spec is not None else None
        figures.append(
            {
                "chart": chart,
                "src": svg
                and "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode(),
                "spec": chart.spec,
                "svg": f"/dashboard/charts/{page}/{chart.name}.svg?{filters.query()}",
                "json": f"/dashboard/charts/{page}/{chart.name}.json?{filters.query()}",
                "csv": f"/dashboard/charts/{page}/{chart.name}.csv?{filters.query()}",
            }
        )
    return html(
        view.template,
        view=view,
        page=page,
        figures=figures,
        filters=filters,
        auth=src.settings.auth == "on",
        scripts=CHART_SCRIPTS if any(c.spec is not None for c in view.charts) else (),
        **view.context,
    )


def page_route(page: str, about: str) -> Callable[..., Awaitable[Response]]:
    """The route of a page that needs nothing but the common filters."""

    async def show(
        request: Request, viewer: Viewer, src: SourcesDep, filters: FiltersDep, renderer: ChartsDep
    ) -> Response:
        return await render_page(page, request, viewer, src, filters, renderer)

    show.__name__ = show.__qualname__ = f"show_{page.replace('-', '_')}"
    show.__doc__ = about
    return show


PLAIN_PAGES = (
    (
        "",
        "overview",
        "Every judge's position bias, consistency against the floors, flags and failures.",
    ),
    ("/reviewers", "reviewers", "Reviewer offsets with CIs and the ±τ band."),
    ("/position-score", "position-score", "Position-score bias and length-score correlation."),
    ("/leaderboard", "leaderboard", "Model ratings with CIs."),
)
for path, page, about in PLAIN_PAGES:
    router.add_api_route(path, page_route(page, about), methods=["GET"])


@router.get("/judge")
async def show_judge(
    request: Request, viewer: Viewer, src: SourcesDep, filters: FiltersDep, renderer: ChartsDep
) -> Response:
    """One judge: time series, label preference, placebo, length, human agreement."""
    if filters.judge is None:
        raise ValidationProblem("/judge: required on the judge page")
    return await render_page("judge", request, viewer, src, filters, renderer)


async def find_chart(
    viewer: Any, src: Sources, filters: PageFilters, page: str, name: str
) -> Chart:
    """The named chart of a page built with these filters, for its downloads."""
    if viewer is None:
        raise Unauthorized(
            "log in at /dashboard/login or send Authorization: Bearer",
            headers={"WWW-Authenticate": "Bearer"},
        )
    if page not in PAGES or (page == "judge" and filters.judge is None):
        raise NotFound(f"no dashboard page {page!r} (the judge page needs ?judge=)")
    view = await page_view(page, src, filters)
    chart = next((c for c in view.charts if c.name == name), None)
    if chart is None:
        raise NotFound(f"no chart {name!r} on {page}")
    return chart


PagePath = Annotated[str, Path(max_length=32)]
ChartPath = Annotated[str, Path(max_length=64)]


@router.get("/charts/{page}/{name}.json")
async def download_chart(
    viewer: Viewer, src: SourcesDep, filters: FiltersDep, page: PagePath, name: ChartPath
) -> JSONResponse:
    """One chart's Vega-Lite spec with its data inline."""
    chart = await find_chart(viewer, src, filters, page, name)
    body = chart.spec if chart.spec is not None else {"title": chart.title, "empty": chart.empty}
    return JSONResponse(
        body,
        headers={
            **DOWNLOAD_HEADERS,
            "Content-Disposition": f'attachment; filename="{page}-{name}.json"',
        },
    )


@router.get("/charts/{page}/{name}.svg")
async def download_chart_svg(
    viewer: Viewer,
    src: SourcesDep,
    filters: FiltersDep,
    renderer: ChartsDep,
    page: PagePath,
    name: ChartPath,
) -> Response:
    """One chart as the SVG the page shows without JavaScript (404 when nothing is drawn)."""
    chart = await find_chart(viewer, src, filters, page, name)
    if chart.spec is None:
        raise NotFound(f"chart {name!r} on {page} has nothing to draw: {chart.empty}")
    return Response(
        await renderer.svg(chart.spec),
        media_type="image/svg+xml",
        headers={
            **DOWNLOAD_HEADERS,
            "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'",
            "Content-Disposition": f'attachment; filename="{page}-{name}.svg"',
        },
    )


@router.get("/charts/{page}/{name}.csv")
async def download_chart_csv(
    viewer: Viewer, src: SourcesDep, filters: FiltersDep, page: PagePath, name: ChartPath
) -> Response:
    """One chart's data rows as CSV (the JSON's `data.values`; empty when nothing is drawn)."""
    chart = await find_chart(viewer, src, filters, page, name)
    return Response(
        to_csv(spec_rows(chart.spec)),
        media_type="text/csv; charset=utf-8; header=present",
        headers={
            **DOWNLOAD_HEADERS,
            "Content-Disposition": f'attachment; filename="{page}-{name}.csv"',
        },
    )


def safe_next(target: str | None) -> str:
    """Only dashboard paths: the login form is no open redirect."""
    if target and target.startswith("/dashboard") and not target.startswith("//"):
        return target
    return "/dashboard"


@router.get("/login")
async def show_login(next: str | None = None) -> HTMLResponse:
    """The login form: paste a key with the `read` scope."""
    return html("login.html.j2", next=safe_next(next), error=None)


@router.post("/login")
async def log_in(
    request: Request, sessionmaker: SessionmakerDep, settings: SettingsDep, keys: KeyCheckDep
) -> Response:
    """Check the key like the API does and open a session; the cookie holds only its token."""
    check_origin(request)
    form = parse_qs((await request.body()).decode(errors="replace"))
    token = (form.get("key") or [""])[0].strip()
    target = safe_next((form.get("next") or [""])[0])
    principal = await keys.verify(token) if token else None
    if principal is None or not may_log_in(principal):
        return html(
            "login.html.j2",
            status_code=401,
            next=target,
            error="That key is not valid, was revoked, or lacks the read and label scopes.",
        )
    async with sessionmaker() as session:
        session_token = await open_session(session, principal.key_id)
    response = RedirectResponse(landing(principal, target), status_code=303)
    response.set_cookie(
        COOKIE,
        session_token,
        max_age=COOKIE_MAX_AGE_S,
        path="/dashboard",
        httponly=True,
        samesite="strict",
        secure=is_https(request, settings),
    )
    return response


@router.post("/logout")
async def log_out(
    request: Request, sessionmaker: SessionmakerDep, settings: SettingsDep
) -> Response:
    """End the session on the server and forget its cookie."""
    check_origin(request)
    token = request.cookies.get(COOKIE)
    if token:
        async with sessionmaker() as session:
            await revoke_session(session, token)
    response = RedirectResponse("/dashboard/login", status_code=303)
    response.delete_cookie(
        COOKIE,
        path="/dashboard",
        httponly=True,
        samesite="strict",
        secure=is_https(request, settings),
    )
    return response


# The labeling page, the comparison explorer (issue 23), the experiments (issue 41) and the
# judge card (issue 42) route from their own modules.
router.include_router(labeling.routes)
router.include_router(explorer.routes)
router.include_router(experiments.routes)
router.include_router(cards.routes)
