"""The reviewer model on the largest connected component of one rubric's design.

The additive model is solved from sums SQL accumulates (`effects_from_sums`): per (reviewer,
position) cell and per informative item. The cluster-robust covariance needs each call's
residuals, so it is fitted on the most recent `MAX_OBSERVATIONS` informative scores; when those
are a sample, the CI is the sample's half-width around the all-data estimate (conservative).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy.ext.asyncio import AsyncSession

from app.scoring import queries
from app.scoring.queries import MAX_OBSERVATIONS, ScoringFilters
from app.scoring.stats import (
    AdditiveFit,
    DesignSums,
    FloatArray,
    ScoreRow,
    connected_rows,
    effects_from_sums,
    fit_additive_model,
    informative_rows,
)
from app.stats import Z95, Interval

# How far below zero a variance may come out of floating-point sums and still be zero.
ROUNDING = 1e-12


@dataclass(frozen=True)
class ComponentFit:
    """The additive model on the largest connected component of one rubric."""

    reviewers: list[str]
    positions: list[int]
    offsets: FloatArray
    position_effects: FloatArray | None
    position_counts: list[int]
    n: int
    covariance: AdditiveFit | None  # fitted on the most recent scores, for the CIs
    sampled: bool
    n_used: int

    def interval(self, point: float, variance: float | None) -> Interval | None:
        """point ± z·√variance, or None without a finite, non-negative variance."""
        if variance is None or not math.isfinite(variance) or variance < -ROUNDING:
            return None
        # A zero variance (every residual zero) can come out of the sandwich as -1e-17.
        half = Z95 * math.sqrt(max(variance, 0.0))
        return point - half, point + half

    def offset_variance(self, reviewer: str) -> float | None:
        """Cluster-robust variance of a reviewer's offset."""
        cov = self.covariance
        if cov is None or reviewer not in cov.reviewers:
            return None
        k = cov.reviewers.index(reviewer)
        return float(cov.reviewer_cov[k, k])

    def position_variance(self, position: int) -> float | None:
        """Cluster-robust variance of a position's effect."""
        cov = self.covariance
        if cov is None or cov.position_cov is None or position not in cov.positions:
            return None
        k = cov.positions.index(position)
        return float(cov.position_cov[k, k])


def _components(names: Sequence[str], links: Sequence[tuple[str, str]]) -> list[list[str]]:
    parent = {name: name for name in names}

    def root(name: str) -> str:
        while parent[name] != name:
            parent[name] = parent[parent[name]]
            name = parent[name]
        return name

    for a, b in links:
        if a in parent and b in parent:
            parent[root(a)] = root(b)
    groups: dict[str, list[str]] = {}
    for name in sorted(names):
        groups.setdefault(root(name), []).append(name)
    return sorted(groups.values())


async def largest_component(
    session: AsyncSession, filters: ScoringFilters, informative: dict[str, int]
) -> list[str]:
    """Reviewers of the component with the most nodes (reviewers + items); ties: first name."""
    links = [(r.a, r.b) for r in await queries.reviewer_links(session, filters)]
    components = _components(list(informative), links)
    if len(components) <= 1:
        return components[0] if components else []
    sizes = [len(c) + await queries.component_items(session, filters, c) for c in components]
    return components[sizes.index(max(sizes))]


# The additive model from SQL sums


def design_sums(
    cells: Sequence[Any], items: Sequence[Any], reviewers: list[str], positions: list[int]
) -> DesignSums:
    """`DesignSums` from (reviewer, position) cells and per-item rows of counts."""
    width = len(reviewers) + len(positions)
    zz, zs = np.zeros((width, width)), np.zeros(width)
    for cell in cells:
        j = reviewers.index(cell.reviewer)
        p = len(reviewers) + positions.index(cell.position)
        for a, b in ((j, j), (p, p), (j, p), (p, j)):
            zz[a, b] += cell.n
        zs[j] += cell.s
        zs[p] += cell.s
    table = np.array([tuple(row) for row in items], dtype=np.float64).reshape(-1, width + 2)
    return DesignSums(zz=zz, zs=zs, item_n=table[:, 0], item_z=table[:, 2:], item_s=table[:, 1])


def _covariance_fit(rows: Sequence[Any], sampled: bool) -> AdditiveFit | None:
    score_rows = [
        ScoreRow(
            f"{r.session_id}/{r.response_index}", r.reviewer, r.position, r.score, str(r.call_id)
        )
        for r in rows
    ]
    if sampled:  # a cut can leave items with one reviewer, or split the design
        score_rows = connected_rows(informative_rows(score_rows))
    try:
        return fit_additive_model(score_rows) if score_rows else None
    except ValueError:
        return None


async def fit_component(
    session: AsyncSession, filters: ScoringFilters, reviewers: list[str]
) -> ComponentFit | None:
    """Offsets and position effects from SQL sums; covariances from the recent rows."""
    cells = await queries.cell_sums(session, filters, reviewers)
    positions = sorted({int(c.position) for c in cells})
    items = await queries.item_sums(session, filters, reviewers, positions)
    try:
        offsets, gammas = effects_from_sums(
            design_sums(cells, items, reviewers, positions), len(reviewers), len(positions)
        )
    except ValueError:
        return None
    rows = await queries.fit_rows(session, filters, reviewers, MAX_OBSERVATIONS + 1)
    sampled = len(rows) > MAX_OBSERVATIONS
    rows = rows[:MAX_OBSERVATIONS]
    counts = [sum(int(c.n) for c in cells if c.position == p) for p in positions]
    return ComponentFit(
        reviewers=reviewers,
        positions=positions,
        offsets=offsets,
        position_effects=gammas,
        position_counts=counts,
        n=sum(counts),
        covariance=_covariance_fit(rows, sampled),
        sampled=sampled,
        n_used=len(rows),
    )
