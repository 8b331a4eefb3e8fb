"""`GET /v1/leaderboard`: Bradley-Terry ratings of generating models and baseline win rates."""
