"""Vega-Lite specs for the dashboard and their server-side rendering to SVG (vl-convert).

Specs carry their data inline (`data.values`), so one JSON document is both the chart and its
data, and the SVG cache can key on the spec itself: the same filters over unchanged data hit the
cache, and new data can never be served a stale picture.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import vl_convert as vlc

Spec = dict[str, Any]
Row = dict[str, Any]
SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
WIDTH = 520


@dataclass(frozen=True)
class Chart:
    """One chart of a page: a spec, or the reason there is nothing to draw."""

    name: str
    title: str
    spec: Spec | None
    empty: str = "Insufficient data: not enough calls in this window to estimate this figure."


def base(title: str, rows: Sequence[Row], layers: list[Spec], height: int | None = None) -> Spec:
    """A layered spec over inline rows."""
    spec: Spec = {
        "$schema": SCHEMA,
        "title": title,
        "width": WIDTH,
        "data": {"values": list(rows)},
        "layer": layers,
        "config": {"font": "sans-serif"},
    }
    if height is not None:
        spec["height"] = height
    return spec


def _rules(values: Sequence[tuple[float, str, str]], axis: str) -> list[Spec]:
    """Reference lines (value, colour, label) across the plot."""
    return [
        {
            "data": {"values": [{"ref": value, "what": label}]},
            "mark": {"type": "rule", "color": color, "strokeDash": [4, 3]},
            "encoding": {
                axis: {"field": "ref", "type": "quantitative", "title": None},
                "tooltip": {"field": "what"},
            },
        }
        for value, color, label in values
    ]


def interval_chart(
    title: str,
    rows: Sequence[Row],
    category: str,
    value: str,
    refs: Sequence[tuple[float, str, str]] = (),
    domain: tuple[float, float] | None = None,
    color: str | None = None,
) -> Spec | None:
    """Point estimates with 95% CI whiskers per category, against reference lines."""
    shown = [r for r in rows if r.get(value) is not None]
    if not shown:
        return None
    scale: Spec = {"domain": list(domain)} if domain else {"zero": False}
    x: Spec = {
        "field": value,
        "type": "quantitative",
        "scale": scale,
        "title": value.replace("_", " "),
    }
    y: Spec = {"field": category, "type": "nominal", "title": None, "sort": None}
    point: Spec = {
        "mark": {"type": "point", "filled": True, "size": 80},
        "encoding": {"x": x, "y": y},
    }
    if color:
        point["encoding"]["color"] = {"field": color, "type": "nominal"}
    whisker: Spec = {
        "mark": {"type": "rule", "strokeWidth": 2},
        "encoding": {
            "x": {"field": "ci_low", "type": "quantitative", "title": None},
            "x2": {"field": "ci_high"},
            "y": y,
        },
    }
    return base(title, shown, [whisker, point, *_rules(refs, "x")], height=max(40, 28 * len(shown)))


def series_chart(
    title: str,
    rows: Sequence[Row],
    value: str,
    changes: Sequence[str],
    refs: Sequence[tuple[float, str, str]] = (),
    model_changes: Sequence[str] = (),
) -> Spec | None:
    """A time series per judge with reference lines, judge version changes and provider-model
    changes marked (the version rule drawn last, over a model rule on the same day)."""
    shown = [r for r in rows if r.get(value) is not None]
    if not shown:
        return None
    line: Spec = {
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "bucket", "type": "temporal", "title": None},
            "y": {"field": value, "type": "quantitative", "scale": {"domain": [0, 1]}},
            "color": {"field": "judge", "type": "nominal"},
        },
    }
    marks: list[Spec] = [line, *_rules(refs, "y")]
    if model_changes:
        marks.append(_change_rule(model_changes, "provider model change", "#1b7837", [4, 3]))
    if changes:
        marks.append(_change_rule(changes, "version change", "#7b3294"))
    return base(title, shown, marks, height=180)


def _change_rule(buckets: Sequence[str], what: str, color: str, dash: Sequence[int] = ()) -> Spec:
    """Vertical rules at the buckets where something about the judge changed."""
    mark: Spec = {"type": "rule", "color": color, "strokeWidth": 2}
    if dash:
        mark["strokeDash"] = list(dash)
    return {
        "data": {"values": [{"bucket": b, "what": what} for b in buckets]},
        "mark": mark,
        "encoding": {"x": {"field": "bucket", "type": "temporal"}, "tooltip": {"field": "what"}},
    }


def bar_chart(
    title: str,
    rows: Sequence[Row],
    category: str,
    value: str,
    refs: Sequence[tuple[float, str, str]] = (),
) -> Spec | None:
    """One bar per category."""
    shown = [r for r in rows if r.get(value) is not None]
    if not shown:
        return None
    bar: Spec = {
        "mark": "bar",
        "encoding": {
            "y": {"field": category, "type": "nominal", "title": None},
            "x": {"field": value, "type": "quantitative", "title": value.replace("_", " ")},
        },
    }
    return base(title, shown, [bar, *_rules(refs, "x")], height=max(40, 28 * len(shown)))


def reliability_chart(title: str, rows: Sequence[Row]) -> Spec | None:
    """Accuracy against mean confidence per decile and source, with the diagonal."""
    shown = [r for r in rows if r.get("accuracy") is not None]
    if not shown:
        return None
    diagonal: Spec = {
        "data": {"values": [{"c": 0, "a": 0}, {"c": 1, "a": 1}]},
        "mark": {"type": "line", "color": "#999", "strokeDash": [4, 3]},
        "encoding": {
            "x": {"field": "c", "type": "quantitative"},
            "y": {"field": "a", "type": "quantitative"},
        },
    }
    line: Spec = {
        "mark": {"type": "line", "point": True},
        "encoding": {
            "x": {"field": "mean_confidence", "type": "quantitative", "scale": {"domain": [0, 1]}},
            "y": {"field": "accuracy", "type": "quantitative", "scale": {"domain": [0, 1]}},
            "color": {"field": "source", "type": "nominal"},
        },
    }
    return base(title, shown, [diagonal, line], height=220)


def band_chart(title: str, rows: Sequence[Row], margin: float) -> Spec | None:
    """Reviewer offsets with CIs inside the ±τ band."""
    spec = interval_chart(
        title, rows, "reviewer", "offset", refs=[(0.0, "#555", "0")], color="classification"
    )
    if spec is None:
        return None
    band: Spec = {
        "data": {"values": [{"low": -margin, "high": margin}]},
        "mark": {"type": "rect", "color": "#cfe3f3", "opacity": 0.6},
        "encoding": {"x": {"field": "low", "type": "quantitative"}, "x2": {"field": "high"}},
    }
    spec["layer"].insert(0, band)
    return spec


class SvgRenderer:
    """Renders specs to SVG off the event loop, one at a time, caching by spec (LRU)."""

    def __init__(self, capacity: int = 512) -> None:
        self._cache: OrderedDict[str, str] = OrderedDict()
        self._capacity = capacity
        # vl-convert starts its JavaScript runtime on first use (about 2 s, once per process);
        # the lock makes that first use, and every drawing, one at a time, off the event loop.
        self._lock = threading.Lock()

    @staticmethod
    def key(spec: Spec) -> str:
        """The cache key: a digest of the canonical spec (data included)."""
        canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(canonical.encode()).hexdigest()

    def _render(self, key: str, spec: Spec) -> str:
        with self._lock:
            cached = self._cache.get(key)
            if cached is None:
                cached = str(vlc.vegalite_to_svg(spec))
            self._cache[key] = cached
            self._cache.move_to_end(key)
            while len(self._cache) > self._capacity:
                self._cache.popitem(last=False)
            return cached

    async def svg(self, spec: Spec) -> str:
        """The SVG of a spec, from the cache when drawn before."""
        key = self.key(spec)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        return await asyncio.to_thread(self._render, key, spec)
