"""Judge versions and the json_mode / logprobs defaults."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest

from app.judging.types import JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash

BASE = JudgeConfig(name="j", provider="openai", model="gpt-judge", api_key="sk-one")


@pytest.mark.parametrize(
    "changed",
    [
        replace(BASE, provider="anthropic"),
        replace(BASE, model="gpt-judge-2"),
        replace(BASE, base_url="http://localhost:8000/v1"),
        # JUDGING.md: the hash covers the whole base_url, not only its host.
        replace(BASE, base_url="https://api.openai.com/v2"),
        replace(BASE, base_url="https://api.openai.com:8443/v1"),
        replace(BASE, base_url="http://api.openai.com/v1"),
        replace(BASE, temperature=0.7),
        replace(BASE, templates={"pairwise_user": "{{ task }}"}),
        replace(BASE, label_pool=(("P", "Q"),)),
        replace(BASE, anonymize=False),
    ],
)
def test_fields_that_change_judging_change_the_version(changed: JudgeConfig) -> None:
    assert judge_config_hash(changed) != judge_config_hash(BASE)


@pytest.mark.parametrize(
    "same",
    [
        replace(BASE, name="renamed", api_key="sk-two", timeout_s=5, max_concurrency=1, rpm=10),
        replace(BASE, base_url="https://api.openai.com/v1"),
        replace(BASE, sim=SimKnobs(position_bias=2.0)),
    ],
)
def test_fields_that_do_not_change_judging_keep_the_version(same: JudgeConfig) -> None:
    assert judge_config_hash(same) == judge_config_hash(BASE)


def test_sim_knobs_are_part_of_a_sim_judge_version() -> None:
    sim = JudgeConfig(name="s", provider="sim", model="m")
    assert judge_config_hash(sim) != judge_config_hash(replace(sim, sim=SimKnobs(label_bias=0.5)))
    offsets_a = replace(sim, sim=SimKnobs(offsets={"a": 1.0, "b": 2.0}))
    offsets_b = replace(sim, sim=SimKnobs(offsets={"b": 2.0, "a": 1.0}))
    assert judge_config_hash(offsets_a) == judge_config_hash(offsets_b)


@pytest.mark.parametrize(
    ("config", "json_mode", "logprobs"),
    [
        (BASE, True, True),
        (replace(BASE, base_url="https://api.openai.com/v1"), True, True),
        (replace(BASE, base_url="http://localhost:11434/v1"), False, False),
        (replace(BASE, base_url="http://localhost:8000/v1", json_mode=True), True, False),
        (replace(BASE, logprobs=False), True, False),
        (replace(BASE, provider="anthropic"), False, False),
        (replace(BASE, provider="anthropic", logprobs=True), False, False),
    ],
)
def test_json_mode_and_logprobs_default_to_the_official_openai_api_only(
    config: JudgeConfig, json_mode: bool, logprobs: bool
) -> None:
    assert (config.use_json_mode, config.use_logprobs) == (json_mode, logprobs)


@pytest.mark.parametrize(
    "build",
    [
        lambda: replace(BASE, max_concurrency=0),
        lambda: replace(BASE, timeout_s=0),
        lambda: replace(BASE, rpm=0),
        lambda: replace(BASE, temperature=-1),
        lambda: SimKnobs(tie_rate=1.5),
        lambda: SimKnobs(error_rate=0.7, rate_limit_rate=0.7),
    ],
)
def test_impossible_settings_are_refused(build: Callable[[], object]) -> None:
    with pytest.raises(ValueError, match="must"):
        build()
