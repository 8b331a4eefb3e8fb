"""Judge panels: majority verdicts, response families and the self-preference guard."""

from collections.abc import Mapping, Sequence
from typing import get_args

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.comparisons.panels import JudgeResult, PanelVerdict, panel_verdict
from app.comparisons.protocols import Winner
from app.jobs.panels import (
    DEFAULT_FAMILY_PREFIXES,
    PanelJudge,
    PanelPlan,
    SelfPreferencePolicy,
    family_of,
    parse_family_prefixes,
    plan_panel,
)

POLICIES: tuple[SelfPreferencePolicy, ...] = get_args(SelfPreferencePolicy)


def voter(name: str, winner: Winner | None, confidence: float | None = 0.8) -> JudgeResult:
    return JudgeResult(name, winner, confidence, position_consistent=True, bias_detected=False)


def voters(*winners: Winner | None) -> list[JudgeResult]:
    return [voter(f"judge-{i}", winner) for i, winner in enumerate(winners)]


# --- panel verdict ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("winners", "winner", "agreement"),
    [
        (["A"], "A", 1.0),
        (["tie"], "tie", 1.0),
        (["A", "tie", "tie"], "A", 1 / 3),
        (["tie", "B", "tie"], "B", 1 / 3),
        (["A", "A", "B"], "A", 2 / 3),
        (["B", "B", "A", "tie"], "B", 0.5),
        (["A", "B"], "tie", 0.0),
        (["A", "B", "tie"], "tie", 1 / 3),
        (["A", "A", "B", "B", "tie"], "tie", 0.2),
        (["tie", "tie", "tie"], "tie", 1.0),
        (["A", None], "A", 1.0),  # a judge without a result does not count
        (["B", None, None, "tie"], "B", 0.5),
    ],
)
def test_panel_takes_the_majority_of_decisive_winners(
    winners: list[Winner | None], winner: Winner, agreement: float
) -> None:
    verdict = panel_verdict(voters(*winners))
    assert verdict is not None
    assert verdict.winner == winner
    assert verdict.agreement == pytest.approx(agreement)


@pytest.mark.parametrize(
    "results",
    [
        [],
        voters(None),
        voters(None, None),
        [JudgeResult("audit-judge", "A", 0.9, True, False, role="audit")],
    ],
)
def test_panel_without_a_voting_result_has_no_verdict(results: list[JudgeResult]) -> None:
    assert panel_verdict(results) is None


def test_audits_never_vote() -> None:
    results = [
        voter("voter", "A"),
        JudgeResult("audit-1", "B", 0.9, role="audit"),
        JudgeResult("audit-2", "B", 0.9, role="audit"),
    ]
    assert panel_verdict(results) == PanelVerdict("A", 0.8, 1.0, True, False)


@pytest.mark.parametrize(
    ("results", "confidence"),
    [
        ([voter("a", "A", 1.0), voter("b", "A", 0.5), voter("c", "B", 0.1)], 0.75),
        ([voter("a", "A", None), voter("b", "A", 0.5)], 0.5),
        ([voter("a", "A", None), voter("b", "tie", 0.9)], None),
        ([voter("a", "A", 0.9), voter("b", "B", 0.9)], 0.5),  # an even split
        ([voter("a", "A", 0.9), voter("b", "B", 0.9), voter("c", "tie", 0.25)], 0.25),
    ],
)
def test_panel_confidence_is_the_mean_of_the_judges_backing_the_verdict(
    results: list[JudgeResult], confidence: float | None
) -> None:
    verdict = panel_verdict(results)
    assert verdict is not None
    assert verdict.confidence == confidence


def test_panel_confidence_is_exactly_equal_in_any_judge_order() -> None:
    # Plain float sums differ in the last bit here: 0.1 + 0.2 + 0.3 != 0.3 + 0.2 + 0.1.
    results = [voter("a", "A", 0.1), voter("b", "A", 0.2), voter("c", "A", 0.3)]
    assert panel_verdict(results) == panel_verdict(results[::-1])


def test_one_judge_panel_repeats_the_judges_verdict() -> None:
    result = JudgeResult("swap-judge", "tie", 0.5, position_consistent=False, bias_detected=True)
    assert panel_verdict([result]) == PanelVerdict("tie", 0.5, 1.0, False, True)


@pytest.mark.parametrize(
    ("flags", "consistent", "bias"),
    [
        ([(True, False), (True, False)], True, False),
        ([(True, False), (False, True)], False, True),
        ([(None, None), (None, None)], None, None),  # single: nothing to detect
        ([(None, False), (True, False)], True, False),
    ],
)
def test_panel_is_position_consistent_only_when_every_voter_was(
    flags: list[tuple[bool | None, bool | None]], consistent: bool | None, bias: bool | None
) -> None:
    results = [JudgeResult(f"j{i}", "A", 0.8, pc, bd) for i, (pc, bd) in enumerate(flags)]
    verdict = panel_verdict(results)
    assert verdict is not None
    assert (verdict.position_consistent, verdict.bias_detected) == (consistent, bias)


judge_results = st.builds(
    JudgeResult,
    name=st.text(min_size=1, max_size=5),
    winner=st.sampled_from(["A", "B", "tie", None]),
    confidence=st.none() | st.floats(min_value=0.0, max_value=1.0),
    position_consistent=st.sampled_from([True, False, None]),
    bias_detected=st.booleans(),
    role=st.sampled_from(["voter", "audit"]),
)


@given(data=st.data(), results=st.lists(judge_results, max_size=6))
def test_panel_verdict_never_depends_on_the_order_of_the_judges(
    data: st.DataObject, results: list[JudgeResult]
) -> None:
    shuffled = data.draw(st.permutations(results))
    assert panel_verdict(shuffled) == panel_verdict(results)


# --- families --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "explicit", "family"),
    [
        ("gpt-4o", None, "openai"),
        ("GPT-4o-mini", None, "openai"),
        ("o1-preview", None, "openai"),
        ("claude-3-5-sonnet", None, "anthropic"),
        ("gemini-1.5-pro", None, "google"),
        ("Llama-3.1-70B-Instruct", None, "meta"),
        ("mistral-large", None, None),
        ("anthropic/claude-3.5-sonnet", None, "anthropic"),  # OpenRouter's names
        ("OpenAI/gpt-4o", None, "openai"),
        ("google/gemini-2.0-flash-001", None, "google"),
        ("meta-llama/llama-3.1-70b-instruct", None, "meta"),
        ("mistralai/mistral-large", None, None),
        (None, None, None),
        ("", None, None),
        ("gpt-4o", "Acme", "acme"),  # the explicit family wins, compared case-insensitively
        (None, "anthropic", "anthropic"),
        ("claude-3-opus", "  ", "anthropic"),  # a blank family is no family
    ],
)
def test_family_is_explicit_else_the_first_matching_prefix(
    model: str | None, explicit: str | None, family: str | None
) -> None:
    assert family_of(model, explicit, DEFAULT_FAMILY_PREFIXES) == family


def test_first_matching_prefix_wins() -> None:
    prefixes = (("gpt-4", "special"), ("gpt-", "openai"))
    assert family_of("gpt-4o", None, prefixes) == "special"
    assert family_of("gpt-3.5-turbo", None, prefixes) == "openai"


@pytest.mark.parametrize(
    ("text", "prefixes"),
    [
        (
            "gpt-=openai,o1=openai,claude-=anthropic",
            (("gpt-", "openai"), ("o1", "openai"), ("claude-", "anthropic")),
        ),
        (" gpt- = OpenAI , , llama=meta ", (("gpt-", "openai"), ("llama", "meta"))),
        ("", ()),
    ],
)
def test_family_prefix_setting_is_parsed_in_order(
    text: str, prefixes: tuple[tuple[str, str], ...]
) -> None:
    assert parse_family_prefixes(text) == prefixes


@pytest.mark.parametrize("text", ["gpt-", "=openai", "gpt-=", "gpt-=openai,claude"])
def test_malformed_family_prefix_setting_is_rejected(text: str) -> None:
    with pytest.raises(ValueError, match="prefix=family"):
        parse_family_prefixes(text)


# --- self-preference guard -------------------------------------------------------------------

GPT_JUDGE = PanelJudge("gpt-judge", "openai")
CLAUDE_JUDGE = PanelJudge("claude-judge", "anthropic")
GEMINI_JUDGE = PanelJudge("gemini-judge", "google")
LLAMA_JUDGE = PanelJudge("llama-judge", "meta")
MISTRAL_JUDGE = PanelJudge("mistral-judge", "mistral")
HOUSE_JUDGE = PanelJudge("house-judge", None)

GPT_ANSWER = family_of("gpt-4o", None, DEFAULT_FAMILY_PREFIXES)
CLAUDE_ANSWER = family_of("claude-3-5-sonnet", None, DEFAULT_FAMILY_PREFIXES)
LLAMA_ANSWER = family_of("llama-3.1-70b", None, DEFAULT_FAMILY_PREFIXES)
NEVER_AUDITED = 0.99


def plan(
    panel: Sequence[PanelJudge],
    families: tuple[str | None, str | None],
    policy: SelfPreferencePolicy,
    default_panel: Sequence[PanelJudge] = (),
    draws: Mapping[str, float] | None = None,
    audit_rate: float = 0.05,
) -> PanelPlan:
    return plan_panel(
        panel,
        family_a=families[0],
        family_b=families[1],
        policy=policy,
        default_panel=default_panel,
        audit_draw=lambda name: (draws or {}).get(name, NEVER_AUDITED),
        audit_rate=audit_rate,
    )


@pytest.mark.parametrize("policy", POLICIES)
def test_all_conflicted_panel_keeps_every_judge_and_flags_the_risk(
    policy: SelfPreferencePolicy,
) -> None:
    # Every draw audits and the default panel offers no stand-in: still nobody is left out.
    draws = {"gpt-judge": 0.0, "claude-judge": 0.0}
    result = plan(
        [GPT_JUDGE, CLAUDE_JUDGE],
        (GPT_ANSWER, CLAUDE_ANSWER),
        policy,
        default_panel=[GPT_JUDGE, CLAUDE_JUDGE, PanelJudge("o1-judge", "openai")],
        draws=draws,
        audit_rate=1.0,
    )
    assert result == PanelPlan(
        voters=("claude-judge", "gpt-judge"),
        conflicted=("claude-judge", "gpt-judge"),
        self_preference_risk=True,
    )


def test_substitute_replaces_an_all_conflicted_panel_from_the_default_panel() -> None:
    result = plan(
        [GPT_JUDGE, CLAUDE_JUDGE],
        (GPT_ANSWER, CLAUDE_ANSWER),
        "substitute",
        default_panel=[GPT_JUDGE, GEMINI_JUDGE],
    )
    # claude-judge comes first by name and takes the only stand-in; gpt-judge is left out.
    assert result == PanelPlan(
        voters=("gemini-judge",),
        excluded=(("claude-judge", "self_preference"), ("gpt-judge", "self_preference")),
        conflicted=("claude-judge", "gpt-judge"),
        substitutes={"claude-judge": "gemini-judge"},
    )


GPT_VS_LLAMA_PLANS: list[tuple[SelfPreferencePolicy, PanelPlan]] = [
    (
        "exclude",
        PanelPlan(
            voters=("claude-judge",),
            excluded=(("gpt-judge", "self_preference"),),
            conflicted=("gpt-judge",),
        ),
    ),
    (
        "substitute",
        PanelPlan(
            voters=("claude-judge", "gemini-judge"),
            excluded=(("gpt-judge", "self_preference"),),
            conflicted=("gpt-judge",),
            substitutes={"gpt-judge": "gemini-judge"},
        ),
    ),
    (
        "audit",
        PanelPlan(voters=("claude-judge",), audits=("gpt-judge",), conflicted=("gpt-judge",)),
    ),
    (
        "warn",
        PanelPlan(
            voters=("claude-judge", "gpt-judge"),
            conflicted=("gpt-judge",),
            self_preference_risk=True,
        ),
    ),
    (
        "allow",
        PanelPlan(
            voters=("claude-judge", "gpt-judge"),
            conflicted=("gpt-judge",),
            self_preference_risk=True,
        ),
    ),
]


@pytest.mark.parametrize(("policy", "expected"), GPT_VS_LLAMA_PLANS)
def test_gpt_judge_is_conflicted_on_a_gpt_answer_against_a_llama_answer(
    policy: SelfPreferencePolicy, expected: PanelPlan
) -> None:
    # The llama judge of the default panel is conflicted too; gemini is the first clean one.
    default_panel = [GPT_JUDGE, LLAMA_JUDGE, CLAUDE_JUDGE, GEMINI_JUDGE, MISTRAL_JUDGE]
    result = plan([GPT_JUDGE, CLAUDE_JUDGE], (GPT_ANSWER, LLAMA_ANSWER), policy, default_panel)
    assert result == expected
    assert result.running == tuple(sorted(expected.voters + expected.audits))


def test_exclusions_run_as_audit_when_their_draw_falls_under_the_audit_rate() -> None:
    panel = [GPT_JUDGE, PanelJudge("o1-judge", "OpenAI"), CLAUDE_JUDGE]
    draws = {"gpt-judge": 0.01, "o1-judge": 0.05}
    result = plan(panel, (GPT_ANSWER, LLAMA_ANSWER), "exclude", draws=draws, audit_rate=0.05)
    assert result == PanelPlan(
        voters=("claude-judge",),
        audits=("gpt-judge",),
        excluded=(("o1-judge", "self_preference"),),
        conflicted=("gpt-judge", "o1-judge"),
    )


def test_substitutes_are_handed_out_by_name_in_default_panel_order() -> None:
    panel = [PanelJudge("gpt-b", "openai"), CLAUDE_JUDGE, PanelJudge("gpt-a", "openai")]
    default_panel = [LLAMA_JUDGE, GEMINI_JUDGE, CLAUDE_JUDGE, GEMINI_JUDGE, MISTRAL_JUDGE]
    result = plan(panel, (GPT_ANSWER, LLAMA_ANSWER), "substitute", default_panel)
    assert result.substitutes == {"gpt-a": "gemini-judge", "gpt-b": "mistral-judge"}
    assert result.voters == ("claude-judge", "gemini-judge", "mistral-judge")


def test_substitute_without_a_stand_in_excludes_when_a_voter_remains() -> None:
    result = plan([GPT_JUDGE, CLAUDE_JUDGE], (GPT_ANSWER, LLAMA_ANSWER), "substitute", [])
    assert result == PanelPlan(
        voters=("claude-judge",),
        excluded=(("gpt-judge", "self_preference"),),
        conflicted=("gpt-judge",),
    )


@pytest.mark.parametrize("policy", POLICIES)
def test_unknown_families_are_never_conflicted(policy: SelfPreferencePolicy) -> None:
    result = plan([HOUSE_JUDGE, GPT_JUDGE], (None, family_of("mistral-large", None)), policy)
    assert result == PanelPlan(voters=("gpt-judge", "house-judge"))


def test_panel_with_a_judge_named_twice_is_rejected() -> None:
    with pytest.raises(ValueError, match="twice"):
        plan([GPT_JUDGE, GPT_JUDGE], (None, None), "exclude")


families = st.sampled_from([None, "openai", "OpenAI", "anthropic", "meta", "google"])
panel_judges = st.builds(PanelJudge, name=st.sampled_from("abcdefgh"), family=families)


@given(
    data=st.data(),
    panel=st.lists(panel_judges, max_size=6, unique_by=lambda judge: judge.name),
    default_panel=st.lists(panel_judges, max_size=6),
    response_families=st.tuples(families, families),
    policy=st.sampled_from(POLICIES),
    draws=st.dictionaries(st.sampled_from("abcdefgh"), st.floats(0.0, 0.999)),
    audit_rate=st.floats(0.0, 1.0),
)
def test_plan_never_depends_on_the_order_of_the_panel(
    data: st.DataObject,
    panel: list[PanelJudge],
    default_panel: list[PanelJudge],
    response_families: tuple[str | None, str | None],
    policy: SelfPreferencePolicy,
    draws: dict[str, float],
    audit_rate: float,
) -> None:
    shuffled = data.draw(st.permutations(panel))
    result = plan(panel, response_families, policy, default_panel, draws, audit_rate)
    assert plan(shuffled, response_families, policy, default_panel, draws, audit_rate) == result
    # Every requested judge ends up in exactly one place, and the risk flag tells the truth.
    excluded = [name for name, _ in result.excluded]
    stand_ins = list(result.substitutes.values())
    placed = [name for name in result.voters if name not in stand_ins]
    assert sorted(placed + list(result.audits) + excluded) == sorted(j.name for j in panel)
    assert bool(result.voters) == bool(panel)
    assert result.self_preference_risk == bool(set(result.conflicted) & set(result.voters))
