"""The browser files the app serves itself, and `/docs` on them: nothing loads from a CDN.

The dashboard's charts are drawn in the browser by vega-embed (`static/charts.js`) and `/docs` is
Swagger UI, both from copies of the npm builds in `static/vendor/` (versions, licences and the
tarballs' hashes in its README.md). The files are served under a versioned path from a fixed
list, never from a path the request names, so nothing else in the package can be read through
these routes; a changed version is a new URL, so they may be cached for long.

`/docs` is FastAPI's Swagger page rebuilt without its inline script and CDN links: the page
loads `swagger-ui-bundle.js` and `docs.js` from here, under a CSP of `script-src 'self'`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, Response

from app.dashboard.rendering import TEMPLATES

VEGA = "vega-6.2.0"
SWAGGER = "swagger-ui-5.35.0"
JS = "text/javascript; charset=utf-8"
CSS = "text/css; charset=utf-8"
# A versioned URL never changes its content: a browser may keep it for a week.
ASSET_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "public, max-age=604800, immutable",
}
# Own files (not versioned): an hour, like label.js.
OWN_HEADERS = {"X-Content-Type-Options": "nosniff", "Cache-Control": "public, max-age=3600"}
DOCS_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; "
    "base-uri 'none'"
)


@dataclass(frozen=True)
class Asset:
    """A served file: where it is in the package and its media type."""

    path: str
    media_type: str
    versioned: bool = True


ASSETS: dict[str, Asset] = {
    f"/dashboard/static/{VEGA}/vega.min.js": Asset("vendor/vega/vega.min.js", JS),
    f"/dashboard/static/{VEGA}/vega-lite.min.js": Asset("vendor/vega/vega-lite.min.js", JS),
    f"/dashboard/static/{VEGA}/vega-embed.min.js": Asset("vendor/vega/vega-embed.min.js", JS),
    f"/dashboard/static/{VEGA}/vega-interpreter.js": Asset("vendor/vega/vega-interpreter.js", JS),
    "/dashboard/static/charts.js": Asset("charts.js", JS, versioned=False),
    f"/docs/static/{SWAGGER}/swagger-ui-bundle.js": Asset(
        "vendor/swagger-ui/swagger-ui-bundle.js", JS
    ),
    f"/docs/static/{SWAGGER}/swagger-ui.css": Asset("vendor/swagger-ui/swagger-ui.css", CSS),
    "/docs/static/docs.js": Asset("docs.js", JS, versioned=False),
}
# The scripts a page with charts loads, in order (vega-embed needs vega and vega-lite first).
CHART_SCRIPTS = [
    f"/dashboard/static/{VEGA}/vega.min.js",
    f"/dashboard/static/{VEGA}/vega-lite.min.js",
    f"/dashboard/static/{VEGA}/vega-embed.min.js",
    f"/dashboard/static/{VEGA}/vega-interpreter.js",
    "/dashboard/static/charts.js",
]

routes = APIRouter(include_in_schema=False)


@cache
def content(path: str) -> bytes:
    """A static file's bytes, read once from the package."""
    return resources.files("app.dashboard").joinpath("static", path).read_bytes()


def asset_route(asset: Asset) -> Callable[[], Awaitable[Response]]:
    """The GET handler of one file."""

    async def serve() -> Response:
        return Response(
            content(asset.path),
            media_type=asset.media_type,
            headers=ASSET_HEADERS if asset.versioned else OWN_HEADERS,
        )

    serve.__doc__ = f"The static file {asset.path}."
    return serve


for url, asset in ASSETS.items():
    routes.add_api_route(url, asset_route(asset), methods=["GET"])


@routes.get("/docs")
async def swagger_docs() -> HTMLResponse:
    """The API's interactive documentation (Swagger UI over /openapi.json), served offline."""
    body = TEMPLATES.get_template("docs.html.j2").render(
        css=f"/docs/static/{SWAGGER}/swagger-ui.css",
        scripts=[f"/docs/static/{SWAGGER}/swagger-ui-bundle.js", "/docs/static/docs.js"],
        openapi="/openapi.json",
    )
    return HTMLResponse(
        body,
        headers={
            "Content-Security-Policy": DOCS_CSP,
            "X-Content-Type-Options": "nosniff",
            "Referrer-Policy": "same-origin",
        },
    )
