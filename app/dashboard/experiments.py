"""`/dashboard/experiments`: every A/B experiment, and one experiment's page with its confidence
sequence narrowing over the comparisons and the decision marked (issue 41).

Both pages read through the API's own functions (`app.experiments.service`), so a figure here
cannot differ from `GET /v1/experiments/{name}`; the chart's path is the same sequence
(`app.sequential`) over the same outcomes, read after every comparison.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Path, Request
from fastapi.responses import Response

from app import sequential
from app.dashboard.auth import Viewer
from app.dashboard.charts import SCHEMA, WIDTH, Row, Spec, SvgRenderer
from app.dashboard.rendering import html, login_redirect
from app.deps import SessionDep, from_state
from app.errors import NotFound
from app.experiments import service
from app.experiments.schemas import ExperimentRead
from app.ledger import experiments

routes = APIRouter()
ChartsDep = Annotated[SvgRenderer, from_state("dashboard_charts")]
# The most points the chart draws: the path is thinned evenly beyond it (the decision's point and
# the last one always kept), so a 10,000-comparison experiment is still a small picture.
MAX_POINTS = 400


@routes.get("/experiments")
async def show_experiments(request: Request, viewer: Viewer, session: SessionDep) -> Response:
    """Every experiment, newest first: where it stands."""
    if viewer is None:
        return login_redirect(request)
    listed = await service.list_experiments(session)
    return html(
        "experiments.html.j2",
        view={"title": "Experiments"},
        page="experiments",
        experiments=listed,
    )


@routes.get("/experiments/{name}")
async def show_experiment(
    request: Request,
    viewer: Viewer,
    session: SessionDep,
    renderer: ChartsDep,
    name: Annotated[str, Path(max_length=64)],
) -> Response:
    """One experiment: its figures, and its interval after every comparison."""
    if viewer is None:
        return login_redirect(request)
    context: dict[str, Any] = {"view": {"title": f"Experiment {name}"}, "page": "experiments"}
    try:
        stored = await service.stored(session, name)
    except NotFound as missing:
        return html("experiment.html.j2", 404, error=missing.detail, **context)
    found = await service.read(session, stored)
    outcomes = await experiments.outcomes(session, stored)
    spec = sequence_chart(found, path_rows(outcomes, found.decided_after))
    svg = await renderer.svg(spec) if spec is not None else None
    src = svg and "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()
    return html("experiment.html.j2", error=None, e=found, chart_src=src, **context)


def path_rows(outcomes: Sequence[float], decided_after: int | None) -> list[Row]:
    """The 95% sequence and the running win rate after each comparison, thinned to
    `MAX_POINTS` (the decision's comparison and the last kept)."""
    path = sequential.intervals(outcomes, 0.05)
    step = max(1, len(path) // MAX_POINTS)
    keep = set(range(0, len(path), step)) | {len(path) - 1}
    if decided_after is not None and 0 < decided_after <= len(path):
        keep.add(decided_after - 1)
    rows, total = [], 0.0
    for index, (x, interval) in enumerate(zip(outcomes, path, strict=True)):
        total += x
        if index in keep:
            rows.append(
                {
                    "comparisons": index + 1,
                    "win_rate": round(total / (index + 1), 4),
                    "lower": round(interval.lower, 4),
                    "upper": round(interval.upper, 4),
                }
            )
    return rows


def sequence_chart(found: ExperimentRead, rows: list[Row]) -> Spec | None:
    """The interval as a band narrowing over the comparisons, the win rate as a line, 0.5 (and
    the margin) as rules, and the decision as a vertical rule."""
    if not rows:
        return None
    x = {"field": "comparisons", "type": "quantitative", "title": "comparisons"}
    y_scale = {"domain": [0, 1]}
    layers: list[Spec] = [
        {
            "mark": {"type": "area", "opacity": 0.25, "color": "#4c78a8"},
            "encoding": {
                "x": x,
                "y": {
                    "field": "lower",
                    "type": "quantitative",
                    "scale": y_scale,
                    "title": "candidate's win rate",
                },
                "y2": {"field": "upper"},
            },
        },
        {
            "mark": {"type": "line", "color": "#1d3557"},
            "encoding": {"x": x, "y": {"field": "win_rate", "type": "quantitative"}},
        },
    ]
    refs = [0.5] + ([0.5 - found.margin, 0.5 + found.margin] if found.margin else [])
    layers += [
        {
            "data": {"values": [{"ref": ref} for ref in refs]},
            "mark": {"type": "rule", "color": "#555", "strokeDash": [4, 3]},
            "encoding": {"y": {"field": "ref", "type": "quantitative"}},
        }
    ]
    if found.decided_after is not None:
        layers.append(
            {
                "data": {"values": [{"at": found.decided_after, "what": found.decision}]},
                "mark": {"type": "rule", "color": "#c0392b", "strokeWidth": 2},
                "encoding": {"x": {"field": "at", "type": "quantitative"}},
            }
        )
    return {
        "$schema": SCHEMA,
        "title": f"{found.candidate} against {found.baseline}: 95% confidence sequence",
        "width": WIDTH,
        "height": 260,
        "data": {"values": rows},
        "layer": layers,
        "config": {"font": "sans-serif"},
    }
