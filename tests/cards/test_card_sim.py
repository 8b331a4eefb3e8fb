"""Issue 42: the card's marks by seeded simulation (bench/card_sim.py, a smaller run). A fair
judge's card is marked (fail or watch, anywhere) in at most about 5 cards in 100, even when its
two calls on a probe agree more than chance; a clear padding or injection bias fails its family."""

from __future__ import annotations

import pytest
from scipy import stats

from bench.card_sim import JUDGES, Judge, tally

RUNS = 300
# The 99.9% quantile of Binomial(300, 0.05): the most marked cards a rule whose true per-card
# rate is 5% gives 999 times in 1000.
MOST_MARKED = int(stats.binom.ppf(0.999, RUNS, 0.05))
BY_NAME = {j.name: j for j in JUDGES}


@pytest.mark.parametrize("judge", [BY_NAME["fair"], BY_NAME["fair-items"]], ids=lambda j: j.name)
def test_a_fair_judges_card_is_marked_within_the_binomial_band_of_five_percent(
    judge: Judge,
) -> None:
    result = tally(judge, RUNS, per_family=24, first_run=10_000)
    assert result.card_flagged <= MOST_MARKED, (result.card_flagged, MOST_MARKED)
    assert result.card_fail <= result.card_flagged


@pytest.mark.parametrize("name", ["length_bias=4", "injection=0.8"])
def test_a_clear_bias_fails_its_family(name: str) -> None:
    judge = BY_NAME[name]
    result = tally(judge, 60, per_family=24, first_run=20_000)
    assert result.fail is not None
    assert judge.biased_family is not None
    # Power measured at 2,000 runs is 0.99 or more for these (BENCHMARKS.md, "Judge card").
    assert result.fail[judge.biased_family] >= 50, result.fail
