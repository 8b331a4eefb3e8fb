"""The embedded default: scoring end to end on SQLite, from the request to the report."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from app.config import Settings
from app.db import create_engine, create_sessionmaker, utcnow
from app.scoring.queries import ScoringFilters
from app.scoring.report import scoring_sections
from tests.conftest import write_judges_file
from tests.scoring.builders import sim_judges_toml


async def test_score_replay_and_report_on_sqlite(
    live_factory: Callable[..., Any], tmp_path: Path
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'fairpair.db'}"
    judges = write_judges_file(tmp_path, sim_judges_toml({"rev-a": -0.5, "rev-b": 0.5}))
    client = await live_factory(Settings(database_url=url, auth="off", judges_file=judges))
    headers = {"Idempotency-Key": "lite-1"}
    for i in range(12):
        body = {"prompt": f"q{i}", "responses": [f"a{i}-{k}\n[sim q={k - 1}]" for k in range(4)]}
        response = await client.post("/v1/score", headers=headers if i == 0 else {}, json=body)
        assert response.status_code == 200, response.text
        if i == 0:
            first = response.json()
    again = await client.post(
        "/v1/score",
        headers=headers,
        json={"prompt": "q0", "responses": [f"a0-{k}\n[sim q={k - 1}]" for k in range(4)]},
    )
    assert again.headers["idempotent-replayed"] == "true"
    assert again.json() == first
    assert (await client.get(f"/v1/score-sessions/{first['id']}")).json() == first
    engine = create_engine(url)
    async with create_sessionmaker(engine)() as db:
        report = await scoring_sections(db, ScoringFilters(since=utcnow() - timedelta(hours=1)))
    await engine.dispose()
    offsets = {r.reviewer: r.offset for r in report.reviewers}
    assert offsets["rev-a"] is not None
    assert offsets["rev-a"] < 0 < (offsets["rev-b"] or 0)
    assert report.position_score.n == 96
