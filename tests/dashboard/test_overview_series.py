"""Change over time on the overview (issue 23): each judge's first-pick rate and position
consistency per day with Wilson CIs, version and provider-model markers, and every chart's data
downloadable as CSV (equal to the JSON's rows, formula-injection safe) and JSON."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from statsmodels.stats.proportion import proportion_confint

from app.config import Settings
from tests.dashboard.seed import seed
from tests.dashboard.test_judge_page import self_preferring_traffic
from tests.reports.builders import BASE_TIME, StoredData

# chart: (measure, the count it rests on, its tier in a series point)
SERIES_CHARTS = {
    "series_first_pick": ("first_pick_rate", "n", "tier"),
    "series_consistency": ("position_consistency", "pairs", "consistency_tier"),
}
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
async def app_off(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with auth off."""
    client: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    return client


async def chart_json(client: httpx2.AsyncClient, page: str, name: str, query: str = "") -> Any:
    """A chart's downloaded spec."""
    answer = await client.get(f"/dashboard/charts/{page}/{name}.json?{query}")
    assert answer.status_code == 200, (page, name)
    return answer.json()


async def chart_csv(client: httpx2.AsyncClient, page: str, name: str, query: str = "") -> str:
    """A chart's downloaded CSV document."""
    answer = await client.get(f"/dashboard/charts/{page}/{name}.csv?{query}")
    assert answer.status_code == 200, (page, name)
    assert answer.headers["content-type"].startswith("text/csv")
    assert answer.headers["content-disposition"] == f'attachment; filename="{page}-{name}.csv"'
    return answer.text


def wanted_rows(series: list[dict[str, Any]], measure: str, count: str, tier: str) -> list[Any]:
    """What a per-day chart must hold, read straight off the report's series."""
    return [
        (
            p["bucket"],
            p["judge"],
            p[measure],
            p[count],
            p[tier],
            p[f"{measure}_ci95"],
            p["version_changed"],
            p["provider_model_changed"],
        )
        for p in series
    ]


def drawn_rows(spec: dict[str, Any], measure: str, count: str) -> list[Any]:
    """The same fields from the chart's data rows."""
    return [
        (
            r["bucket"],
            r["judge"],
            r[measure],
            r[count],
            r["tier"],
            None if r["ci_low"] is None else [r["ci_low"], r["ci_high"]],
            r["version_changed"],
            r["provider_model_changed"],
        )
        for r in spec["data"]["values"]
    ]


def markers(spec: dict[str, Any], what: str) -> set[tuple[str, str]]:
    """(bucket, judge) of the change rules of one kind drawn on a chart."""
    return {
        (v["bucket"], v["judge"])
        for layer in spec["layer"]
        for v in layer.get("data", {}).get("values", [])
        if v.get("what", "").endswith(": " + what)
    }


def decoded(cell: str, value: Any) -> Any:
    """A CSV cell read back as the JSON value it stands for (the JSON value tells the type)."""
    if value is None:
        assert cell == ""
        return None
    if isinstance(value, bool):
        return {"true": True, "false": False}[cell]
    if isinstance(value, int | float):
        return type(value)(cell)
    if isinstance(value, str):
        return cell[1:] if value.startswith(FORMULA_STARTS) else cell
    return json.loads(cell)


def assert_csv_equals_json(document: str, rows: list[dict[str, Any]]) -> None:
    """The CSV holds exactly the JSON's rows: one header, the same columns, equal values."""
    if not rows:
        assert document == ""
        return
    assert document.endswith("\r\n")
    header, *lines = list(csv.reader(io.StringIO(document, newline="")))
    assert header == list(dict.fromkeys(k for r in rows for k in r))
    assert len(lines) == len(rows)
    for line, row in zip(lines, rows, strict=True):
        assert {k: decoded(c, row.get(k)) for k, c in zip(header, line, strict=True)} == {
            k: row.get(k) for k in header
        }


def figure_names(page: str) -> list[str]:
    """The charts a page shows, in order."""
    return re.findall(r'<figure class="chart" data-chart="([^"]+)">', page)


async def test_the_overview_charts_each_judges_day_with_its_ci_and_the_version_changes(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await seed(clean_pg)
    report = (await app_off.get("/v1/bias-report")).json()
    series = report["series"]
    assert {p["judge"] for p in series} == {"judge-a", "judge-b", "judge-c"}
    version_days = {(p["bucket"], p["judge"]) for p in series if p["version_changed"]}
    second_day = BASE_TIME.date().isoformat() + "T00:00:00Z"
    assert version_days == {(second_day, "judge-a")}  # judge-a's version 2 on the second day

    for name, (measure, count, tier) in SERIES_CHARTS.items():
        spec = await chart_json(app_off, "overview", name)
        assert drawn_rows(spec, measure, count) == wanted_rows(series, measure, count, tier)
        assert markers(spec, "version change") == version_days
        assert markers(spec, "provider model change") == set()
        for row in spec["data"]["values"]:
            if row[measure] is None:
                continue
            # Wilson, as statsmodels computes it, from the count the rate rests on.
            successes = round(row[measure] * row[count])
            low, high = proportion_confint(successes, row[count], alpha=0.05, method="wilson")
            assert row["ci_low"] == pytest.approx(low, abs=1e-9)
            assert row["ci_high"] == pytest.approx(high, abs=1e-9)
    thin = [p for p in series if p["judge"] == "judge-c"]
    assert thin  # judge-c's thin days stay rows, their rates withheld
    assert all(p["first_pick_rate"] is None for p in thin)

    page = (await app_off.get("/dashboard")).text
    names = figure_names(page)
    assert names == [
        "first_pick",
        "consistency",
        "failures",
        *SERIES_CHARTS,
        "cost_by_day",
        "latency_by_day",
    ]
    assert page.count('<img src="data:image/svg+xml;base64,') == len(names)
    for name in names:
        assert f'href="/dashboard/charts/overview/{name}.csv?"' in page
        assert f'href="/dashboard/charts/overview/{name}.json?"' in page
    changes = re.search(r'<ul id="changes">(.*?)</ul>', page, re.S)
    assert changes is not None
    text = " ".join(re.sub(r"<[^>]+>", " ", changes.group(1)).split())
    assert text == f"judge-a : version changed on {second_day[:10]}"


async def test_the_overview_marks_the_day_a_provider_model_changed(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await self_preferring_traffic().insert(clean_pg)
    series = (await app_off.get("/v1/bias-report")).json()["series"]
    model_days = {(p["bucket"], p["judge"]) for p in series if p["provider_model_changed"]}
    second_day = (BASE_TIME.replace(hour=0) + timedelta(days=1)).isoformat()[:10]
    assert model_days == {(second_day + "T00:00:00Z", "gpt-judge")}
    for name, (measure, count, tier) in SERIES_CHARTS.items():
        spec = await chart_json(app_off, "overview", name)
        assert drawn_rows(spec, measure, count) == wanted_rows(series, measure, count, tier)
        assert markers(spec, "provider model change") == model_days
        gpt = [r for r in spec["data"]["values"] if r["judge"] == "gpt-judge"]
        assert [r["provider_models"] for r in gpt] == ["gpt-4o-2024-05-13", "gpt-4o-2024-08-06"]
    page = (await app_off.get("/dashboard")).text
    assert f'provider model changed on <span data-field="provider_model_changed">{second_day}' in (
        page
    )


async def test_every_charts_csv_holds_the_rows_of_its_json(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await seed(clean_pg)
    for page, query in (("overview", "window=30d"), ("judge", "judge=judge-a")):
        path = "/dashboard" if page == "overview" else "/dashboard/judge"
        html = (await app_off.get(f"{path}?{query}")).text
        names = figure_names(html)
        assert len(names) >= 4, page
        for name in names:
            assert f'href="/dashboard/charts/{page}/{name}.csv?{query}"' in html
            spec = await chart_json(app_off, page, name, query)
            if "empty" in spec:  # nothing drawn (the seed stores no costs): an empty CSV
                assert await chart_csv(app_off, page, name, query) == ""
                continue
            rows = spec["data"]["values"]
            assert rows, (page, name)
            assert_csv_equals_json(await chart_csv(app_off, page, name, query), rows)


def hostile_judges() -> StoredData:
    """Judges whose names a spreadsheet would run as formulas, or that need CSV quoting."""
    data = StoredData()
    for judge in ("=cmd|' /C calc'!A0", "+1", "-2", "@SUM(A1)", 'quote " and, comma'):
        for _ in range(30):
            data.swap("first", "second", judge=judge)
    return data


async def test_csv_cells_cannot_run_as_formulas(app_off: httpx2.AsyncClient, clean_pg: str) -> None:
    await hostile_judges().insert(clean_pg)
    for name in ("failures", "series_first_pick", "series_consistency"):
        spec = await chart_json(app_off, "overview", name)
        document = await chart_csv(app_off, "overview", name)
        assert_csv_equals_json(document, spec["data"]["values"])
        judges = [
            line[1 if name.startswith("series") else 0]
            for line in csv.reader(io.StringIO(document, newline=""))
        ][1:]
        assert sorted(judges) == sorted(
            ["'=cmd|' /C calc'!A0", "'+1", "'-2", "'@SUM(A1)", 'quote " and, comma']
        )
        # Text is always a quoted field, a formula start behind a leading '.
        assert "\"'=cmd|' /C calc'!A0\"" in document
        for formula in ("+1", "-2", "@SUM(A1)"):
            assert f'"\'{formula}"' in document
        assert '"quote "" and, comma"' in document
        for line in csv.reader(io.StringIO(document, newline="")):
            for cell in line:
                if cell.startswith(FORMULA_STARTS):
                    float(cell)  # only numbers (a negative one) may start so


async def test_the_csv_route_answers_bad_requests_with_problems(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
    reader: dict[str, str],
) -> None:
    await seed(clean_pg)
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    anonymous = await client.get("/dashboard/charts/overview/failures.csv")
    assert anonymous.status_code == 401
    assert anonymous.headers["content-type"].startswith("application/problem+json")
    for bad, status in (
        ("/dashboard/charts/overview/nope.csv", 404),
        ("/dashboard/charts/nope/failures.csv", 404),
        ("/dashboard/charts/judge/series_first_pick.csv", 404),  # the judge page needs ?judge=
        ("/dashboard/charts/overview/failures.csv?window=%00", 422),
        ("/dashboard/charts/overview/failures.csv?window=forever", 422),
        ("/dashboard/charts/overview/failures.csv?since=%00", 422),
        ("/dashboard/charts/overview/" + "x" * 65 + ".csv", 422),
    ):
        answer = await client.get(bad, headers=reader)
        assert answer.status_code == status, bad
        assert answer.headers["content-type"].startswith("application/problem+json"), bad
    empty = await client.get(
        "/dashboard/charts/overview/failures.csv?tag=team:none", headers=reader
    )
    assert empty.status_code == 200
    assert empty.text == ""
