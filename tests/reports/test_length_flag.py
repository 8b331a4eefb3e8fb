"""Issue 37: `length_bias` is a judge's excess over the humans on the same comparisons, not the
traffic's correlation of length and outcome, which is high wherever better answers are longer."""

from __future__ import annotations

import random

from app.config import Settings
from app.db import create_engine, create_sessionmaker
from app.reports.bias import build_report
from app.reports.schemas import BiasReport
from tests.labels.builders import Rows, Swap
from tests.labels.test_human_baseline import FILTERS

COMPARISONS = 150
PICK_A: tuple[str, str] = ("first", "second")
PICK_B: tuple[str, str] = ("second", "first")


def traffic(*, labelled: bool) -> Rows:
    """Better answers are longer in four comparisons of five. `fair` picks the better one, as
    the labeler does; `verbose` always picks the longer one."""
    rng = random.Random(37)
    rows = Rows()
    for _ in range(COMPARISONS):
        short, long = rng.randrange(100, 600), rng.randrange(700, 1500)
        a_is_long = rng.random() < 0.5
        better_is_long = rng.random() < 0.8
        better = "A" if a_is_long == better_is_long else "B"
        longer = "A" if a_is_long else "B"
        fair = Swap("fair", *(PICK_A if better == "A" else PICK_B))  # type: ignore[arg-type]
        verbose = Swap("verbose", *(PICK_A if longer == "A" else PICK_B))  # type: ignore[arg-type]
        comparison_id = rows.comparison(fair, verbose)
        len_a, len_b = (long, short) if a_is_long else (short, long)
        rows.comparisons[-1].update(len_a=len_a, len_b=len_b)
        if labelled:
            rows.label(comparison_id, "ann", better)
    return rows


async def report_of(url: str, rows: Rows) -> BiasReport:
    await rows.insert(url)
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as session:
        report = await build_report(session, FILTERS, Settings())
    await engine.dispose()
    return report


async def test_the_human_baseline_decides_length_bias_where_labels_exist(clean_pg: str) -> None:
    report = await report_of(clean_pg, traffic(labelled=True))
    judges = {j.judge: j for j in report.judges}
    fair, verbose = judges["fair"], judges["verbose"]
    # In the traffic both prefer longer answers, significantly: a description, not a bias.
    for judge in (fair, verbose):
        assert judge.length.tier == "moderate"
        assert judge.length.spearman is not None
        assert judge.length.spearman > 0.3
        assert judge.length.significant is True
        assert judge.length.prefers_longer is True
    # Against the labeler on the same comparisons, only `verbose` goes beyond what is deserved.
    assert fair.human_baseline is not None
    assert verbose.human_baseline is not None
    assert fair.human_baseline.length.tier == "moderate"
    assert fair.human_baseline.length.excess_longer == 0
    assert "length_bias" not in fair.flags
    assert "length_bias_watch" not in fair.flags
    excess = verbose.human_baseline.length.excess_longer
    assert excess is not None
    assert excess > 0.1
    assert "length_bias" in verbose.flags


async def test_without_labels_the_traffic_correlation_raises_no_flag(clean_pg: str) -> None:
    report = await report_of(clean_pg, traffic(labelled=False))
    for judge in report.judges:
        assert judge.length.significant is True
        assert judge.length.prefers_longer is True
        assert not {"length_bias", "length_bias_watch"} & set(judge.flags)


async def test_a_length_figure_that_cannot_exist_says_why(clean_pg: str) -> None:
    """Issue 37: with enough comparisons but every pair of the same lengths, ρ and the
    longer-win rate are undefined; the section said null with no reason."""
    rows = Rows()
    for i in range(COMPARISONS):
        rows.comparison(Swap("even", *(PICK_A if i % 2 else PICK_B)))  # type: ignore[arg-type]
        rows.comparisons[-1].update(len_a=500, len_b=500)
    length = {j.judge: j for j in (await report_of(clean_pg, rows)).judges}["even"].length
    assert length.tier != "insufficient"
    assert (length.spearman, length.longer_win_rate) == (None, None)
    assert length.reason == "no_variation"
