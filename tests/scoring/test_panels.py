"""Who scores which response under each self-preference policy (pure)."""

from __future__ import annotations

from app.jobs.panels import PanelJudge, SelfPreferencePolicy
from app.scoring.panels import ScoringPlan, plan_scoring

PANEL = [PanelJudge("gpt-judge", "openai"), PanelJudge("claude-judge", "anthropic")]
FAMILIES: list[str | None] = [None, "openai", "anthropic"]


def plan(
    policy: SelfPreferencePolicy,
    panel: list[PanelJudge] = PANEL,
    families: list[str | None] = FAMILIES,
    default: list[PanelJudge] | None = None,
    audit_rate: float = 0.0,
) -> ScoringPlan:
    return plan_scoring(
        panel,
        families,
        policy=policy,
        default_panel=default or [],
        audit_draw=lambda _name: 0.5,
        audit_rate=audit_rate,
    )


def test_exclude_keeps_each_reviewer_off_its_own_family_only() -> None:
    result = plan("exclude")
    assert result.shown_to("gpt-judge") == [0, 2]
    assert result.shown_to("claude-judge") == [0, 1]
    assert [p.excluded for p in result.responses] == [(), ("gpt-judge",), ("claude-judge",)]
    assert result.conflicted == ("claude-judge", "gpt-judge")
    assert result.excluded == ()
    assert not result.self_preference_risk


def test_when_every_reviewer_is_conflicted_all_score_it_with_a_risk_flag() -> None:
    result = plan("exclude", panel=[PanelJudge("gpt-judge", "openai")], families=["openai", None])
    assert result.shown_to("gpt-judge") == [0, 1]
    assert result.responses[0].voters == ("gpt-judge",)
    assert result.self_preference_risk


def test_a_reviewer_conflicted_on_every_response_makes_no_call() -> None:
    result = plan("exclude", families=["openai", "openai"])
    assert result.reviewers == ("claude-judge",)
    assert result.excluded == ("gpt-judge",)


def test_audits_score_but_do_not_count() -> None:
    for result in (plan("audit"), plan("exclude", audit_rate=1.0)):
        assert result.shown_to("gpt-judge") == [0, 1, 2]
        assert result.responses[1].voters == ("claude-judge",)
        assert result.responses[1].audits == ("gpt-judge",)


def test_warn_and_allow_let_conflicted_reviewers_count() -> None:
    for policy in ("warn", "allow"):
        result = plan(policy)
        assert result.responses[1].voters == ("claude-judge", "gpt-judge")
        assert result.conflicted == ("claude-judge", "gpt-judge")


def test_substitute_brings_a_stand_in_for_the_responses_a_reviewer_skips() -> None:
    stand_in = PanelJudge("gemini-judge", "google")
    result = plan("substitute", default=[stand_in])
    assert result.shown_to("gemini-judge") == [1, 2]
    assert result.responses[1].voters == ("claude-judge", "gemini-judge")


def test_the_plan_does_not_depend_on_the_order_of_the_panel() -> None:
    assert plan("exclude") == plan("exclude", panel=list(reversed(PANEL)))


def test_the_plan_survives_its_stored_form() -> None:
    original = plan("audit")
    assert ScoringPlan.from_json(original.to_json()) == original
