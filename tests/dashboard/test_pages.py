"""Dashboard pages in process: auth (cookie or header), filters as links, chart JSON, empty data."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.dashboard.charts import SvgRenderer
from tests.conftest import make_key
from tests.dashboard.seed import seed
from tests.reports.builders import StoredData
from tests.winrates.builders import seeded as winrates_seeded

PAGES = (
    "/dashboard",
    "/dashboard/judge?judge=judge-a",
    "/dashboard/reviewers",
    "/dashboard/position-score",
    "/dashboard/leaderboard",
)
# (images, insufficient-data messages) per page on the seeded data
SEEDED_CHARTS = {
    "/dashboard": 7,
    "/dashboard/judge?judge=judge-a": 4,
    "/dashboard/reviewers": 1,
    "/dashboard/position-score": 2,
    "/dashboard/leaderboard": 2,
}


def figures(page: str) -> tuple[int, int]:
    """Charts drawn and charts replaced by an insufficient-data message."""
    return page.count('<img src="data:image/svg+xml;base64,'), page.count('class="insufficient"')


def cell(page: str, judge: str, field: str) -> str:
    """The text of one overview table cell."""
    row = re.search(rf'<tr data-judge="{judge}">(.*?)</tr>', page, re.S)
    assert row is not None, judge
    found = re.search(rf'data-field="{field}">(.*?)</td>', row.group(1), re.S)
    assert found is not None, field
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


@pytest.fixture
async def app_on(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with auth on."""
    client: httpx2.AsyncClient = await live_factory(settings_factory())
    return client


@pytest.fixture
async def app_off(
    settings_factory: Callable[..., Settings], live_factory: Callable[..., Any]
) -> httpx2.AsyncClient:
    """The app with auth off."""
    client: httpx2.AsyncClient = await live_factory(settings_factory(auth="off"))
    return client


async def test_pages_redirect_to_login_and_the_login_sets_an_http_only_cookie(
    app_on: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    away = await app_on.get("/dashboard/reviewers?window=7d")
    assert away.status_code == 303
    assert away.headers["location"] == (
        "/dashboard/login?next=%2Fdashboard%2Freviewers%3Fwindow%3D7d"
    )
    form = await app_on.get("/dashboard/login")
    assert form.status_code == 200
    assert 'name="key"' in form.text
    bad = await app_on.post("/dashboard/login", data={"key": "fp_nope_nope", "next": "/dashboard"})
    assert bad.status_code == 401
    assert "not valid" in bad.text
    token = reader["Authorization"].removeprefix("Bearer ")
    login = await app_on.post(
        "/dashboard/login", data={"key": token, "next": "/dashboard/reviewers?window=7d"}
    )
    assert login.status_code == 303
    assert login.headers["location"] == "/dashboard/reviewers?window=7d"
    cookie = login.headers["set-cookie"].lower()
    assert "httponly" in cookie
    assert "samesite=strict" in cookie
    assert "path=/dashboard" in cookie
    page = await app_on.get("/dashboard/reviewers?window=7d")
    assert page.status_code == 200
    assert "Reviewer calibration" in page.text
    assert "script-src" not in page.headers["content-security-policy"]
    assert "default-src 'none'" in page.headers["content-security-policy"]
    out = await app_on.post("/dashboard/logout")
    assert out.status_code == 303
    app_on.cookies.clear()
    assert (await app_on.get("/dashboard")).status_code == 303


async def test_the_header_works_too_and_a_key_without_read_is_forbidden(
    app_on: httpx2.AsyncClient, clean_pg: str, reader: dict[str, str]
) -> None:
    assert (await app_on.get("/dashboard", headers=reader)).status_code == 200
    scorer = await make_key(clean_pg, "scorer", ["score"])
    assert (await app_on.get("/dashboard", headers=scorer)).status_code == 403
    token = scorer["Authorization"].removeprefix("Bearer ")
    refused = await app_on.post("/dashboard/login", data={"key": token})
    assert refused.status_code == 401
    spec = await app_on.get("/dashboard/charts/overview/first_pick.json")
    assert spec.status_code == 401
    assert spec.headers["content-type"].startswith("application/problem+json")


async def test_login_never_redirects_off_the_dashboard(
    app_on: httpx2.AsyncClient, reader: dict[str, str]
) -> None:
    token = reader["Authorization"].removeprefix("Bearer ")
    for target in ("https://evil.example/", "//evil.example/dashboard", "/v1/judges"):
        login = await app_on.post("/dashboard/login", data={"key": token, "next": target})
        assert login.headers["location"] == "/dashboard"


async def test_with_auth_off_pages_are_open_and_empty_data_says_so(
    app_off: httpx2.AsyncClient,
) -> None:
    # sim-a is configured and has no calls yet (judge-a, of the seeded data, is unknown here: 422).
    for path in (p.replace("judge-a", "sim-a") for p in PAGES):
        page = await app_off.get(path)
        assert page.status_code == 200, path
        drawn, messages = figures(page.text)
        assert drawn == 0, path
        assert messages >= 1, path
    assert (
        "No calls of sim-a in this window."
        in (await app_off.get("/dashboard/judge?judge=sim-a")).text
    )


async def test_seeded_pages_show_their_charts_and_the_json_reports_figures(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await seed(clean_pg)
    for path, count in SEEDED_CHARTS.items():
        page = await app_off.get(path)
        assert page.status_code == 200, path
        assert figures(page.text) == (count, 0), path
    report = (await app_off.get("/v1/bias-report")).json()
    overview = (await app_off.get("/dashboard")).text
    for judge in report["judges"]:
        name, position = judge["judge"], judge["position"]
        assert cell(overview, name, "n") == str(position["n"])
        for field, value in (
            ("first_pick_rate", position["first_pick_rate"]),
            ("position_consistency", judge["consistency"]["position_consistency"]),
        ):
            assert cell(overview, name, field) == ("—" if value is None else f"{value:.3f}")
    assert cell(overview, "judge-c", "first_pick_rate") == "—"


async def test_each_chart_downloads_as_its_spec_with_the_data(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await seed(clean_pg)
    report = (await app_off.get("/v1/bias-report")).json()
    spec = await app_off.get("/dashboard/charts/overview/first_pick.json?window=7d")
    assert spec.status_code == 200
    assert "attachment" in spec.headers["content-disposition"]
    body = spec.json()
    assert body["$schema"].endswith("vega-lite/v6.json")
    rates = {row["judge"]: row["first_pick_rate"] for row in body["data"]["values"]}
    assert rates == {
        j["judge"]: j["position"]["first_pick_rate"]
        for j in report["judges"]
        if j["position"]["first_pick_rate"] is not None
    }
    judge_spec = await app_off.get("/dashboard/charts/judge/series_first_pick.json?judge=judge-a")
    changes = [
        value
        for layer in judge_spec.json()["layer"]
        for value in layer.get("data", {}).get("values", [])
        if "what" in value and "bucket" in value
    ]
    assert [c["what"] for c in changes] == ["judge-a: version change"]
    missing = await app_off.get("/dashboard/charts/overview/nope.json")
    assert missing.status_code == 404


async def test_filters_are_query_parameters_and_bad_ones_are_problems(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    await seed(clean_pg)
    narrowed = (await app_off.get("/dashboard?judge=judge-b&window=30d&tag=")).text
    assert 'data-judge="judge-b"' in narrowed
    assert 'data-judge="judge-a"' not in narrowed
    assert "/dashboard/judge?judge=judge-b&amp;window=30d" in narrowed
    none_tagged = (await app_off.get("/dashboard?tag=team:none")).text
    assert "No judge calls in this window." in none_tagged
    for bad in ("/dashboard?window=forever", "/dashboard?window=0d", "/dashboard/judge"):
        answer = await app_off.get(bad)
        assert answer.status_code == 422, bad


async def test_svgs_are_cached_by_spec_and_drawn_once() -> None:
    renderer = SvgRenderer(capacity=2)
    spec = {
        "mark": "point",
        "data": {"values": [{"x": 1}]},
        "encoding": {"x": {"field": "x", "type": "quantitative"}},
    }
    first = await renderer.svg(spec)
    assert first.startswith("<svg")
    assert await renderer.svg(dict(spec)) is first
    other = {**spec, "data": {"values": [{"x": 2}]}}
    assert await renderer.svg(other) is not first


async def test_a_cached_page_is_rebuilt_once_new_calls_are_stored(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    assert "No judge calls in this window." in (await app_off.get("/dashboard")).text
    await seed(clean_pg)
    fresh = (await app_off.get("/dashboard")).text
    assert 'data-judge="judge-a"' in fresh
    assert figures(fresh) == (SEEDED_CHARTS["/dashboard"], 0)


async def test_the_leaderboard_charts_judge_only_and_anchored_win_rates_side_by_side(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    data = winrates_seeded()  # m-new against m-base, 80 of them labelled from the queue
    await data.rows.insert(clean_pg)
    page = (await app_off.get("/dashboard/leaderboard")).text
    assert figures(page) == (2, 0)
    assert "Win rates against m-base" in page
    spec = (await app_off.get("/dashboard/charts/leaderboard/win_rates.json")).json()
    rows = {row["row"]: row for row in spec["data"]["values"]}
    assert set(rows) == {"m-new · judge", "m-new · anchored"}
    board = (await app_off.get("/v1/leaderboard", params={"baseline": "m-base"})).json()
    standing = next(m for m in board["models"] if m["model"] == "m-new")
    anchored = rows["m-new · anchored"]
    assert anchored["win_rate"] == standing["anchored_win_rate"]["win_rate"]
    assert [anchored["ci_low"], anchored["ci_high"]] == standing["anchored_win_rate"]["ci95"]
    assert rows["m-new · judge"]["win_rate"] == standing["vs_baseline"]["win_rate"]
    assert {row["estimate"] for row in rows.values()} == {"judge only", "anchored (PPI++)"}


async def test_the_scoring_pages_say_what_fills_them_when_only_comparisons_are_stored(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    data = StoredData()  # pairwise traffic only, as after `fairpair demo`
    for _ in range(30):
        data.swap("first", "second", judge="judge-a")
    await data.insert(clean_pg)
    for path in ("/dashboard/reviewers", "/dashboard/position-score"):
        page = (await app_off.get(path)).text
        assert 'id="no-scores"' in page, path
        assert "POST /v1/score" in page, path
        assert figures(page) == (0, 1), path  # the one explanation, no empty chart frames
    await seed(clean_pg)  # scored sessions too: the pages chart them
    for path in ("/dashboard/reviewers", "/dashboard/position-score"):
        page = (await app_off.get(path)).text
        assert 'id="no-scores"' not in page, path
        assert figures(page) == (SEEDED_CHARTS[path], 0), path


async def test_a_hostile_judge_name_cannot_leave_a_charts_spec_block(
    app_off: httpx2.AsyncClient, clean_pg: str
) -> None:
    hostile = "</script><script>alert(1)</script><!--"
    data = StoredData()
    for _ in range(30):
        data.swap("first", "second", judge=hostile)
    await data.insert(clean_pg)
    page = (await app_off.get("/dashboard")).text
    assert 'class="spec"' in page  # the charts' specs are on the page
    assert hostile not in page  # escaped everywhere: in the table, the SVG and the JSON blocks
    assert page.count("<script") == page.count("</script>")
    assert "<script>alert" not in page
