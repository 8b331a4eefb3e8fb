"""Which reviewer scores which response: the self-preference policy applied per response.

Pure functions (PRODUCT.md capabilities 2 and 3). Each response is planned on its own with the
pairwise panel rules of `app.jobs.panels.plan_panel`, as a "comparison" with one known
family. So, per response and policy:

- `exclude` (default): a reviewer of the response's family does not score it, when at least one
  reviewer of another (or unknown) family does; if all are conflicted, all score it and the
  session says `self_preference_risk`. A share `audit_rate` of those exclusions (drawn once per
  reviewer and session) score as audits instead.
- `audit`: conflicted reviewers score it, stored but kept out of the response's means.
- `warn`, `allow`: they score it and count; `warn` lists them in `conflicted`.
- `substitute`: the first non-conflicted default-panel judge not in the panel scores it instead.

A reviewer's call then shows exactly the responses it scores, in its own random order; a
requested reviewer left with none makes no call and is listed in `excluded`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from app.jobs.panels import PanelJudge, SelfPreferencePolicy, plan_panel


@dataclass(frozen=True)
class ResponsePlan:
    """Who scores one response: voters count in its means, audits are stored only."""

    voters: tuple[str, ...]
    audits: tuple[str, ...] = ()
    excluded: tuple[str, ...] = ()
    conflicted: tuple[str, ...] = ()
    self_preference_risk: bool = False

    @property
    def scorers(self) -> tuple[str, ...]:
        """Every reviewer that scores the response."""
        return tuple(sorted(self.voters + self.audits))


@dataclass(frozen=True)
class ScoringPlan:
    """The per-response plans of one session."""

    responses: tuple[ResponsePlan, ...]
    requested: tuple[str, ...]

    @property
    def reviewers(self) -> tuple[str, ...]:
        """Every reviewer with at least one response to score, sorted."""
        return tuple(sorted({name for plan in self.responses for name in plan.scorers}))

    def shown_to(self, reviewer: str) -> list[int]:
        """The indices of the responses a reviewer scores."""
        return [i for i, plan in enumerate(self.responses) if reviewer in plan.scorers]

    @property
    def excluded(self) -> tuple[str, ...]:
        """Requested reviewers that score nothing."""
        return tuple(sorted(set(self.requested) - set(self.reviewers)))

    @property
    def conflicted(self) -> tuple[str, ...]:
        """Reviewers conflicted on at least one response."""
        return tuple(sorted({name for plan in self.responses for name in plan.conflicted}))

    @property
    def self_preference_risk(self) -> bool:
        """Some response was scored by conflicted reviewers only."""
        return any(plan.self_preference_risk for plan in self.responses)

    def to_json(self) -> dict[str, Any]:
        """The stored form."""
        return {
            "requested": list(self.requested),
            "responses": [
                {
                    "voters": list(p.voters),
                    "audits": list(p.audits),
                    "excluded": list(p.excluded),
                    "conflicted": list(p.conflicted),
                    "self_preference_risk": p.self_preference_risk,
                }
                for p in self.responses
            ],
        }

    @classmethod
    def from_json(cls, stored: dict[str, Any]) -> ScoringPlan:
        """The plan back from its stored form."""
        return cls(
            responses=tuple(
                ResponsePlan(
                    voters=tuple(p["voters"]),
                    audits=tuple(p["audits"]),
                    excluded=tuple(p["excluded"]),
                    conflicted=tuple(p["conflicted"]),
                    self_preference_risk=p["self_preference_risk"],
                )
                for p in stored["responses"]
            ),
            requested=tuple(stored["requested"]),
        )


def plan_scoring(
    panel: Sequence[PanelJudge],
    response_families: Sequence[str | None],
    *,
    policy: SelfPreferencePolicy,
    default_panel: Sequence[PanelJudge],
    audit_draw: Callable[[str], float],
    audit_rate: float,
) -> ScoringPlan:
    """Plan every response of a session; the order of the panel list never matters."""
    plans = []
    for family in response_families:
        plan = plan_panel(
            panel,
            family_a=family,
            family_b=None,
            policy=policy,
            default_panel=default_panel,
            audit_draw=audit_draw,
            audit_rate=audit_rate,
        )
        plans.append(
            ResponsePlan(
                voters=plan.voters,
                audits=plan.audits,
                excluded=tuple(name for name, _ in plan.excluded),
                conflicted=plan.conflicted,
                self_preference_risk=plan.self_preference_risk,
            )
        )
    return ScoringPlan(tuple(plans), tuple(sorted(j.name for j in panel)))
