"""Issue 37, one filter grammar: every list, report and page that filters by judge, version,
rubric or time reads them alike.

An unknown judge, version or rubric is a 422 pointing at the parameter on every endpoint that
takes it (before, the comparison list, the labelling queue and the dashboard answered 200 with
nothing, which reads like a judge without calls); `since`/`until` take the same moments
everywhere (ISO 8601, an age like `7d`, Unix seconds); every 422 carries `errors[]`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2
import pytest

from app.config import Settings
from app.problems import pointed_error
from tests.security.test_filter_ranges import assert_problem_points_at

# Every endpoint that filters by judge, with any other parameter it needs.
JUDGE_FILTERED = (
    "/v1/bias-report?",
    "/v1/comparisons?",
    "/v1/labeling-queue?",
    "/dashboard?",
    "/dashboard/judge?",
    "/dashboard/leaderboard?",
    "/dashboard/comparisons?",
    "/dashboard/charts/overview/first_pick.json?",
    "/dashboard/charts/overview/first_pick.csv?",
)
RUBRIC_FILTERED = ("/v1/bias-report?", "/dashboard/reviewers?", "/dashboard/position-score?")
TIME_FILTERED = (
    "/v1/bias-report?",
    "/v1/comparisons?",
    "/v1/leaderboard?",
    "/dashboard?",
    "/dashboard/leaderboard?",
    "/dashboard/comparisons?",
    "/dashboard/charts/overview/first_pick.csv?",
)


async def get(client: httpx2.AsyncClient, url: str, headers: dict[str, str]) -> httpx2.Response:
    return await client.get(url, headers=headers)


async def test_an_unknown_judge_is_422_on_every_endpoint_that_filters_by_judge(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    for url in JUDGE_FILTERED:
        unknown = await get(client, url + "judge=sim-typo", admin)
        assert_problem_points_at(unknown, "judge", "no judge named 'sim-typo'")
        known = await get(client, url + "judge=sim-a", admin)  # configured, no calls yet
        assert known.status_code == 200, (url, known.text[:300])


async def test_a_version_is_known_only_for_its_judge(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    served = await get(client, "/v1/bias-report?judge=sim-a&judge_version=1", admin)
    assert served.status_code == 200, served.text
    unknown = await get(client, "/v1/bias-report?judge=sim-a&judge_version=2", admin)
    assert_problem_points_at(unknown, "judge_version", "judge 'sim-a' has no version 2")
    alone = await get(client, "/v1/bias-report?judge_version=1", admin)
    assert_problem_points_at(alone, "judge_version", "a version belongs to one judge")


async def test_an_unknown_rubric_is_422(client: httpx2.AsyncClient, admin: dict[str, str]) -> None:
    for url in RUBRIC_FILTERED:
        response = await get(client, url + "rubric=0123456789abcdef", admin)
        assert_problem_points_at(response, "rubric", "no score request used rubric")


async def test_every_time_filter_takes_ages_and_refuses_what_is_not_a_moment(
    client: httpx2.AsyncClient, admin: dict[str, str]
) -> None:
    for url in TIME_FILTERED:
        for moment in ("7d", "24h", "2026-01-31T00:00:00Z", "1767225600"):
            served = await get(client, f"{url}since={moment}", admin)
            assert served.status_code == 200, (url, moment, served.text[:300])
        refused = await get(client, f"{url}since=last-tuesday", admin)
        assert_problem_points_at(refused, "since", "expected an ISO 8601 time")
        backwards = await get(client, f"{url}since=1d&until=2d", admin)
        assert_problem_points_at(backwards, "until", "must be after since")


async def test_a_422_without_a_field_carries_errors_with_the_whole_request_as_pointer(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
) -> None:
    client = await live_factory(settings_factory(auth="off", max_panel=1))
    response = await client.post(
        "/v1/compare",
        json={"prompt": "p", "response_a": "a", "response_b": "b", "judges": ["sim-a", "sim-b"]},
    )
    assert response.status_code == 422, response.text
    problem = response.json()
    assert problem["type"] == "too-many-calls"
    assert problem["errors"] == [{"pointer": "", "message": problem["detail"]}]


@pytest.mark.parametrize(
    ("detail", "error"),
    [
        ("/judge: unknown", {"pointer": "/judge", "message": "unknown"}),
        ("/tag/0: expected key:value", {"pointer": "/tag/0", "message": "expected key:value"}),
        (
            "at most 8 judges: use batches",
            {"pointer": "", "message": "at most 8 judges: use batches"},
        ),
        ("/ not a pointer: x", {"pointer": "", "message": "/ not a pointer: x"}),
    ],
)
def test_a_detail_gives_its_pointer(detail: str, error: dict[str, str]) -> None:
    assert pointed_error(detail) == error
