"""Issue 4: Judging-the-Judges DevBench verdicts served through `POST /v1/compare` (swap).

Every recorded swap pair of the five judges (1,120 each: 112 questions x 10 models against the
`human` answer) is one comparison: A = the model's answer, B = the human answer, judged by a replay
judge that answers each display order with the verdict the real judge gave for it. The service must
turn the pairs into exactly the verdicts the swap protocol defines, and store what was shown.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from tests.replay.replay import (
    UNDECIDED_ANSWER,
    call_view,
    expected_calls,
    load_verdicts,
    recorded_judges,
    shown_by_key,
)
from tests.replay.serving import Served, ServedBench, stored_comparisons

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def calls_as_shown(devbench: ServedBench) -> Callable[[Served], list[dict[str, Any]]]:
    """The calls a comparison must have stored: what its judge's transport was shown."""
    shown = {judge: shown_by_key(t) for judge, t in devbench.app.transports.items()}

    def calls(served: Served) -> list[dict[str, Any]]:
        return expected_calls(served.pair, shown[served.judge], devbench.reference)

    return calls


@pytest.mark.parametrize("judge", recorded_judges("DevBench"))
async def test_every_recorded_call_is_shown_once_and_answered_as_recorded(
    devbench: ServedBench, judge: str
) -> None:
    transport = devbench.app.transports[judge]
    verdicts = load_verdicts("DevBench", judge)
    assert transport.unmatched == []
    assert len(devbench.of(judge)) == len(verdicts) // 2 == 1120
    times_shown = Counter(shown.key for shown in transport.shown)
    # An unparsed verdict is asked twice (the repair retry) and gets the same prose both times.
    assert times_shown == {key: 1 if v is not None else 2 for key, v in verdicts.items()}
    for key in (key for key, verdict in verdicts.items() if verdict is None):
        repeats = [s for s in transport.shown if s.key == key]
        assert {(s.first_label, s.second_label, s.answer) for s in repeats} == {
            (repeats[0].first_label, repeats[0].second_label, UNDECIDED_ANSWER)
        }


async def test_inconsistent_orders_give_tie_and_flag_bias(devbench: ServedBench) -> None:
    inconsistent = [s for s in devbench.served if s.pair.parsed and not s.pair.consistent]
    assert len(inconsistent) == 193 + 265 + 271 + 386 + 864  # gpt-4 ... claude, from the data
    for served in inconsistent:
        assert served.status_code == 200, served.body
        body = served.body
        assert (body["status"], body["winner"], body["bias_detected"]) == ("complete", "tie", True)
        assert (body["position_consistent"], body["confidence"]) == (False, 0.5)
        assert body["judges"][0]["result"]["position_consistent"] is False


async def test_consistent_orders_give_the_agreed_winner(devbench: ServedBench) -> None:
    consistent = [s for s in devbench.served if s.pair.consistent]
    assert {s.pair.winners[0] for s in consistent} == {"A", "B"}
    for served in consistent:
        assert served.status_code == 200, served.body
        body = served.body
        assert (body["status"], body["winner"]) == ("complete", served.pair.winners[0])
        assert (body["bias_detected"], body["position_consistent"]) == (False, True)
        assert body["confidence"] == 1.0  # the mean stated confidence of the two calls


async def test_an_unparsed_verdict_leaves_the_judge_without_a_result(
    devbench: ServedBench, calls_as_shown: Callable[[Served], list[dict[str, Any]]]
) -> None:
    unparsed = [s for s in devbench.served if not s.pair.parsed]
    assert Counter(s.judge for s in unparsed) == {"claude-3-haiku-20240307": 3, "gemini-pro": 2}
    for served in unparsed:
        # The only judge has no result, so the comparison fails (502) but is stored.
        assert served.status_code == 502
        assert served.body["type"] == "judges-failed"
        response = await devbench.app.client.get(
            f"/v1/comparisons/{served.comparison_id}", headers=devbench.app.headers
        )
        stored = response.json()
        assert (stored["status"], stored["winner"]) == ("failed", None)
        (judge,) = stored["judges"]
        assert judge["result"] is None
        failed = [call for call in judge["calls"] if call["pick"] is None]
        assert [(call["error_kind"], call["retries"]) for call in failed] == [("unparseable", 1)]
        assert [call_view(c) for c in judge["calls"]] == calls_as_shown(served)


async def test_stored_orders_and_labels_are_what_the_judge_was_shown(
    devbench: ServedBench, calls_as_shown: Callable[[Served], list[dict[str, Any]]]
) -> None:
    stored = await stored_comparisons(devbench.app, "DevBench")
    assert len(stored) == len(devbench.served) == 5 * 1120
    for served in devbench.served:
        comparison = stored[served.comparison_id]
        if served.status_code == 200:
            assert comparison == served.body
        (judge,) = comparison["judges"]
        assert judge["judge"] == served.judge
        assert [call_view(call) for call in judge["calls"]] == calls_as_shown(served)
        for call in judge["calls"]:
            assert set(call["label_pair"].split("/")) == set(call["labels"].values())
    label_pairs = Counter(
        call["label_pair"] for c in stored.values() for call in c["judges"][0]["calls"]
    )
    assert len(label_pairs) == 5  # the whole default pool is drawn
