"""Vega-Lite specs for the dashboard and their server-side rendering to SVG (vl-convert).

Specs carry their data inline (`data.values`), so one JSON document is both the chart and its
data, and the SVG cache can key on the spec itself: the same filters over unchanged data hit the
cache, and new data can never be served a stale picture.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import vl_convert as vlc

Spec = dict[str, Any]
Row = dict[str, Any]
# The Vega-Lite that draws both the SVG (vl-convert 1.9) and the page (static/vendor).
SCHEMA = "https://vega.github.io/schema/vega-lite/v6.json"
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
        # The SVG is measured by vl-convert's fonts and shown in the browser's: room for wider
        # glyphs, so that no axis label is cut at the picture's edge.
        "padding": {"left": 28, "right": 16, "top": 4, "bottom": 4},
        "config": {"font": "sans-serif", "axis": {"labelLimit": 320}},
    }
    if height is not None:
        spec["height"] = height
    return spec


def tooltip(rows: Sequence[Row], fields: Sequence[tuple[str, str]]) -> list[Spec]:
    """Tooltip lines for the fields (name, type) that the rows carry: numbers to 3 significant
    decimals, days as dates; a field no row has is left out."""
    present = {key for row in rows for key in row}
    lines: list[Spec] = []
    for field, kind in fields:
        if field not in present:
            continue
        line: Spec = {"field": field, "type": kind, "title": field.replace("_", " ")}
        if kind == "quantitative":
            line["format"] = ",.4~g"
        elif kind == "temporal":
            line["format"], line["scale"] = "%Y-%m-%d", {"type": "utc"}
            line["timeUnit"] = "utcyearmonthdate"
        lines.append(line)
    return lines


# Not `nearest`: Vega-Lite 6.4's Voronoi cells give nominal tooltip fields as "undefined".
HOVER: Spec = {
    "name": "hover",
    "select": {"type": "point", "on": "pointerover", "clear": "pointerout"},
}
# Drag to pan and wheel to zoom the time axis (double-click resets): the interactive chart only.
ZOOM: Spec = {"name": "zoom", "select": {"type": "interval", "encodings": ["x"]}, "bind": "scales"}


def hovered_size(normal: int = 60, hovered: int = 180) -> Spec:
    """A point grows under the pointer."""
    return {"condition": {"param": "hover", "empty": False, "value": hovered}, "value": normal}


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


def interval_tips(category: str, value: str, color: str | None = None) -> list[tuple[str, str]]:
    """What a point's tooltip says: its row, the estimate, its interval and what it rests on."""
    fields = [(category, "nominal"), (value, "quantitative")]
    fields += [("ci_low", "quantitative"), ("ci_high", "quantitative"), ("n", "quantitative")]
    return fields + [("tier", "nominal")] + ([(color, "nominal")] if color else [])


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
        "mark": {"type": "point", "filled": True},
        "params": [HOVER],
        "encoding": {
            "x": x,
            "y": y,
            "size": hovered_size(80, 200),
            "tooltip": tooltip(shown, interval_tips(category, value, color)),
        },
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


def _change_rule(buckets: Sequence[str], what: str, color: str, dash: Sequence[int] = ()) -> Spec:
    """Vertical rules at the buckets where something about the judge changed."""
    mark: Spec = {"type": "rule", "color": color, "strokeWidth": 2, "opacity": 0.7}
    if dash:
        mark["strokeDash"] = list(dash)
    return {
        "data": {"values": [{"bucket": b, "what": what} for b in buckets]},
        "mark": mark,
        "encoding": {"x": {"field": "bucket", "type": "temporal"}, "tooltip": {"field": "what"}},
    }


def day_axis(rows: Sequence[Row], most_ticks: int = 12) -> Spec:
    """The x of UTC day buckets, ticked on whole UTC days (never the renderer's local hours),
    a tick every few days over long windows so that labels do not crowd. The axis is padded
    beyond the first and last day, so that a lone day is drawn inside the plot, not on its edge
    under a change rule."""
    days = {r["bucket"] for r in rows}
    step = max(1, math.ceil(len(days) / most_ticks))
    # Padding in pixels, not a domain of dates: Vega's expression interpreter (the page's, no
    # eval) mis-reads a date domain, and padding keeps the domain the data's own.
    scale: Spec = {"type": "utc", "padding": 36}
    return {
        "field": "bucket",
        "type": "temporal",
        "title": None,
        "scale": scale,
        "axis": {
            "format": "%b %d",
            "tickCount": {"interval": "day", "step": step},
            "labelFlush": True,
            "labelOverlap": True,
        },
    }


SERIES_TIPS = [
    ("judge", "nominal"),
    ("bucket", "temporal"),
    ("first_pick_rate", "quantitative"),
    ("position_consistency", "quantitative"),
    ("cost_usd", "quantitative"),
    ("latency_ms_mean", "quantitative"),
    ("latency_ms_max", "quantitative"),
    ("ci_low", "quantitative"),
    ("ci_high", "quantitative"),
    ("calls", "quantitative"),
    ("priced_calls", "quantitative"),
    ("n", "quantitative"),
    ("pairs", "quantitative"),
    ("tier", "nominal"),
    ("version", "quantitative"),
    ("provider_models", "nominal"),
]


def judge_lines(rows: Sequence[Row], x: Spec, y: Spec, color: Spec) -> list[Spec]:
    """A line per judge, and its points on top: tooltips and a hover highlight on the points,
    pan and zoom of the time axis on the line."""
    line: Spec = {
        "mark": {"type": "line"},
        "params": [ZOOM],
        "encoding": {"x": x, "y": y, "color": color},
    }
    points: Spec = {
        "mark": {"type": "point", "filled": True, "opacity": 1},
        "params": [HOVER],
        "encoding": {
            "x": x,
            "y": y,
            "color": color,
            "size": hovered_size(),
            "tooltip": tooltip(rows, SERIES_TIPS),
        },
    }
    return [line, points]


def judges_series_chart(
    title: str, rows: Sequence[Row], value: str, refs: Sequence[tuple[float, str, str]] = ()
) -> Spec | None:
    """One line per judge over the buckets with its 95% CI (a band, and a whisker per point so
    that a lone day shows its interval too), and a rule wherever a judge's version or provider
    model changed, read from the rows' `version_changed` / `provider_model_changed` flags.
    The rules are drawn first, under the data, so that they never hide a point.

    Every row stays in the data, also those whose value is withheld (null: Vega-Lite leaves
    them out of the lines), so the downloaded data holds every bucket and a change on a thin day
    is still marked."""
    if all(r.get(value) is None for r in rows):
        return None
    x = day_axis(rows)
    y: Spec = {
        "field": value,
        "type": "quantitative",
        "scale": {"domain": [0, 1]},
        "title": value.replace("_", " "),
    }
    # The legend takes its symbols from the first layer with a colour, the faint band: draw
    # them opaque.
    color: Spec = {"field": "judge", "type": "nominal", "legend": {"symbolOpacity": 1}}
    interval: Spec = {
        "x": x,
        "y": {**y, "field": "ci_low"},
        "y2": {"field": "ci_high"},
        "color": color,
    }
    band: Spec = {"mark": {"type": "area", "opacity": 0.15}, "encoding": interval}
    whisker: Spec = {"mark": {"type": "rule", "opacity": 0.6}, "encoding": interval}
    marks = _judge_change_rules(
        rows, x, "provider_model_changed", "provider model change", "#1b7837", [4, 3]
    )
    marks += _judge_change_rules(rows, x, "version_changed", "version change", "#7b3294")
    marks += [band, whisker, *_rules(refs, "y"), *judge_lines(rows, x, y, color)]
    return base(title, rows, marks, height=200)


def measure_series_chart(title: str, rows: Sequence[Row], value: str, y_title: str) -> Spec | None:
    """A plain measure per judge and day (cost, latency): lines with points, tooltips and zoom,
    the y axis from zero."""
    if all(r.get(value) is None for r in rows):
        return None
    x = day_axis(rows)
    y: Spec = {"field": value, "type": "quantitative", "title": y_title}
    color: Spec = {"field": "judge", "type": "nominal"}
    return base(title, rows, judge_lines(rows, x, y, color), height=180)


def _judge_change_rules(
    rows: Sequence[Row], x: Spec, flag: str, what: str, color: str, dash: Sequence[int] = ()
) -> list[Spec]:
    """A rule per (judge, bucket) flagged in the rows, its tooltip naming the judge; no layer
    when nothing changed."""
    flagged = [r for r in rows if r.get(flag)]
    if not flagged:
        return []
    rule = _change_rule([r["bucket"] for r in flagged], what, color, dash)
    rule["encoding"]["x"] = x
    rule["data"]["values"] = [
        {"bucket": r["bucket"], "judge": r["judge"], "what": f"{r['judge']}: {what}"}
        for r in flagged
    ]
    return [rule]


def bar_chart(
    title: str,
    rows: Sequence[Row],
    category: str,
    value: str,
    refs: Sequence[tuple[float, str, str]] = (),
    label: str | None = None,
) -> Spec | None:
    """One bar per category, its `label` field written beside it. The axis reaches past every
    reference line, so that bars of zero (no failed call at all) are read against the line
    rather than as an empty plot."""
    shown = [r for r in rows if r.get(value) is not None]
    if not shown:
        return None
    x: Spec = {"field": value, "type": "quantitative", "title": value.replace("_", " ")}
    most = max([r[value] for r in shown] + [ref * 1.5 for ref, _, _ in refs])
    if most > 0:
        x["scale"] = {"domainMax": most}
    y: Spec = {"field": category, "type": "nominal", "title": None}
    fields = [(category, "nominal"), (value, "quantitative")]
    tips = tooltip(shown, fields + ([(label, "nominal")] if label else []))
    bar: Spec = {
        "mark": "bar",
        "params": [HOVER],
        "encoding": {
            "y": y,
            "x": x,
            "tooltip": tips,
            "opacity": {"condition": {"param": "hover", "value": 1}, "value": 0.8},
        },
    }
    layers = [bar, *_rules(refs, "x")]
    if label is not None:
        text: Spec = {
            "mark": {"type": "text", "align": "left", "dx": 4},
            "encoding": {"y": y, "x": x, "text": {"field": label}},
        }
        layers.append(text)
    return base(title, shown, layers, height=max(40, 28 * len(shown)))


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
            "tooltip": tooltip(
                shown,
                [
                    ("source", "nominal"),
                    ("mean_confidence", "quantitative"),
                    ("accuracy", "quantitative"),
                    ("n", "quantitative"),
                ],
            ),
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


# Cells a spreadsheet would read as a formula (OWASP's list: = + - @, tab and carriage return).
# OWASP's list, and the full-width forms some spreadsheets read alike; checked after leading
# spaces, which a spreadsheet skips.
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\uff1d", "\uff0b", "\uff0d", "\uff20")


def csv_cell(value: Any) -> str:
    """One CSV field (RFC 4180). Text is always quoted, and text a spreadsheet would run as a
    formula gets a leading `'`; numbers and booleans are written as JSON writes them, unquoted;
    a missing value is an empty field; lists and objects are their JSON text, quoted."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value) if math.isfinite(value) else ""
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    if text.startswith(FORMULA_STARTS) or text.lstrip(" ").startswith(FORMULA_STARTS):
        text = "'" + text
    return '"' + text.replace('"', '""') + '"'


def csv_columns(rows: Sequence[Row]) -> list[str]:
    """Every field of the rows, in the order they first appear."""
    return list(dict.fromkeys(key for row in rows for key in row))


def to_csv(rows: Sequence[Row]) -> str:
    """A chart's data rows as CSV: a header row, then a line per row, CRLF line ends (RFC 4180).
    No rows, no columns: an empty document."""
    columns = csv_columns(rows)
    if not columns:
        return ""
    lines = [",".join(csv_cell(c) for c in columns)]
    lines += [",".join(csv_cell(row.get(c)) for c in columns) for row in rows]
    return "\r\n".join(lines) + "\r\n"


def spec_rows(spec: Spec | None) -> list[Row]:
    """The chart's own data rows (reference lines and change markers are drawn from the rows or
    constants, not data of their own)."""
    if spec is None:
        return []
    return list(spec.get("data", {}).get("values", []))


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
