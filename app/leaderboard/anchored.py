"""The leaderboard's human-anchored ratings: Bradley-Terry by PPI++ (`app.ppi.ppi_bradley_terry`)
over every comparison of the rated models, corrected by those with a gold label from the random
queue (docs/STATISTICS.md "Leaderboard: anchored ratings"). Pure: counts in, figures out."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from app import ppi, stats
from app.leaderboard.ratings import rating
from app.leaderboard.schemas import AnchoredRatings, AnchoredRatingsReason, Interval
from app.ledger.gold import Y_OF_WINNER, OutcomeCount

PairOutcome = tuple[str, str, OutcomeCount]  # model A, model B, their counted outcome


def games(
    pairs: Sequence[PairOutcome], index: dict[str, int]
) -> tuple[list[ppi.LabelledGame], list[ppi.JudgedGame]]:
    """The rated models' comparisons: those with a queue gold label, and the rest (disputed or
    unlabelled), grouped by outcome."""
    labelled: list[ppi.LabelledGame] = []
    rest: list[ppi.JudgedGame] = []
    for model_a, model_b, count in sorted(pairs, key=lambda p: (p[0], p[1], str(p[2]))):
        if model_a not in index or model_b not in index:
            continue
        i, j, yhat = index[model_a], index[model_b], Y_OF_WINNER[count.verdict]
        if count.gold is not None:
            labelled.append((i, j, Y_OF_WINNER[count.gold], yhat, count.count))
        else:
            rest.append((i, j, yhat, count.count))
    return labelled, rest


def anchored_ratings(
    pairs: Sequence[PairOutcome], rated: Sequence[str]
) -> tuple[AnchoredRatings, dict[str, tuple[float, Interval]]]:
    """The fit's summary, and per rated model its anchored rating and interval (empty with a
    reason when there is none)."""
    index = {model: k for k, model in enumerate(rated)}
    labelled, rest = games(pairs, index)
    n_labelled = sum(g[4] for g in labelled)
    n = n_labelled + sum(g[3] for g in rest)
    reason = why_not(len(rated), n_labelled, rest)
    fit = None
    if reason is None:
        try:
            fit = ppi.ppi_bradley_terry(len(rated), labelled, rest)
        except (ValueError, np.linalg.LinAlgError):
            reason = "not_identified"
    summary = AnchoredRatings(
        n=n, n_labelled=n_labelled, lam=None if fit is None else fit.lam, reason=reason
    )
    if fit is None:
        return summary, {}
    return summary, {
        model: (rating(fit.theta[k]), (rating(fit.ci95[k][0]), rating(fit.ci95[k][1])))
        for model, k in index.items()
    }


def why_not(
    models: int, n_labelled: int, rest: list[ppi.JudgedGame]
) -> AnchoredRatingsReason | None:
    """Why no anchored ratings can be fitted, if none can."""
    if models < 2:
        return "no_comparisons"
    if n_labelled == 0:
        return "no_labels"
    if stats.tier("labelled", n_labelled) == "insufficient":
        return "insufficient_data"
    if not rest:
        return "no_unlabelled"
    return None
