"""A judge's own template that fails on a call's inputs fails that call (`template_error`) with
its template hash recorded and no request made; the packaged templates never take that path."""

from __future__ import annotations

import random
from collections.abc import Callable

from app.judging.providers import build_judge
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig

Deadline = Callable[[float], float]
# Cheap on the sample task ("task"), a division by zero on a two-character task.
FAILS_ON_SHORT_TASKS = "{{ (task|length) // (task|length - 2) }}"


def _sim(**templates: str) -> JudgeConfig:
    return JudgeConfig(name="s", provider="sim", model="s", templates=templates)


async def test_a_pairwise_template_failing_on_the_inputs_is_a_template_error(
    deadline_in: Deadline,
) -> None:
    judge = build_judge(_sim(pairwise_system=FAILS_ON_SHORT_TASKS))
    result = await judge.judge_pair("ok", "a", "b", deadline=deadline_in(5), rng=random.Random(1))
    assert (result.error_kind, result.pick, result.raw_output) == ("template_error", None, None)
    assert result.error is not None
    assert "pairwise_system" in result.error
    assert "ZeroDivisionError" in result.error
    assert result.template_hash == judge.renderer.pairwise_hash
    fine = await judge.judge_pair("fine", "a", "b", deadline=deadline_in(5), rng=random.Random(1))
    assert fine.error_kind is None


async def test_a_scoring_template_failing_on_the_inputs_is_a_template_error(
    deadline_in: Deadline,
) -> None:
    judge = build_judge(_sim(scoring_system=FAILS_ON_SHORT_TASKS))
    result = await judge.judge_scores(
        "ok", ["a", "b"], DEFAULT_RUBRIC, deadline=deadline_in(5), rng=random.Random(1)
    )
    assert (result.error_kind, result.scores) == ("template_error", None)
    assert result.template_hash == judge.renderer.scoring_hash
