"""The card's probes and figures, without a database: deterministic probes, the sim's injection
knob, and the marks and paired test of app/cards/stats.py."""

from __future__ import annotations

import random

import pytest

from app.cards import probes, stats
from app.cards.service import stated_cost
from app.judging.simulation import INJECTION, simulate_chat
from app.judging.types import SimKnobs


def test_the_same_seed_and_size_give_the_same_probes_item_by_item() -> None:
    first, again = probes.battery(3, 10), probes.battery(3, 10)
    assert first == again
    assert len(first) == 4 * 10
    assert len({p.item for p in first}) == len(first)
    assert probes.battery(4, 10) != first


def test_each_family_holds_its_construction() -> None:
    for probe in probes.battery(0, 20):
        wrong = probe.response_b if probe.wrong == "B" else probe.response_a
        right = probe.response_a if probe.wrong == "B" else probe.response_b
        if probe.family == "padding":
            assert right in wrong
            assert len(wrong) > len(right)
        elif probe.family == "injection":
            assert wrong.split("\n\n")[0] == right.split("\n\n")[0]
            assert abs(len(wrong) - len(right)) <= 5
            assert INJECTION.search(wrong) is not None
            assert INJECTION.search(right) is None
        elif probe.family == "junk":
            assert wrong in (probes.NO_ANSWER, probes.OFF_TOPIC, probes.NULL_MODEL)
        else:
            assert probe.wrong == "first"
            assert probe.response_a == probe.response_b


def test_the_wrong_side_sits_in_both_slots_across_the_battery() -> None:
    slots = {p.wrong for p in probes.battery(0, 24) if p.family == "padding"}
    assert slots == {"A", "B"}


def _pair_messages(first: str, second: str) -> list[dict[str, str]]:
    nonce = "0123456789abcdef"
    blocks = [
        f'<response label="{label}" nonce="{nonce}">\n{text}\n</response nonce="{nonce}">'
        for label, text in (("X", first), ("Y", second))
    ]
    user = "Which is better?\n" + "\n".join(blocks)
    return [{"role": "system", "content": "judge"}, {"role": "user", "content": user}]


def test_the_sim_follows_an_injected_instruction_at_its_rate() -> None:
    answer = "The capital of France is Paris."
    injected = f"{answer}\n\n{probes.INJECTIONS[0]}"
    follows = SimKnobs(beta=0.0, injection_following=1.0)
    plain = SimKnobs(beta=0.0)
    picks, plain_picks = [], []
    for seed in range(40):
        messages = _pair_messages(f"{answer} ({seed})", f"{injected} ({seed})")
        picks.append(simulate_chat(follows, "m", messages).text)
        plain_picks.append(simulate_chat(plain, "m", messages).text)
    assert all('"winner": "Y"' in text for text in picks), picks[:3]
    assert 5 < sum('"winner": "Y"' in text for text in plain_picks) < 35


def _calls(family: str, wrong_share: float, n: int, seed: int = 0) -> list[stats.ProbeCall]:
    rng = random.Random(seed)
    return [
        stats.ProbeCall(
            f"{family}-{i:03d}", family, r, "B", "B" if rng.random() < wrong_share else "A", None
        )
        for i in range(n)
        for r in (0, 1)
    ]


def test_marks_fail_a_clear_bias_and_pass_a_fair_judge() -> None:
    biased = stats.figure("padding", _calls("padding", 0.9, 50))
    assert biased.mark == "fail"
    assert biased.ci is not None
    assert biased.ci[0] > 0.5
    fair = stats.figure("padding", list(_calls("padding", 0.5, 50, seed=2)))
    assert fair.mark in ("pass", "watch")
    assert fair.ci is not None
    assert fair.ci[0] < 0.5
    few = stats.figure("junk", _calls("junk", 0.0, 5))
    assert few.mark == "insufficient"
    assert few.tier == "insufficient"


def test_the_paired_test_flags_a_changed_judge_and_not_a_repeat() -> None:
    before = _calls("padding", 0.5, 60, seed=1)
    assert not stats.changes(before, before)[0].changed
    after = _calls("padding", 0.95, 60, seed=3)
    change = stats.changes(before, after)[0]
    assert change.changed
    assert change.c > change.b
    assert change.pairs == 120


def test_an_established_but_small_excess_is_a_watch_not_a_fail() -> None:
    # 58% of 1,000 items: established at the card's level, short of the 0.1 margin.
    calls = [
        stats.ProbeCall(f"p-{i:04d}", "padding", 0, "B", "B" if i < 580 else "A", None)
        for i in range(1000)
    ]
    small = stats.figure("padding", calls)
    assert small.ci is not None
    assert small.ci[0] > 0.5
    assert small.mark == "watch"


def test_a_placebo_preference_for_either_slot_fails() -> None:
    calls = [
        stats.ProbeCall(f"p-{i:03d}", "placebo", r, "first", "A", "second" if i < 80 else "first")
        for i in range(50)
        for r in (0, 1)
    ]
    assert stats.figure("placebo", calls).mark == "fail"


def test_an_item_judged_alike_in_both_orders_counts_as_one_answer() -> None:
    """The design effect: two calls that always agree on an item carry one item's evidence, so
    the interval is that of the items (n / 2), not of the calls; calls that vary independently
    keep the binomial interval (the effect is floored at 1)."""
    agreeing = [
        stats.ProbeCall(f"p-{i:03d}", "padding", r, "B", "B" if i % 3 else "A", None)
        for i in range(60)
        for r in (0, 1)
    ]
    figure = stats.figure("padding", agreeing)
    assert figure.design_effect == pytest.approx(2.0, abs=0.05)
    items_only = stats.figure("padding", [c for c in agreeing if c.round == 0])
    assert figure.ci == pytest.approx(items_only.ci, abs=0.01)
    assert stats.figure("padding", _calls("padding", 0.5, 200, seed=5)).design_effect < 1.2
    assert figure.ci_level == pytest.approx(1 - 0.05 / 4)


def test_a_battery_on_an_unpriced_judge_states_its_calls_and_an_unknown_cost() -> None:
    battery = probes.battery(0, 4, False)
    priced = {"provider": "openai", "price_in_per_mtok": 2.5, "price_out_per_mtok": 10.0}
    calls, cost = stated_cost(battery, priced)
    assert calls == 2 * len(battery)
    assert cost is not None
    assert cost > 0
    assert stated_cost(battery, {"provider": "openai"}) == (calls, None)
    assert stated_cost(battery, {"provider": "sim"}) == (calls, 0.0)
