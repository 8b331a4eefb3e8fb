"""`/dashboard/judges/{name}/card`: a judge version's card (issue 42), per probe family the wrong
side's share with its card-level CI, the limit and the mark, and the change from the previous
version's card.

The page reads through the API's own function (`app.cards.service.read`), so a figure here cannot
differ from `GET /v1/judges/{name}/card`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import Response

from app.cards import service
from app.dashboard.auth import Viewer
from app.dashboard.rendering import html, login_redirect
from app.deps import SessionDep, SettingsDep
from app.errors import NotFound, ValidationProblem

routes = APIRouter()


@routes.get("/judges/{name}/card")
async def show_card(
    request: Request,
    viewer: Viewer,
    session: SessionDep,
    settings: SettingsDep,
    name: Annotated[str, Path(max_length=64)],
    version: Annotated[int | None, Query(ge=1, le=1_000_000)] = None,
) -> Response:
    """The card of the judge's current version, or of `version`."""
    if viewer is None:
        return login_redirect(request)
    context: dict[str, Any] = {"view": {"title": f"Card of {name}"}, "page": None, "name": name}
    try:
        answer = await service.read(session, settings, name, version)
    except NotFound as missing:
        return html("card.html.j2", 404, error=missing.detail, **context)
    except ValidationProblem as refused:
        return html("card.html.j2", 422, error=refused.detail, **context)
    return html("card.html.j2", error=None, answer=answer, **context)
