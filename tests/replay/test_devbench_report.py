"""Issue 5: after the DevBench replay, `GET /v1/bias-report` reproduces Judging the Judges.

The study's logs publish each judge's share of consistent answers (tests/data/replay/README.md).
Three judges had every verdict parsed; for them the log figure is the pair-level position
consistency of STATISTICS.md, and the report must give it to the four decimals published. gemini-pro
(2 unparsed verdicts) and claude-3-haiku (3) differ: the logs count per parsed answer and call an
answer consistent when its partner agrees *or could not be parsed*, while a swap pair needs both
calls parsed. From the raw data, with k consistent pairs among n fully parsed ones and u lone
answers:

| judge | logs (2k + u) / (2n + u) | pair level k / n (the report) |
|---|---|---|
| gemini-pro | (1464 + 2) / 2238 = 0.6550 | 732 / 1118 = 0.6547 |
| claude-3-haiku-20240307 | (506 + 3) / 2237 = 0.2275 | 253 / 1117 = 0.2265 |
"""

from __future__ import annotations

from typing import Any

import pytest
from statsmodels.stats.proportion import proportion_confint

from tests.replay.replay import SwapPair, consistency, load_verdicts, swap_pairs
from tests.replay.serving import ServedBench

pytestmark = pytest.mark.slow

PUBLISHED = {  # "consistent" in the study's logs, as tests/data/replay/README.md gives it
    "gpt-4-0613": 0.8277,
    "gpt-3.5-turbo-1106": 0.7634,
    "gpt-3.5-turbo-0125": 0.7580,
    "gemini-pro": 0.6550,
    "claude-3-haiku-20240307": 0.2275,
}
FULLY_PARSED = ["gpt-4-0613", "gpt-3.5-turbo-1106", "gpt-3.5-turbo-0125"]
WITH_UNPARSED = ["gemini-pro", "claude-3-haiku-20240307"]
# Verdicts as picks by slot (A: first, B: second, C: tie) of the AB and the BA call.
PRIMACY = {("A", "A"), ("A", "C"), ("C", "A")}
RECENCY = {("B", "B"), ("B", "C"), ("C", "B")}
# PC floors (STATISTICS.md): red_flag below 0.80, coin_toss below 0.70, when the whole CI is below.
FLOOR_FLAGS = {
    "gpt-4-0613": set(),  # 0.8277, CI [0.804, 0.849]
    "gpt-3.5-turbo-1106": {"red_flag"},  # 0.7634, CI [0.738, 0.787]
    "gpt-3.5-turbo-0125": {"red_flag"},  # 0.7580, CI [0.732, 0.782]
    "gemini-pro": {"red_flag", "coin_toss"},  # 0.6547, CI [0.626, 0.682]
    "claude-3-haiku-20240307": {"red_flag", "coin_toss"},  # 0.2265, CI [0.203, 0.252]
}


def recorded_pairs(judge: str) -> list[SwapPair]:
    """The judge's recorded swap pairs against the human answer."""
    return swap_pairs(load_verdicts("DevBench", judge), "human")


@pytest.fixture(scope="module")
async def report(devbench: ServedBench) -> dict[str, dict[str, Any]]:
    """The bias report's judge sections over the served replay (default window: 30 days)."""
    response = await devbench.app.client.get("/v1/bias-report", headers=devbench.app.headers)
    assert response.status_code == 200, response.text
    return {section["judge"]: section for section in response.json()["judges"]}


@pytest.mark.parametrize("judge", FULLY_PARSED)
def test_report_reproduces_the_published_consistency(
    report: dict[str, dict[str, Any]], judge: str
) -> None:
    expected = consistency(recorded_pairs(judge))
    assert (expected.pairs, expected.lone_answers) == (1120, 0)
    assert round(expected.pair_level, 4) == PUBLISHED[judge]
    section = report[judge]["consistency"]
    assert section["pairs"] == 1120
    assert section["position_consistency"] == pytest.approx(expected.pair_level, abs=1e-12)
    assert round(section["position_consistency"], 4) == PUBLISHED[judge]


@pytest.mark.parametrize("judge", WITH_UNPARSED)
def test_unparsed_verdicts_explain_the_gap_to_the_logged_figure(
    report: dict[str, dict[str, Any]], judge: str
) -> None:
    expected = consistency(recorded_pairs(judge))
    assert expected.lone_answers > 0
    assert round(expected.as_logged, 4) == PUBLISHED[judge]
    assert round(expected.pair_level, 4) != PUBLISHED[judge]
    section = report[judge]["consistency"]
    assert section["pairs"] == expected.pairs == 1120 - expected.lone_answers
    assert section["position_consistency"] == pytest.approx(expected.pair_level, abs=1e-12)


@pytest.mark.parametrize("judge", list(PUBLISHED))
def test_report_counts_primacy_and_recency_pairs_and_failed_calls(
    report: dict[str, dict[str, Any]], judge: str
) -> None:
    pairs = [p for p in recorded_pairs(judge) if p.parsed]
    section = report[judge]
    consistency_section = section["consistency"]
    assert consistency_section["primacy_pairs"] == sum(
        (p.a_first, p.b_first) in PRIMACY for p in pairs
    )
    assert consistency_section["recency_pairs"] == sum(
        (p.a_first, p.b_first) in RECENCY for p in pairs
    )
    unparsed = sum(v is None for v in load_verdicts("DevBench", judge).values())
    calls = section["calls"]
    assert (calls["total"], calls["design"], calls["failed"]) == (2240, 2240, unparsed)
    assert calls["by_error_kind"].get("unparseable", 0) == unparsed


@pytest.mark.parametrize("judge", list(PUBLISHED))
def test_consistency_interval_and_floor_flags(
    report: dict[str, dict[str, Any]], judge: str
) -> None:
    expected = consistency(recorded_pairs(judge))
    section = report[judge]["consistency"]
    wilson = proportion_confint(expected.consistent, expected.pairs, alpha=0.05, method="wilson")
    assert section["ci95"] == pytest.approx(list(wilson), abs=1e-9)
    assert section["tier"] == "high"
    flags = {flag for flag in report[judge]["flags"] if flag.startswith(("red_flag", "coin_toss"))}
    assert flags == FLOOR_FLAGS[judge]
