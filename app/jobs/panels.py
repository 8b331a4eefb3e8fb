"""Who may judge a job: the self-preference guard every kind of job plans its panel with.

Pure functions (PRODUCT.md, capability 2). Nothing here depends on the order of the panel list:
plans return names sorted.

Rules decided here, where PRODUCT.md is silent:

- Families are compared case-insensitively; a blank family counts as unknown. Unknown is never
  conflicted.
- ``conflicted`` lists every conflicted judge of the requested panel under every policy (the API
  shows it as the warning under ``warn``). ``excluded`` lists judges that do not run at all;
  audits run, so they are in ``audits`` and not in ``excluded``.
- The audit share applies to ``exclude`` only, decided per judge by ``audit_draw(name) <
  audit_rate`` (the caller seeds the draw, e.g. by comparison id and judge name).
- ``substitute``: the conflicted judges, sorted by name, take the default panel's non-conflicted
  judges that are not in the panel, in default-panel order. Conflicted judges left without a
  substitute are excluded too when at least one voter remains, else everyone votes with
  ``self_preference_risk``.
"""

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, get_args

# A judge's and a response's family are resolved by one function, below the judges registry.
from app.judging.families import (
    DEFAULT_FAMILY_PREFIXES,
    family_of,
    normalized_family,
    parse_family_prefixes,
)

__all__ = [
    "DEFAULT_FAMILY_PREFIXES",
    "PanelJudge",
    "PanelPlan",
    "Role",
    "SelfPreferencePolicy",
    "family_of",
    "parse_family_prefixes",
    "plan_panel",
]

Role = Literal["voter", "audit"]
SelfPreferencePolicy = Literal["exclude", "substitute", "audit", "warn", "allow"]
ExclusionReason = Literal["self_preference"]


@dataclass(frozen=True)
class PanelJudge:
    """A judge asked for by a request, with the model family it belongs to."""

    name: str
    family: str | None


@dataclass(frozen=True)
class PanelPlan:
    """Who runs on a comparison, in which role, and what the self-preference guard did."""

    voters: tuple[str, ...]
    audits: tuple[str, ...] = ()
    excluded: tuple[tuple[str, ExclusionReason], ...] = ()
    conflicted: tuple[str, ...] = ()
    substitutes: Mapping[str, str] = field(default_factory=dict)  # excluded judge -> stand-in
    self_preference_risk: bool = False

    @property
    def running(self) -> tuple[str, ...]:
        """Every judge to call: voters and audits."""
        return tuple(sorted(self.voters + self.audits))


def plan_panel(
    panel: Sequence[PanelJudge],
    *,
    family_a: str | None,
    family_b: str | None,
    policy: SelfPreferencePolicy,
    default_panel: Sequence[PanelJudge],
    audit_draw: Callable[[str], float],
    audit_rate: float,
) -> PanelPlan:
    """Apply the self-preference policy to a requested panel; order of the panel never matters."""
    _check_request(panel, policy, audit_rate)
    response_families = _families(family_a, family_b)
    conflicted = tuple(sorted(j.name for j in panel if _is_conflicted(j, response_families)))
    clean = tuple(sorted(j.name for j in panel if j.name not in conflicted))
    if not conflicted:
        return PanelPlan(voters=clean)
    if policy == "substitute":
        stand_ins = _stand_ins(default_panel, {j.name for j in panel}, response_families)
        return _substitute(clean, conflicted, stand_ins)
    if not clean or policy in ("warn", "allow"):
        return _everyone_votes(clean, conflicted)
    if policy == "audit":
        return PanelPlan(voters=clean, audits=conflicted, conflicted=conflicted)
    return _exclude(clean, conflicted, audit_draw, audit_rate)


def _families(*families: str | None) -> frozenset[str]:
    return frozenset(f for f in map(normalized_family, families) if f is not None)


def _is_conflicted(judge: PanelJudge, response_families: Collection[str]) -> bool:
    family = normalized_family(judge.family)
    return family is not None and family in response_families


def _check_request(
    panel: Sequence[PanelJudge], policy: SelfPreferencePolicy, audit_rate: float
) -> None:
    names = [judge.name for judge in panel]
    if len(set(names)) != len(names):
        raise ValueError("a judge appears twice in the panel")
    if policy not in get_args(SelfPreferencePolicy):
        raise ValueError(f"unknown self-preference policy {policy!r}")
    if not 0.0 <= audit_rate <= 1.0:
        raise ValueError(f"audit_rate must be in [0, 1], got {audit_rate}")


def _everyone_votes(clean: tuple[str, ...], conflicted: tuple[str, ...]) -> PanelPlan:
    return PanelPlan(
        voters=tuple(sorted(clean + conflicted)),
        conflicted=conflicted,
        self_preference_risk=True,
    )


def _exclude(
    clean: tuple[str, ...],
    conflicted: tuple[str, ...],
    audit_draw: Callable[[str], float],
    audit_rate: float,
) -> PanelPlan:
    audits = tuple(name for name in conflicted if audit_draw(name) < audit_rate)
    return PanelPlan(
        voters=clean,
        audits=audits,
        excluded=tuple((name, "self_preference") for name in conflicted if name not in audits),
        conflicted=conflicted,
    )


def _stand_ins(
    default_panel: Sequence[PanelJudge], panel_names: Collection[str], families: Collection[str]
) -> tuple[str, ...]:
    stand_ins: list[str] = []
    for judge in default_panel:
        eligible = judge.name not in panel_names and not _is_conflicted(judge, families)
        if eligible and judge.name not in stand_ins:
            stand_ins.append(judge.name)
    return tuple(stand_ins)


def _substitute(
    clean: tuple[str, ...], conflicted: tuple[str, ...], stand_ins: tuple[str, ...]
) -> PanelPlan:
    substitutes = dict(zip(conflicted, stand_ins, strict=False))
    voters = tuple(sorted(clean + tuple(substitutes.values())))
    if not voters:
        return _everyone_votes(clean, conflicted)
    return PanelPlan(
        voters=voters,
        excluded=tuple((name, "self_preference") for name in conflicted),
        conflicted=conflicted,
        substitutes=substitutes,
    )
