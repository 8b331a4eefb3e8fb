"""Issue 36: a judge's answer of unexpected shape. `POST /v1/compare` on PostgreSQL, the judge a
real HTTP server on loopback answering 200 with a Chat Completions body whose content, model or
token counts are not what the API documents. Such an answer is a failed call of kind
`invalid_response` with the answer kept as its raw output (not in privacy mode), never a 500: the
comparison closes and every paid call is stored."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from app.config import Settings
from app.judging.types import SimKnobs
from app.ledger.models import Comparison, JudgeCall
from tests.hardening.support import all_rows, http_judge
from tests.judging.fakes import running_sim_judge
from tests.judging.servers import answer, scripted_server

BODY = {"prompt": "What is 2+2?", "response_a": "4\n[sim q=4]", "response_b": "5\n[sim q=-4]"}
GOOD_CONTENT = '{"winner": "tie", "confidence": 0.5, "reason": "same"}'


def completion(
    content: Any = GOOD_CONTENT, model: Any = "judge-2026", tokens: tuple[Any, Any] = (10, 5)
) -> dict[str, Any]:
    """A Chat Completions body with the given content, model and usage."""
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": model,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
        "usage": {"prompt_tokens": tokens[0], "completion_tokens": tokens[1]},
    }


BAD_ANSWERS = {
    "content a list": completion(content=[{"type": "text", "text": GOOD_CONTENT}]),
    "content a number": completion(content=42),
    "content holding NUL": completion(content='{"winner": "tie"}\x00'),
    "model of 300 characters": completion(model="m" * 300),
    "model not a string": completion(model={"name": "judge"}),
    "tokens as strings": completion(tokens=("10", "5")),
    "tokens huge": completion(tokens=(10**30, 5)),
    "tokens fractional": completion(tokens=(10.5, 5)),
    "tokens negative": completion(tokens=(-1_000_000, 5)),
    "choices not a list": {**completion(), "choices": {"0": "x"}},
    "logprob a string": {
        **completion(),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": GOOD_CONTENT},
                "logprobs": {"content": [{"token": "t", "logprob": "high", "top_logprobs": []}]},
            }
        ],
    },
}


@pytest.mark.parametrize("body", BAD_ANSWERS.values(), ids=BAD_ANSWERS.keys())
async def test_an_answer_of_unexpected_shape_is_a_stored_failed_call_not_a_500(
    body: dict[str, Any],
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    async with scripted_server([answer(200, body)]) as server:
        judges = http_judge("odd", server.base_url, logprobs=True)
        client = await live_factory(settings_factory(judges, auth="off"))
        response = await client.post("/v1/compare", json={**BODY, "judges": ["odd"]})
        received = len(server.requests)

    assert response.status_code == 502, response.text
    problem = response.json()
    assert problem["type"] == "judges-failed"
    comparison_id = problem["comparison_id"]
    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == comparison_id)
    assert sorted((c.round, c.error_kind, c.retries, c.pick) for c in stored) == [
        (0, "invalid_response", 0, None),
        (1, "invalid_response", 0, None),
    ]
    assert received == 2  # not retried: every paid answer is a stored call
    assert all(c.raw_output and '"chat.completion"' in c.raw_output for c in stored)
    assert all(c.tokens_in is None and c.cost_usd is None for c in stored)
    [row] = await all_rows(clean_pg, Comparison, Comparison.id == comparison_id)
    assert row.status == "failed"


async def test_an_odd_judge_beside_a_steady_one_gives_a_partial_answer(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    body = BAD_ANSWERS["tokens negative"]
    with running_sim_judge(SimKnobs()) as steady_url:
        async with scripted_server([answer(200, body)]) as server:
            judges = (
                'default_panel = ["steady", "odd"]\n'
                + http_judge("steady", steady_url)
                + http_judge("odd", server.base_url)
            )
            client = await live_factory(settings_factory(judges, auth="off"))
            response = await client.post("/v1/compare", json=BODY)

    assert response.status_code == 200, response.text
    result = response.json()
    assert (result["status"], result["winner"]) == ("partial", "A")
    odd = next(judge for judge in result["judges"] if judge["judge"] == "odd")
    assert [c["error_kind"] for c in odd["calls"]] == ["invalid_response"] * 2
    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == result["id"])
    assert len(stored) == 4
    assert all(c.cost_usd is None or c.cost_usd >= 0 for c in stored)


async def test_privacy_mode_keeps_no_raw_output_of_an_invalid_answer(
    settings_factory: Callable[..., Settings],
    live_factory: Callable[..., Any],
    clean_pg: str,
) -> None:
    async with scripted_server([answer(200, BAD_ANSWERS["content a number"])]) as server:
        judges = http_judge("odd", server.base_url)
        client = await live_factory(settings_factory(judges, auth="off", privacy="hash"))
        response = await client.post("/v1/compare", json={**BODY, "judges": ["odd"]})

    assert response.status_code == 502, response.text
    comparison_id = response.json()["comparison_id"]
    stored = await all_rows(clean_pg, JudgeCall, JudgeCall.comparison_id == comparison_id)
    assert [c.error_kind for c in stored] == ["invalid_response"] * 2
    assert all(c.raw_output is None and c.raw_output_hmac for c in stored)
