"""Issue 22: the reviewers' own-family score gap, by hand on a fixture and recovered through the
API from the sim judge's `self_preference` knob (seeded, several seeds).

The expected gap comes from the sim's scoring model (JUDGING.md): a reviewer's score is
clip(round(c + q + bonus + N(0, σ))), and only the conflicted reviewer's own-family responses get
the bonus k. Its other responses and every neutral reviewer's scores share one distribution, so
E[gap] = E[score | q_own + k] − E[score | q_own], computed exactly from the normal CDF.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from statistics import NormalDist
from typing import Any

import pytest

from app.config import Settings
from app.scoring.stats import FamilyScore, own_family_gap, own_family_gaps

SESSIONS = 40
SEEDS = (1, 2)
NOISE = 0.5  # the sim's default score_noise
LOW, HIGH = 1, 5  # the default rubric


def test_gap_by_hand() -> None:
    rows = [
        # s1: gpt-rev is harsh (−1 on others) but gives its own response +1 over the neutrals.
        FamilyScore("s1", 0, "gpt-rev", "openai", "openai", 4.0),
        FamilyScore("s1", 1, "gpt-rev", "openai", "anthropic", 2.0),
        FamilyScore("s1", 2, "gpt-rev", "openai", None, 1.0),
        FamilyScore("s1", 0, "n1", "google", "openai", 3.0),
        FamilyScore("s1", 0, "n2", None, "openai", 3.0),
        FamilyScore("s1", 1, "n1", "google", "anthropic", 3.0),
        FamilyScore("s1", 1, "n2", None, "anthropic", 4.0),
        FamilyScore("s1", 2, "n1", "google", None, 2.0),
        # claude-rev is conflicted on response 1: not a neutral reference, and it has a gap too.
        FamilyScore("s1", 0, "claude-rev", "anthropic", "openai", 5.0),
        FamilyScore("s1", 1, "claude-rev", "anthropic", "anthropic", 5.0),
        # s2: no neutral reviewer scored the other response: no gap.
        FamilyScore("s2", 0, "gpt-rev", "openai", "openai", 5.0),
        FamilyScore("s2", 1, "gpt-rev", "openai", "meta", 1.0),
        FamilyScore("s2", 0, "n1", "google", "openai", 3.0),
        # s3: only own-family responses: no contrast, no gap.
        FamilyScore("s3", 0, "gpt-rev", "openai", "openai", 5.0),
        FamilyScore("s3", 0, "n1", "google", "openai", 3.0),
    ]
    gaps = own_family_gaps(rows)
    # gpt-rev: own d = 4 − 3 = 1; others d = 2 − 3.5 = −1.5 and 1 − 2 = −1, mean −1.25.
    # claude-rev: own d = 5 − 3.5 = 1.5; other d = 5 − 3 = 2.
    assert gaps == {"gpt-rev": [2.25], "claude-rev": [-0.5]}
    assert set(own_family_gaps(rows[10:])) == set()


def test_gap_summary_needs_sessions_and_says_why() -> None:
    none = own_family_gap([], margin=0.4)
    assert (none.n, none.delta, none.reason, none.tier) == (
        0,
        None,
        "no_audit_data",
        "insufficient",
    )
    few = own_family_gap([1.0] * 5, margin=0.4)
    assert (few.delta, few.reason) == (None, "insufficient_data")
    values = [0.5 + (i % 5) / 10 for i in range(40)]
    summary = own_family_gap(values, margin=0.4)
    assert summary.delta == pytest.approx(sum(values) / 40)
    assert summary.ci95 is not None
    assert summary.delta is not None
    assert summary.ci95[0] <= summary.delta <= summary.ci95[1]
    assert summary.significant is True
    assert summary.tier == "preliminary"


def expected_score(mean: float) -> float:
    """E[clip(round(mean + N(0, σ)), LOW, HIGH)], rounding half up as the sim does: LOW plus
    the chance of passing each threshold v − ½."""
    normal = NormalDist(mean, NOISE)
    return LOW + sum(1 - normal.cdf(v - 0.5) for v in range(LOW + 1, HIGH + 1))


def expected_gap(own_qualities: list[float], knob: float) -> float:
    middle = (LOW + HIGH) / 2
    shifts = [expected_score(middle + q + knob) - expected_score(middle + q) for q in own_qualities]
    return sum(shifts) / len(shifts)


def judges_file(knob: float, seed: int) -> str:
    def judge(name: str, family: str, knobs: str) -> str:
        return (
            f'\n[[judges]]\nname = "{name}"\nprovider = "sim"\nmodel = "{name}-model"\n'
            f'family = "{family}"\nsim = {{ {knobs} }}\n'
        )

    return (
        'default_panel = ["gpt-rev", "rev-g", "rev-m"]\n'
        + judge("gpt-rev", "openai", f"self_preference = {knob}, seed = {seed}")
        + judge("rev-g", "google", f"seed = {seed + 100}")
        + judge("rev-m", "meta", f"seed = {seed + 200}")
    )


def session_bodies(seed: int) -> tuple[list[dict[str, Any]], list[float]]:
    rng = random.Random(seed)
    bodies, own_qualities = [], []
    for index in range(SESSIONS):
        q_own, q_1, q_2 = (round(rng.gauss(0, 0.5), 4) for _ in range(3))
        responses = [
            {"text": f"Own {index}.\n[sim q={q_own} family=openai]", "model": "gpt-4o"},
            {"text": f"Other {index}.\n[sim q={q_1} family=anthropic]", "model": "claude-3"},
            {"text": f"Third {index}.\n[sim q={q_2}]", "model": "m-3"},
        ]
        rng.shuffle(responses)
        bodies.append(
            {
                "prompt": f"Question {seed}-{index}?",
                "responses": responses,
                "self_preference": "audit",
            }
        )
        own_qualities.append(q_own)
    return bodies, own_qualities


@pytest.mark.parametrize("knob", [0.0, 1.0])
@pytest.mark.parametrize("seed", SEEDS)
async def test_report_recovers_the_injected_own_family_score_gap(
    knob: float,
    seed: int,
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    admin: dict[str, str],
) -> None:
    client = await live_factory(settings_factory(judges_file(knob, seed), draw_seed=seed))
    bodies, own_qualities = session_bodies(seed)
    for body in bodies:
        answer = await client.post("/v1/score", headers=admin, json=body)
        assert answer.status_code == 200, answer.text
        assert answer.json()["conflicted"] == ["gpt-rev"]
    report = (await client.get("/v1/bias-report", headers=admin)).json()
    sections = {r["reviewer"]: r["self_preference"] for r in report["reviewers"]}
    section = sections["gpt-rev"]
    expected = expected_gap(own_qualities, knob)
    low, high = section["ci95"]
    assert section["n"] == SESSIONS
    assert low <= expected <= high, (section, expected)
    if knob == 0:
        assert section["significant"] is False
    else:
        assert expected > 0.8  # clipping at 5 takes a little of the 1-point shift
        assert low > 0
        assert section["significant"] is True
    assert sections["rev-g"]["reason"] == "no_audit_data"
