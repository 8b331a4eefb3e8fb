"""The report's pointwise-scoring sections: `reviewers`, `position_score`, `length_score`.

STATISTICS.md "Pointwise scoring", computed per rubric. SQL accumulates every count and sum; the
additive model s = μ + α_item + β_reviewer + γ_position + ε is solved from per-item sums with
`effects_from_sums`, over every informative score of the largest connected component. Decisions
where the spec leaves room:

- Every section but the own-family gap reads counted scores only (`queries.scope`): audit
  scores are out of the means, so they are out of the offsets that calibrate them.
- Point estimates (offsets, position effects) use all data in scope. The cluster-robust
  covariance needs each call's residuals, so it is computed from the most recent
  `MAX_OBSERVATIONS` informative scores (`sampled`, `n_used`); when sampled, the CI is the
  sample's half-width around the all-data estimate (wider than the truth: conservative).
- The judge filter narrows the `reviewers` list and `length_score`; offsets and position effects
  are always fitted over the whole panel in scope, because offsets are relative to it.
- `position_score` and `length_score` cover one rubric: the `rubric` filter, else the rubric with
  the most scores in scope. `position_score.tier` counts the informative scores of the fit.
- Reviewers are judges by name, across versions (filter `judge_version` to separate them).
- Each reviewer's `self_preference` (issue 22) is the own-family score gap of
  `ReviewerSelfPreferenceRead`, over the most recent `MAX_AUDITED_SESSIONS` sessions in which
  some reviewer scored a response of its own family; audit scores (not counted in means) are
  its data. It is computed for the report only, not for the calibration snapshots.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from app.scoring import queries
from app.scoring.design import ComponentFit, fit_component, largest_component
from app.scoring.queries import MAX_AUDITED_SESSIONS, MAX_OBSERVATIONS, ScoringFilters
from app.scoring.schemas import (
    LengthScoreSection,
    PositionEffectRead,
    PositionScoreSection,
    ReviewerCorrelationRead,
    ReviewerRead,
    ReviewerSelfPreferenceRead,
    ScoringSections,
)
from app.scoring.stats import (
    FamilyScore,
    PooledCorrelationRead,
    classify_offset,
    descriptive_z,
    fisher_pool,
    own_family_gap,
    own_family_gaps,
)
from app.stats import tier


@dataclass(frozen=True)
class RubricRange:
    """A rubric's id and scale."""

    id: str
    low: float
    high: float

    @property
    def margin_default(self) -> float:
        """STATISTICS.md's τ: a tenth of the rubric's range."""
        return 0.1 * (self.high - self.low)


@dataclass(frozen=True)
class RubricFit:
    """Reviewer offsets and position effects of one rubric."""

    rubric: RubricRange
    reviewers: list[ReviewerRead]
    position_score: PositionScoreSection


# Sections


def reviewer_entry(
    name: str,
    rubric: RubricRange,
    totals: Any,
    n_informative: int,
    fit: ComponentFit | None,
    margin: float,
) -> ReviewerRead:
    """One reviewer's row of `reviewers`."""
    n, s, ss = int(totals.n), float(totals.s), float(totals.ss)
    entry = ReviewerRead(
        reviewer=name, rubric=rubric.id, n=n_informative, n_total=n, raw_mean=s / n,
        sd=math.sqrt(max(0.0, (ss - s * s / n) / (n - 1))) if n > 1 else None,
        offset=None, ci95=None, z=None, classification=None,
        tier=tier("reviewer_scores", n_informative), reason=None,
        sampled=fit.sampled if fit else False, n_used=fit.n_used if fit else 0,
    )  # fmt: skip
    if fit is None or name not in fit.reviewers:
        entry.reason = "insufficient_data" if n_informative == 0 else "disconnected_design"
        return entry
    if entry.tier == "insufficient":
        entry.reason = "insufficient_data"
        return entry
    k = fit.reviewers.index(name)
    entry.offset = float(fit.offsets[k])
    entry.ci95 = fit.interval(entry.offset, fit.offset_variance(name))
    z = descriptive_z(fit.offsets)
    entry.z = None if z is None else float(z[k])
    entry.classification = None if entry.ci95 is None else classify_offset(entry.ci95, margin)
    return entry


def position_section(
    rubric: RubricRange, fit: ComponentFit | None, position_rows: Sequence[Any]
) -> PositionScoreSection:
    """γ per position with CIs and the F-test; the variance of raw position means."""
    means = [float(r.s) / int(r.n) for r in position_rows]
    variance = float(np.var(means, ddof=1)) if len(means) >= 2 else None
    n = fit.n if fit else 0
    flag_above = 0.5 * ((rubric.high - rubric.low) / 4) ** 2
    section = PositionScoreSection(
        rubric=rubric.id, n=n, by_position=[], position_p=None,
        variance_of_position_means=variance,
        variance_flag=variance is not None and variance > flag_above,
        tier=tier("reviewer_scores", n), reason=None,
        sampled=fit.sampled if fit else False, n_used=fit.n_used if fit else 0,
    )  # fmt: skip
    if fit is None or section.tier == "insufficient":
        section.reason = "insufficient_data"
        return section
    if fit.position_effects is None:
        section.reason = "not_identified"
        return section
    for k, position in enumerate(fit.positions):
        effect = float(fit.position_effects[k])
        section.by_position.append(
            PositionEffectRead(
                position=position,
                n=fit.position_counts[k],
                effect=effect,
                ci95=fit.interval(effect, fit.position_variance(position)),
            )
        )
    section.position_p = fit.covariance.position_p if fit.covariance else None
    return section


async def rubric_fit(
    session: AsyncSession, filters: ScoringFilters, rubric: RubricRange, margin: float | None
) -> RubricFit:
    """Reviewer offsets (every reviewer in scope) and position effects of one rubric."""
    scoped = replace(filters, rubric=rubric.id)
    tau = rubric.margin_default if margin is None else margin
    totals = {r.reviewer: r for r in await queries.reviewer_totals(session, scoped)}
    informative = {r.reviewer: int(r.n) for r in await queries.informative_counts(session, scoped)}
    component = await largest_component(session, scoped, informative)
    fit = await fit_component(session, scoped, component) if component else None
    reviewers = [
        reviewer_entry(name, rubric, totals[name], informative.get(name, 0), fit, tau)
        for name in sorted(totals)
    ]
    position_rows = await queries.position_sums(session, scoped)
    return RubricFit(rubric, reviewers, position_section(rubric, fit, position_rows))


async def self_preference_by_reviewer(
    session: AsyncSession,
    filters: ScoringFilters,
    rubric: RubricRange,
    margin: float | None,
    reviewers: Sequence[str],
) -> dict[str, ReviewerSelfPreferenceRead]:
    """Each reviewer's own-family score gap on one rubric, over the most recent
    `MAX_AUDITED_SESSIONS` sessions where some reviewer scored its own family's response."""
    scoped = replace(filters, rubric=rubric.id)
    sessions = await queries.audited_sessions(session, scoped, MAX_AUDITED_SESSIONS + 1)
    sampled = len(sessions) > MAX_AUDITED_SESSIONS
    rows = await queries.family_scores(session, scoped, sessions[:MAX_AUDITED_SESSIONS])
    gaps = own_family_gaps([FamilyScore._make(row) for row in rows])
    tau = rubric.margin_default if margin is None else margin
    return {
        name: ReviewerSelfPreferenceRead(
            **asdict(own_family_gap(gaps.get(name, []), tau)), sampled=sampled
        )
        for name in reviewers
    }


def _pooled(correlations: list[tuple[float, int]]) -> PooledCorrelationRead:
    return fisher_pool(correlations)


def _pooled_over_sessions(correlations: list[tuple[str, float, int]]) -> PooledCorrelationRead:
    """The pool over every reviewer: `sessions` and the tier count distinct sessions (several
    reviewers of one session are one session), estimates withheld below tier preliminary."""
    pooled = fisher_pool([(r, n) for _, r, n in correlations])
    pooled.sessions = len({session for session, r, _ in correlations if abs(r) < 1})
    pooled.tier = tier("sessions", pooled.sessions)
    if pooled.tier == "insufficient":
        pooled.pooled_r = pooled.ci95 = pooled.q = pooled.i2 = None
        pooled.heterogeneous, pooled.band = None, None
        pooled.reason = "insufficient_data"
    return pooled


async def length_section(
    session: AsyncSession, filters: ScoringFilters, rubric: str | None
) -> LengthScoreSection:
    """Fisher-pooled length-score correlation, overall and by reviewer."""
    scoped = replace(filters, rubric=rubric)
    rows = await queries.length_moments(session, scoped, MAX_OBSERVATIONS + 1)
    sampled, rows = len(rows) > MAX_OBSERVATIONS, rows[:MAX_OBSERVATIONS]
    by_reviewer: dict[str, list[tuple[float, int]]] = {}
    overall: list[tuple[str, float, int]] = []
    for row in rows:
        r = float(row.sxy) / math.sqrt(float(row.sxx) * float(row.syy))
        by_reviewer.setdefault(row.reviewer, []).append((r, int(row.n)))
        overall.append((row.session_id, r, int(row.n)))
    return LengthScoreSection(
        **_pooled_over_sessions(overall).model_dump(),
        rubric=rubric,
        by_reviewer=[
            ReviewerCorrelationRead(reviewer=name, **_pooled(by_reviewer[name]).model_dump())
            for name in sorted(by_reviewer)
        ],
        sampled=sampled,
        n_used=len(rows),
    )


async def scoring_sections(
    session: AsyncSession, filters: ScoringFilters, margin: float | None = None
) -> ScoringSections:
    """`reviewers` of every rubric in scope; `position_score` and `length_score` of one."""
    found = await queries.rubrics(session, filters)
    ranges = {r.rubric: RubricRange(r.rubric, float(r.low), float(r.high)) for r in found}
    chosen = filters.rubric or (
        min(found, key=lambda r: (-int(r.n), r.rubric)).rubric if found else None
    )
    reviewers: list[ReviewerRead] = []
    position: PositionScoreSection | None = None
    for rubric_id in sorted(ranges):
        rubric = ranges[rubric_id]
        fit = await rubric_fit(session, filters, rubric, margin)
        names = [entry.reviewer for entry in fit.reviewers]
        gaps = await self_preference_by_reviewer(session, filters, rubric, margin, names)
        for entry in fit.reviewers:
            entry.self_preference = gaps[entry.reviewer]
        reviewers += [e for e in fit.reviewers if filters.judge in (None, e.reviewer)]
        if rubric_id == chosen:
            position = fit.position_score
    if position is None:
        position = position_section(RubricRange(chosen or "", 0, 0), None, [])
        position.rubric = chosen
    length = await length_section(session, filters, chosen)
    return ScoringSections(reviewers=reviewers, position_score=position, length_score=length)
