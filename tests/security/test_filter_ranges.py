"""A read key's time and version filters at the edges of what Python and PostgreSQL hold.

A year-1 or year-9999 `since`/`until` used to overflow the report's window arithmetic (an edge
less two hours, the hour after the last bucket) and a judge version past a PostgreSQL `integer`
was refused by the driver: 500s from the bias report, the dashboard pages and the chart
downloads. Every time filter is read by `app.params.as_utc` and the version by
`app.params.check_version`: each endpoint answers 422 problem+json with a pointer.
"""

from __future__ import annotations

import html

import httpx2
import pytest

from app.params import EARLIEST, LATEST, as_utc, check_version

YEAR_ONE = "0001-01-01T00:00:00"
YEAR_9999 = "9999-12-31T23:59:59"
# Each URL with the query parameter the 422 must point at.
TIMES = (
    (f"/v1/bias-report?since={YEAR_ONE}", "since"),
    (f"/v1/bias-report?since={YEAR_ONE}&until=0001-01-02T00:00:00", "until"),
    (f"/v1/bias-report?until={YEAR_ONE}", "until"),
    (f"/v1/bias-report?since={YEAR_9999}", "since"),
    ("/v1/bias-report?since=999999d", "since"),
    ("/v1/bias-report?since=-3000000000", "since"),  # Unix seconds: 1874
    (f"/dashboard?since={YEAR_ONE}", "since"),
    (f"/dashboard?until={YEAR_ONE}&window=7d", "until"),
    (f"/dashboard?since={YEAR_9999}", "since"),
    (f"/dashboard/judge?judge=sim-a&since={YEAR_ONE}", "since"),
    (f"/dashboard/leaderboard?since={YEAR_ONE}", "since"),
    (f"/dashboard/comparisons?since={YEAR_ONE}", "since"),
    (f"/dashboard/charts/overview/position.json?since={YEAR_ONE}", "since"),
    (f"/dashboard/charts/overview/position.csv?since={YEAR_ONE}", "since"),
    (f"/dashboard/charts/overview/position.json?since={YEAR_9999}", "since"),
    (f"/v1/comparisons?since={YEAR_ONE}", "since"),
    (f"/v1/comparisons?until={YEAR_9999}", "until"),
    (f"/v1/leaderboard?since={YEAR_ONE}", "since"),
    ("/v1/leaderboard?until=9999-12-31T23:59:59-05:00", "until"),
)
VERSIONS = (
    "/v1/bias-report?judge_version=" + "9" * 50,
    "/v1/bias-report?judge_version=2147483648",
)


def assert_points_at(response: httpx2.Response, name: str) -> None:
    """A 422 validation-error problem whose pointer names the query parameter, out of range."""
    assert_problem_points_at(response, name, "out of range")


def assert_problem_points_at(response: httpx2.Response, name: str, says: str) -> None:
    """A 422 validation-error problem whose pointer names the query parameter and whose message
    says `says` (the explorer page shows its filters' problem on the page itself)."""
    where = (str(response.request.url), response.text[:300])
    assert response.status_code == 422, where
    if response.headers["content-type"].startswith("text/html"):
        assert f"/{name}: " in html.unescape(response.text), where
        assert says in html.unescape(response.text), where
        return
    assert response.headers["content-type"] == "application/problem+json", where
    problem = response.json()
    assert problem["type"] == "validation-error", where
    assert problem["detail"].startswith(f"/{name}:"), problem
    assert [e["pointer"] for e in problem["errors"]] == [f"/{name}"], problem
    assert says in problem["errors"][0]["message"], problem


async def test_times_past_what_the_report_can_add_to_are_422_everywhere(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    for url, name in TIMES:
        assert_points_at(await client.get(url, headers=admin), name)


async def test_a_judge_version_past_a_database_integer_is_422(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    for url in VERSIONS:
        assert_points_at(await client.get(url, headers=admin), "judge_version")
    # In range, but no judge has it: refused as unknown, no longer as out of range.
    largest = await client.get(
        "/v1/bias-report?judge=sim-a&judge_version=2147483647", headers=admin
    )
    assert_problem_points_at(largest, "judge_version", "has no version 2147483647")


async def test_the_range_ends_are_served(client: httpx2.AsyncClient, admin: dict[str, str]) -> None:
    first, last = EARLIEST.isoformat(), (LATEST.replace(year=LATEST.year - 1)).isoformat()
    for url in (
        f"/v1/bias-report?since={first}&bucket=hour",
        f"/v1/bias-report?since={first}&until={last}",
        f"/dashboard?since={first}",
        f"/v1/leaderboard?since={first}&until={last}",
    ):
        response = await client.get(url.replace("+", "%2B"), headers=admin)
        assert response.status_code == 200, (url, response.text[:300])


def test_as_utc_and_check_version_refuse_the_edges() -> None:
    assert as_utc(EARLIEST) == EARLIEST
    for outside in (EARLIEST.replace(year=1899), LATEST):
        with pytest.raises(Exception, match="out of range"):
            as_utc(outside, "until")
    for version in (0, -1, 2**31):
        with pytest.raises(Exception, match="judge_version"):
            check_version(version)
