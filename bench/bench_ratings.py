"""Time the leaderboard's Bradley-Terry bootstrap: 200 rounds, 5,000 comparisons, 20 models.

Run: .venv/bin/python bench/bench_ratings.py
"""

import time

import numpy as np

from app.leaderboard.ratings import Game, bootstrap_bt_ci, bradley_terry

N_MODELS = 20
N_GAMES = 5_000
ROUNDS = 200
REPEATS = 3


def simulated_games(seed: int = 0) -> list[Game]:
    """Games between random model pairs under Bradley-Terry strengths, with 10% ties."""
    rng = np.random.default_rng(seed)
    strength = rng.normal(0.0, 1.0, N_MODELS)
    games: list[Game] = []
    for _ in range(N_GAMES):
        i, j = (int(m) for m in rng.choice(N_MODELS, size=2, replace=False))
        if rng.random() < 0.1:
            games.append((i, j, 0.5))
            continue
        p_i = 1.0 / (1.0 + np.exp(strength[j] - strength[i]))
        games.append((i, j, 1.0 if rng.random() < p_i else 0.0))
    return games


def main() -> None:
    """Print the best of a few timings of one fit and of the full bootstrap."""
    games = simulated_games()
    fit_times, boot_times = [], []
    for _ in range(REPEATS):
        start = time.perf_counter()
        bradley_terry(N_MODELS, games)
        fit_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        bootstrap_bt_ci(N_MODELS, games, rounds=ROUNDS)
        boot_times.append(time.perf_counter() - start)
    print(f"games={N_GAMES} models={N_MODELS} rounds={ROUNDS}")
    print(f"single fit: best {min(fit_times) * 1000:.1f} ms")
    print(f"bootstrap:  best {min(boot_times):.3f} s, worst {max(boot_times):.3f} s")


if __name__ == "__main__":
    main()
