"""Leave-one-judge-out rank agreement (issue 41): how much the ranking owes to any one judge of a
panel. Pure.

Each outcome keeps its stored verdict and its voting judges' own debiased winners
(`judge_results`, audits left out). Leaving judge J out, the outcomes J did not vote on keep
their verdict, and every other outcome's verdict is the panel rule (`comparisons.panels`: the
majority of the remaining voters' decisive winners, else a tie) over the voters other than J; an
outcome J judged alone has no verdict and drops out. Bradley-Terry is refitted on what is left
exactly as the board is fitted (largest connected component, the same penalty), and Kendall's
τ-b compares those strengths with a fit of the same outcomes' stored verdicts over the models
rated in both. The outcomes are the most recent `MAX_OUTCOMES` of the board's (STATISTICS.md,
"Leaderboard: fragility").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from app import stats
from app.comparisons.panels import JudgeResult, panel_verdict
from app.comparisons.protocols import Winner
from app.leaderboard.ratings import Game, component_strengths

# Leave-one-judge-out refits the most recent outcomes up to this many: one refit per judge of
# every fitted outcome would cost seconds at the board's 100,000 (BENCHMARKS.md, "Leaderboard").
MAX_OUTCOMES = 20_000

# The outcome for model A of each verdict (as `ledger.gold`, which this pure module does not
# import: it reads the database).
CREDIT_OF_A = {"A": 1.0, "tie": 0.5, "B": 0.0}


@dataclass(frozen=True)
class PanelOutcome:
    """One outcome between two models: the stored (panel) verdict and each voting judge's own
    winner, sorted by judge."""

    model_a: str
    model_b: str
    winner: Winner
    voters: tuple[tuple[str, Winner], ...]


@dataclass(frozen=True)
class JudgeOut:
    """The board without one judge, against the full board."""

    judge: str
    voted: int  # outcomes the judge voted on
    n: int  # outcomes left with a verdict without it
    changed: int  # outcomes whose verdict differs without it (dropped ones not counted)
    models: int  # models rated on the full board and without it
    kendall_tau: float | None  # τ-b over those models; None below two or with all tied


@lru_cache(maxsize=4096)
def verdict(voters: tuple[tuple[str, Winner], ...]) -> Winner | None:
    """The panel rule over these voters; None without any (cached: few vote patterns recur)."""
    result = panel_verdict([JudgeResult(name=name, winner=winner) for name, winner in voters])
    return None if result is None else result.winner


def leave_one_judge_out(outcomes: Sequence[PanelOutcome]) -> list[JudgeOut] | None:
    """Per voting judge (by name), the board refitted without it against the board fitted on
    the same outcomes with every judge; None when fewer than two judges voted: there is no
    panel to leave one out of."""
    judges = sorted({name for outcome in outcomes for name, _ in outcome.voters})
    if len(judges) < 2:
        return None
    # Outcomes with the same models and votes give the same game: fold them once.
    folded = Counter(outcomes)
    full, _, _, _ = refit(folded, None)
    answers = []
    for judge in judges:
        refitted, n, voted, changed = refit(folded, judge)
        common = sorted(set(refitted) & set(full))
        tau = (
            stats.kendall_tau_b([full[m] for m in common], [refitted[m] for m in common])
            if len(common) >= 2
            else None
        )
        answers.append(JudgeOut(judge, voted, n, changed, len(common), tau))
    return answers


def refit(
    folded: Counter[PanelOutcome], judge: str | None
) -> tuple[dict[str, float], int, int, int]:
    """Strengths (model → θ of the rated models) fitted without `judge` (None: with every
    judge, on the stored verdicts), the outcomes fitted, those it voted on, and those whose
    verdict changed without it."""
    kept: Counter[tuple[str, str, Winner]] = Counter()
    voted = changed = 0
    for outcome, count in folded.items():
        if all(name != judge for name, _ in outcome.voters):
            kept[(outcome.model_a, outcome.model_b, outcome.winner)] += count
            continue
        voted += count
        without = verdict(tuple(voter for voter in outcome.voters if voter[0] != judge))
        if without is None:
            continue
        changed += count * (without != outcome.winner)
        kept[(outcome.model_a, outcome.model_b, without)] += count
    names = sorted({model for a, b, _ in kept for model in (a, b)})
    index = {name: k for k, name in enumerate(names)}
    games: list[Game] = []
    for (model_a, model_b, winner), count in sorted(kept.items()):
        games += [(index[model_a], index[model_b], CREDIT_OF_A[winner])] * count
    members, theta = component_strengths(len(names), games)
    strengths = {names[m]: float(theta[k]) for k, m in enumerate(members)}
    return strengths, len(games), voted, changed
