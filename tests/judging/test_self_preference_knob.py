"""The sim judge's `self_preference` knob (issue 22): the response's family comes from its
`[sim ... family=]` line, the judge's from its config (or its model name over HTTP), and the
bonus is the documented logit offset for pairs and score shift for scoring."""

from __future__ import annotations

import math
import random
from collections.abc import Callable

import httpx2
import pytest

from app.judging.providers import build_judge
from app.judging.simulation import latent_quality, sim_marker, simulate_chat
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, Rubric, SimKnobs
from app.simjudge.server import create_sim_app

Deadline = Callable[[float], float]


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def _block(label: str, nonce: str, text: str) -> str:
    return f'<response label="{label}" nonce="{nonce}">\n{text}\n</response nonce="{nonce}">'


def _pair(first: str, second: str) -> list[dict[str, str]]:
    user = _block("Q", "1" * 16, first) + "\n\n" + _block("P", "2" * 16, second)
    return [{"role": "user", "content": user}]


def _first_probability(reply_logprobs: object) -> float:
    assert isinstance(reply_logprobs, tuple)
    top = dict(next(t.top for t in reply_logprobs if len(t.top) > 1))
    return math.exp(top["Q"])


def test_the_sim_line_may_carry_a_family_beside_or_instead_of_the_quality() -> None:
    marker = sim_marker("an answer\n[sim q=0.5 family=OpenAI]\n")
    assert (marker.quality, marker.family, marker.visible_text) == (0.5, "openai", "an answer")
    only_family = sim_marker("an answer\n[sim family=meta]")
    assert (only_family.quality, only_family.family) == (None, "meta")
    # Without a q the quality is the hash of the visible text, as for an unmarked text.
    assert latent_quality("an answer\n[sim family=meta]") == latent_quality("an answer")
    assert sim_marker("an answer\n[sim]").visible_text == "an answer\n[sim]"
    assert latent_quality("a\n[sim q=-1.25]") == (-1.25, "a")


@pytest.mark.parametrize(
    ("first_family", "second_family", "sign"),
    [("openai", "anthropic", 1), ("anthropic", "openai", -1), ("openai", "openai", 0),
     (None, None, 0), ("meta", "anthropic", 0)],
)  # fmt: skip
def test_pair_bonus_is_a_logit_offset_toward_the_only_own_family_response(
    first_family: str | None, second_family: str | None, sign: int
) -> None:
    def text(name: str, family: str | None) -> str:
        return f"{name}\n[sim q=0.2 family={family}]" if family else f"{name}\n[sim q=0.2]"

    messages = _pair(text("a", first_family), text("b", second_family))
    knobs = SimKnobs(self_preference=1.3)
    reply = simulate_chat(knobs, "m", messages, top_logprobs=20, judge_family="OpenAI")
    assert _first_probability(reply.logprobs) == pytest.approx(_sigmoid(1.3 * sign))
    neutral = simulate_chat(knobs, "m", messages, top_logprobs=20, judge_family="google")
    assert _first_probability(neutral.logprobs) == pytest.approx(0.5)


def test_over_http_the_judge_family_is_that_of_the_model_asked_for() -> None:
    messages = _pair("a\n[sim q=0 family=openai]", "b\n[sim q=0 family=anthropic]")
    knobs = SimKnobs(self_preference=1.0)
    own = simulate_chat(knobs, "gpt-4o-sim", messages, top_logprobs=20)
    other = simulate_chat(knobs, "claude-sim", messages, top_logprobs=20)
    unknown = simulate_chat(knobs, "sim", messages, top_logprobs=20)
    assert _first_probability(own.logprobs) == pytest.approx(_sigmoid(1.0))
    assert _first_probability(other.logprobs) == pytest.approx(_sigmoid(-1.0))
    assert _first_probability(unknown.logprobs) == pytest.approx(0.5)


async def test_http_sim_judge_applies_the_knob() -> None:
    app = create_sim_app(SimKnobs(self_preference=2.0))
    body = {
        "model": "gpt-sim",
        "messages": _pair("a\n[sim q=0 family=openai]", "b\n[sim q=0]"),
        "logprobs": True,
        "top_logprobs": 20,
    }
    transport = httpx2.ASGITransport(app=app)
    async with httpx2.AsyncClient(transport=transport, base_url="http://sim") as client:
        answer = (await client.post("/v1/chat/completions", json=body)).json()
    tokens = answer["choices"][0]["logprobs"]["content"]
    top = next(t["top_logprobs"] for t in tokens if len(t["top_logprobs"]) > 1)
    p_first = next(math.exp(t["logprob"]) for t in top if t["token"] == "Q")
    assert p_first == pytest.approx(_sigmoid(2.0))


async def test_in_process_judge_uses_its_configured_family(deadline_in: Deadline) -> None:
    config = JudgeConfig(
        name="x", provider="sim", model="fairpair-sim", family="Meta",
        sim=SimKnobs(self_preference=1.5, score_noise=0.0),
    )  # fmt: skip
    judge = build_judge(config)
    rubric = Rubric(1, 9, DEFAULT_RUBRIC.levels)
    texts = ["x\n[sim q=0.4 family=meta]", "y\n[sim q=0.4 family=openai]", "z\n[sim q=0.4]"]
    result = await judge.judge_scores(
        "q", texts, rubric, deadline=deadline_in(10), rng=random.Random(1)
    )
    # Midpoint 5 + 0.4, and 1.5 score points more for its own family's response: 6.9 -> 7.
    assert result.scores == (7.0, 5.0, 5.0)


def test_the_knob_is_part_of_the_judge_version_only_when_set() -> None:
    from app.judging.versioning import judge_config_hash

    def config(knobs: SimKnobs) -> JudgeConfig:
        return JudgeConfig(name="s", provider="sim", model="m", sim=knobs)

    unset = judge_config_hash(config(SimKnobs()))
    assert judge_config_hash(config(SimKnobs(self_preference=1.0))) != unset
    assert judge_config_hash(config(SimKnobs(self_preference=0.0))) == unset
