"""The leaderboard use case: read outcomes, fit off the event loop, cache until new data arrives."""

from __future__ import annotations

import asyncio
import itertools
import weakref
from collections import OrderedDict, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Annotated

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import ppi
from app.db import utcnow
from app.deps import from_state
from app.leaderboard import anchored, fragility, judges_out, queries, ratings
from app.leaderboard.anchored import PairOutcome
from app.leaderboard.judges_out import PanelOutcome
from app.leaderboard.queries import BaselineGame, LeaderboardFilters, PairCount, Watermark
from app.leaderboard.ratings import Game
from app.leaderboard.schemas import (
    AnchoredBaselineWinRate,
    AnchoredReason,
    BaselineWinRate,
    Fragility,
    JudgeLeftOut,
    Leaderboard,
    LeaderboardFiltersRead,
    LeaveOneJudgeOut,
    ModelStanding,
    PairFragility,
)
from app.ledger.gold import Y_OF_WINNER, OutcomeCount, outcomes_of

BOOTSTRAP_ROUNDS = 200
BOOTSTRAP_SEED = 0


@dataclass(frozen=True)
class LeaderboardQuery:
    """What a leaderboard answer depends on besides the data: its cache key."""

    filters: LeaderboardFilters = field(default_factory=LeaderboardFilters)
    baseline: str | None = None


@dataclass(frozen=True)
class Outcomes:
    """What the fit needs: verdict counts over all outcomes and over the fitted (recent) ones."""

    totals: list[PairCount]
    fitted: list[PairCount]
    sampled: bool
    baseline_games: list[BaselineGame]
    # Per model, its outcomes against the baseline with the queue's gold labels.
    anchored: dict[str, list[OutcomeCount]] = field(default_factory=dict)
    # Every outcome per model pair with the queue's gold: the anchored ratings' data.
    labelled_pairs: list[PairOutcome] = field(default_factory=list)
    # The fitted outcomes with each voting judge's own winner: leave-one-judge-out's data.
    panels: list[PanelOutcome] = field(default_factory=list)


class LeaderboardCache:
    """Answers per query, valid while the eligible comparisons' watermark is unchanged."""

    def __init__(self, capacity: int = 64) -> None:
        self._entries: OrderedDict[LeaderboardQuery, tuple[Watermark, Leaderboard]] = OrderedDict()
        self._locks: weakref.WeakValueDictionary[LeaderboardQuery, asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )
        self._capacity = capacity

    def get(self, query: LeaderboardQuery, mark: Watermark) -> Leaderboard | None:
        """The cached answer if it was computed at this watermark."""
        entry = self._entries.get(query)
        if entry is None or entry[0] != mark:
            return None
        self._entries.move_to_end(query)
        return entry[1]

    def put(self, query: LeaderboardQuery, mark: Watermark, answer: Leaderboard) -> None:
        """Keep an answer, evicting the least recently used beyond capacity."""
        self._entries[query] = (mark, answer)
        self._entries.move_to_end(query)
        while len(self._entries) > self._capacity:
            self._entries.popitem(last=False)

    def lock(self, query: LeaderboardQuery) -> asyncio.Lock:
        """One lock per query, so simultaneous cold requests fit once."""
        lock = self._locks.get(query)
        if lock is None:
            lock = self._locks[query] = asyncio.Lock()
        return lock


async def get_leaderboard(
    sessionmaker: async_sessionmaker[AsyncSession],
    cache: LeaderboardCache,
    query: LeaderboardQuery,
) -> Leaderboard:
    """The leaderboard, from cache unless comparisons arrived since it was computed."""
    async with sessionmaker() as session:
        mark = await queries.watermark(session, query.filters)
    cached = cache.get(query, mark)
    if cached is not None:
        return cached
    async with cache.lock(query):
        cached = cache.get(query, mark)  # filled while this request waited
        if cached is not None:
            return cached
        # Read after the watermark: the data is at least as new as the mark it is cached under.
        async with sessionmaker() as session:
            outcomes = await read_outcomes(session, query)
        answer = await asyncio.to_thread(compute_leaderboard, query, outcomes)
        cache.put(query, mark, answer)
        return answer


async def read_outcomes(session: AsyncSession, query: LeaderboardQuery) -> Outcomes:
    """Verdict counts (all, and the most recent ones when there are too many to fit)."""
    totals = await queries.pair_counts(session, query.filters)
    sampled = sum(p.count for p in totals) > queries.MAX_OUTCOMES
    fitted = (
        await queries.pair_counts(session, query.filters, limit=queries.MAX_OUTCOMES)
        if sampled
        else totals
    )
    pairs = await queries.labelled_pair_counts(session, query.filters)
    panels = await queries.panel_outcomes(session, query.filters, limit=judges_out.MAX_OUTCOMES)
    if query.baseline is None:
        return Outcomes(totals, fitted, sampled, [], labelled_pairs=pairs, panels=panels)
    games = await queries.baseline_games(session, query.filters, query.baseline)
    anchored = await queries.anchored_counts(session, query.filters, query.baseline)
    return Outcomes(totals, fitted, sampled, games, anchored, pairs, panels)


def expand_games(pairs: Sequence[PairCount], index: dict[str, int]) -> list[Game]:
    """One game per comparison, in a backend-independent order (the bootstrap depends on it)."""
    games: list[Game] = []
    for p in sorted(pairs, key=lambda p: (p.model_a, p.model_b, p.winner)):
        games += [(index[p.model_a], index[p.model_b], Y_OF_WINNER[p.winner])] * p.count
    return games


def records(pairs: Sequence[PairCount]) -> dict[str, tuple[int, int, int]]:
    """Wins, ties and losses per model."""
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for p in pairs:
        slot_a = {"A": 0, "tie": 1, "B": 2}[p.winner]
        tally[p.model_a][slot_a] += p.count
        tally[p.model_b][2 - slot_a] += p.count
    return {model: (w, t, lost) for model, (w, t, lost) in tally.items()}


def competition_ranks(ratings_by_model: dict[str, float]) -> dict[str, int]:
    """1 for the highest rating; equal ratings share a rank ("1224")."""
    ordered = sorted(ratings_by_model.values(), reverse=True)
    return {m: 1 + ordered.index(r) for m, r in ratings_by_model.items()}


def baseline_win_rates(
    games: Sequence[BaselineGame], models: Sequence[str], baseline: str
) -> dict[str, BaselineWinRate]:
    """Raw and length-controlled win rates of every other model against the baseline."""
    by_model: dict[str, list[BaselineGame]] = defaultdict(list)
    for game in games:
        by_model[game.model].append(game)
    rates = {}
    for model in models:
        if model == baseline:
            continue
        mine = by_model[model]
        lc = ratings.length_controlled_win_rate([g.y for g in mine], [g.delta_len for g in mine])
        rates[model] = BaselineWinRate(
            n=lc["n"],
            win_rate=lc["raw"],
            win_rate_se=lc["raw_se"],
            lc_win_rate=lc["lc"],
            lc_win_rate_se=lc["lc_se"],
            lc_warning=lc["lc_warning"],
            reason=lc["reason"],
        )
    return rates


def anchored_win_rate(counts: Sequence[OutcomeCount]) -> AnchoredBaselineWinRate | AnchoredReason:
    """The PPI++ win rate against the baseline in percent, or why there is none."""
    outcomes = outcomes_of(counts)
    reason = outcomes.labelled_reason()
    if reason is not None:
        return reason
    estimate = ppi.ppi_mean(outcomes.human, outcomes.judged, outcomes.unlabelled)
    assert estimate is not None  # labelled_reason ruled out no labels
    low, high = estimate.ci95
    return AnchoredBaselineWinRate(
        win_rate=percent(estimate.estimate),
        ci95=(percent(low), percent(high)),
        n=len(outcomes.every_judged),
        n_labelled=len(outcomes.human),
        lam=estimate.lam,
    )


def percent(rate: float) -> float:
    """A rate in percent, clipped to 0-100 (PPI's correction can step outside)."""
    return 100.0 * min(1.0, max(0.0, rate))


def compute_leaderboard(query: LeaderboardQuery, outcomes: Outcomes) -> Leaderboard:
    """Fit Bradley-Terry with bootstrap CIs and the baseline win rates (CPU-bound; pure)."""
    computed_at = utcnow()
    record = records(outcomes.totals)
    models = sorted(record)
    index = {model: k for k, model in enumerate(models)}
    fitted = expand_games(outcomes.fitted, index)
    rows = ratings.leaderboard(len(models), fitted, BOOTSTRAP_ROUNDS, BOOTSTRAP_SEED)
    rated = {models[r["model"]]: r["rating"] for r in rows if r["rating"] is not None}
    ranks = competition_ranks(rated)
    vs_baseline = (
        baseline_win_rates(outcomes.baseline_games, models, query.baseline)
        if query.baseline is not None
        else {}
    )
    anchored_rates = (
        {m: anchored_win_rate(outcomes.anchored.get(m, [])) for m in vs_baseline}
        if query.baseline is not None
        else {}
    )
    summary, anchored_rated = anchored.anchored_ratings(outcomes.labelled_pairs, sorted(rated))
    standings = [
        standing(models[row["model"]], row, record, ranks, vs_baseline, anchored_rates)
        for row in rows
    ]
    for row in standings:
        row.anchored_rating, row.anchored_ci95 = anchored_rated.get(row.model, (None, None))
    standings.sort(key=lambda s: (s.rank is None, s.rank or 0, -s.games, s.model))
    return Leaderboard(
        computed_at=computed_at,
        filters=filters_read(query),
        n=len(fitted),
        sampled=outcomes.sampled,
        baseline_comparisons=(len(outcomes.baseline_games) if query.baseline is not None else None),
        models=standings,
        fragility=fragility_of(standings, fitted, index, outcomes.panels),
        anchored_ratings=summary,
    )


# Adjacent pairs are examined down to this rank: the top of the board is what readers act on.
FRAGILITY_RANKS = 5


def fragility_of(
    standings: Sequence[ModelStanding],
    games: Sequence[Game],
    index: dict[str, int],
    panels: Sequence[PanelOutcome] = (),
) -> Fragility | None:
    """Separability over the rated models, the flips that would swap the top two and each
    adjacent pair whose intervals overlap (ranked models only, in rank order), and the board
    without each judge of the panel."""
    rated = [(s.model, s.ci95) for s in standings if s.rank is not None and s.ci95 is not None]
    if len(rated) < 2:
        return None
    members = sorted(index[model] for model, _ in rated)
    local = {model: k for k, model in enumerate(members)}
    games_of_rated = ratings.restrict(games, members)
    adjacent = []
    for place, ((above, above_ci), (below, below_ci)) in enumerate(
        itertools.pairwise(rated[:FRAGILITY_RANKS])
    ):
        overlap = above_ci[0] <= below_ci[1]
        if place > 0 and not overlap:
            continue
        higher, lower = local[index[above]], local[index[below]]
        flips = fragility.flips_to_reorder(len(members), games_of_rated, higher, lower)
        adjacent.append(PairFragility(higher=above, lower=below, cis_overlap=overlap, flips=flips))
    separated, pairs = fragility.separable_share([ci for _, ci in rated])
    return Fragility(
        separable_pairs=separated,
        pairs=pairs,
        separability=separated / pairs if pairs else None,
        adjacent=adjacent,
        max_flips=fragility.MAX_FLIPS,
        leave_one_judge_out=leave_one_judge_out(panels),
    )


def leave_one_judge_out(panels: Sequence[PanelOutcome]) -> LeaveOneJudgeOut:
    """Each voting judge's refitted board against the full one (`judges_out`)."""
    found = judges_out.leave_one_judge_out(panels)
    if found is None:
        return LeaveOneJudgeOut(
            outcomes=len(panels), judges=[], min_kendall_tau=None, reason="single_judge"
        )
    taus = [j.kendall_tau for j in found if j.kendall_tau is not None]
    return LeaveOneJudgeOut(
        outcomes=len(panels),
        judges=[JudgeLeftOut(**vars(j)) for j in found],
        min_kendall_tau=min(taus) if taus else None,
        reason=None,
    )


def standing(
    model: str,
    row: ratings.ModelRating,
    record: dict[str, tuple[int, int, int]],
    ranks: dict[str, int],
    vs_baseline: dict[str, BaselineWinRate],
    anchored: dict[str, AnchoredBaselineWinRate | AnchoredReason],
) -> ModelStanding:
    """One model's row of the answer."""
    wins, ties, losses = record[model]
    anchored_rate = anchored.get(model)
    return ModelStanding(
        model=model,
        rank=ranks.get(model),
        rating=row["rating"],
        ci95=row["ci95"],
        theta=row["theta"],
        games=wins + ties + losses,
        wins=wins,
        ties=ties,
        losses=losses,
        reason=row["reason"],
        vs_baseline=vs_baseline.get(model),
        anchored_win_rate=None if isinstance(anchored_rate, str) else anchored_rate,
        anchored_reason=anchored_rate if isinstance(anchored_rate, str) else None,
    )


def filters_read(query: LeaderboardQuery) -> LeaderboardFiltersRead:
    """The filters as echoed in the answer."""
    return LeaderboardFiltersRead(
        since=query.filters.since,
        until=query.filters.until,
        tags=[f"{key}:{value}" for key, value in query.filters.tags],
        baseline=query.baseline,
        origin=query.filters.origin,
    )


# The process's cache (built in app/lifespan.py), shared by the API and the dashboard.
LeaderboardCacheDep = Annotated[LeaderboardCache, from_state("leaderboard_cache")]
