"""Issue 22 acceptance: the bias report recovers a self-preference injected with the sim judge's
knob inside its 95% CI, and reports none when the knob is 0 (seeded, several seeds).

Comparisons go through the real API under the `audit` policy, so the conflicted judge runs beside
two neutral judges. The expected delta comes from the sim's model, not from the report: with no
position, label or length bias and no ties, a judge picks the response of quality gap d with
probability σ(β·d + k) when it is its own family's and σ(β·d) otherwise (JUDGING.md), so
E[s_c − o_c] = σ(β·d_c + k) − σ(β·d_c) for each comparison, and the report's delta is their mean.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from app.config import Settings

BETA = 1.5  # the sim's default
COMPARISONS = 60
SEEDS = (1, 2, 3)


def judges_file(knob: float, seed: int) -> str:
    sim = f"{{ self_preference = {knob}, seed = {seed} }}"
    neutral = f"{{ seed = {seed + 100} }}"
    return f"""
default_panel = ["gpt-judge", "neutral-g", "neutral-m"]

[[judges]]
name = "gpt-judge"
provider = "sim"
model = "judge-one"
family = "openai"
sim = {sim}

[[judges]]
name = "neutral-g"
provider = "sim"
model = "judge-two"
family = "google"
sim = {neutral}

[[judges]]
name = "neutral-m"
provider = "sim"
model = "judge-three"
family = "meta"
sim = {neutral}
"""


def _sigmoid(z: float) -> float:
    return 1 / (1 + math.exp(-z))


def comparison_bodies(seed: int) -> list[tuple[dict[str, Any], float]]:
    """Compare bodies with the own-family (openai) response on a random side, each with the
    quality gap own − other."""
    rng = random.Random(seed)
    bodies = []
    for index in range(COMPARISONS):
        q_own, q_other = rng.gauss(0, 0.5), rng.gauss(0, 0.5)
        own = {"text": f"Own {index}.\n[sim q={q_own:.4f} family=openai]", "model": "gpt-4o"}
        other = {
            "text": f"Other {index}.\n[sim q={q_other:.4f} family=anthropic]",
            "model": "claude-3-5-sonnet",
        }
        a, b = (own, other) if rng.random() < 0.5 else (other, own)
        body = {
            "prompt": f"Question {seed}-{index}?",
            "response_a": a,
            "response_b": b,
            "self_preference": "audit",
        }
        bodies.append((body, round(q_own, 4) - round(q_other, 4)))
    return bodies


def expected_delta(gaps: list[float], knob: float) -> float:
    return sum(_sigmoid(BETA * d + knob) - _sigmoid(BETA * d) for d in gaps) / len(gaps)


@pytest.mark.parametrize("knob", [0.0, 1.0])
@pytest.mark.parametrize("seed", SEEDS)
async def test_report_recovers_the_injected_self_preference(
    knob: float,
    seed: int,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    comparer: dict[str, str],
    reader: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(judges_file(knob, seed), draw_seed=seed))
    bodies = comparison_bodies(seed)
    for body, _ in bodies:
        answer = await client.post("/v1/compare", headers=comparer, json=body)
        assert answer.status_code == 200, answer.text
        roles = {j["judge"]: j["role"] for j in answer.json()["judges"]}
        assert roles == {"gpt-judge": "audit", "neutral-g": "voter", "neutral-m": "voter"}
    report = (await client.get("/v1/bias-report", headers=reader)).json()
    sections = {j["judge"]: j["self_preference"] for j in report["judges"]}
    section = sections["gpt-judge"]
    expected = expected_delta([gap for _, gap in bodies], knob)
    low, high = section["ci95"]
    assert section["n"] == COMPARISONS
    assert low <= expected <= high, (section, expected)
    if knob == 0:
        assert section["significant"] is False
    else:
        assert expected > 0.15  # an effect the test can see: σ(k) − ½ ≈ 0.23 at d = 0
        assert low > 0
        assert section["significant"] is True
    # The neutral judges are never conflicted: they have no self-preference figure.
    assert sections["neutral-g"]["reason"] == "no_audit_data"
