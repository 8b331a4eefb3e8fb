"""`sim-judge --answer-ids` (issue 36's soak): every answer carries its id, fairpair still reads
it as the same verdict (with the same confidence from the tokens), and `GET /stats/answers`
lists each id once with when it was sent."""

from __future__ import annotations

import random
from collections.abc import Callable

import httpx2

from app.judging.providers import build_judge
from app.judging.types import DEFAULT_RUBRIC, JudgeConfig, SimKnobs
from app.simjudge.server import ANSWER_ID_PREFIX, SimJudgeApp
from tests.judging.fakes import running_sim_judge

Deadline = Callable[[float], float]
A, B = "Paris.\n[sim q=2]", "Lyon.\n[sim q=-2]"


async def _verdicts(url: str, deadline: float) -> list[tuple[object, ...]]:
    config = JudgeConfig(name="sim", provider="openai", model="gpt-sim", base_url=url)
    judge = build_judge(config)
    try:
        pair = await judge.judge_pair("Capital?", A, B, deadline=deadline, rng=random.Random(3))
        scores = await judge.judge_scores(
            "Capital?", [A, B], DEFAULT_RUBRIC, deadline=deadline, rng=random.Random(3)
        )
    finally:
        await judge.aclose()
    assert pair.ok
    assert scores.ok
    return [
        (pair.pick, pair.confidence, pair.confidence_source, pair.raw_output),
        (scores.scores, scores.raw_output),
    ]


async def test_tagged_answers_read_as_the_same_verdicts_and_are_listed(
    deadline_in: Deadline,
) -> None:
    with running_sim_judge(SimKnobs(seed=4)) as url:
        plain = await _verdicts(url, deadline_in(20))
    with running_sim_judge(SimKnobs(seed=4), answer_ids=True) as url:
        tagged = await _verdicts(url, deadline_in(20))
        async with httpx2.AsyncClient() as client:
            listed = (await client.get(url.removesuffix("/v1") + "/stats/answers")).json()
    assert [row[:-1] for row in tagged] == [row[:-1] for row in plain]  # same reading
    ids = [answer_id for answer_id, _at in listed["sent"]]
    assert ids == [f"{ANSWER_ID_PREFIX}1", f"{ANSWER_ID_PREFIX}2"]
    for (answer_id, *_), row in zip(listed["sent"], tagged, strict=True):
        raw = row[-1]
        assert isinstance(raw, str)
        assert raw.endswith(f', "answer_id": "{answer_id}"}}')


async def test_untagged_by_default_and_errors_carry_no_id() -> None:
    app = SimJudgeApp(SimKnobs(error_rate=1.0), answer_ids=True)
    transport = httpx2.ASGITransport(app=app)
    blocks = [
        f'<response label="{label}" nonce="{nonce * 16}">\n{text}\n</response nonce="{nonce * 16}">'
        for label, nonce, text in (("Q", "1", A), ("P", "2", B))
    ]
    body = {"model": "m", "messages": [{"role": "user", "content": "\n\n".join(blocks)}]}
    async with httpx2.AsyncClient(transport=transport, base_url="http://sim") as client:
        failed = await client.post("/v1/chat/completions", json=body)
        assert failed.status_code == 500
        assert ANSWER_ID_PREFIX not in failed.text
        assert (await client.get("/stats/answers")).json() == {"sent": []}
    plain = httpx2.ASGITransport(app=SimJudgeApp(SimKnobs()))
    async with httpx2.AsyncClient(transport=plain, base_url="http://sim") as client:
        answered = await client.post("/v1/chat/completions", json=body)
        assert answered.status_code == 200
        assert ANSWER_ID_PREFIX not in answered.text
        assert (await client.get("/stats/answers")).status_code == 404
