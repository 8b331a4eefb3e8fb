"""Call results recorded for calls that never produced an answer."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from app.judging.types import PairCallResult, ScoreCallResult


def test_a_pair_failure_has_no_answer_and_runs_from_its_start_to_now() -> None:
    started = datetime.now(UTC) - timedelta(seconds=2)
    result = PairCallResult.failure(started, "deadline", "the comparison's deadline passed")
    assert not result.ok
    assert (result.pick, result.label_pair, result.first_label, result.second_label) == (
        None,
        "",
        "",
        "",
    )
    assert (result.confidence, result.confidence_source, result.raw_output) == (None, None, None)
    assert (result.tokens_in, result.tokens_out, result.cost_usd) == (None, None, None)
    assert (result.error_kind, result.error) == ("deadline", "the comparison's deadline passed")
    assert (result.retries, result.template_hash, result.nonces) == (0, "", ())
    assert result.anonymized_replacements == 0
    assert result.started_at == started
    assert result.latency_ms == (result.finished_at - started).total_seconds() * 1000
    assert result.latency_ms >= 2000


def test_a_score_failure_has_no_labels_and_no_scores() -> None:
    started = datetime.now(UTC)
    result = ScoreCallResult.failure(started, "bad_request", "prompt too long")
    assert not result.ok
    assert (result.labels, result.scores) == ((), None)
    assert (result.error_kind, result.error) == ("bad_request", "prompt too long")
    assert result.finished_at >= started
