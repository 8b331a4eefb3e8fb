"""The judge-call cache's store: a judge's stored calls, looked up by the key of the request they
answered (app/judging/cache.py is the judging layer's side).

A stored call answers a repeat when it is the same judge at the same version (`judge_config_hash`),
was asked the same request (`request_key`), was itself answered by the provider (not a cache hit),
parsed, and its provider-reported model is the one the judge's latest live call reported: once a
provider starts answering with another snapshot, answers stored before are not served again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import structlog
from sqlalchemy import Select, select

from app import metrics
from app.errors import DATABASE_ERRORS
from app.jobs.kind import Run
from app.jobs.models import StoredCall
from app.judges.registry import RuntimeJudge
from app.judging.base import JudgeClient
from app.judging.cache import CachedAnswer

log = structlog.get_logger()


class StoredAnswers:
    """One judge's `CallCache` over a kind's call table."""

    def __init__(self, judge: RuntimeJudge, table: type[StoredCall], run: Run) -> None:
        self.judge = judge
        self.table = table
        self.run = run

    def key(self, material: str) -> str:
        """sha256 of the request; its keyed HMAC in privacy mode, where a plain hash of a
        rendered prompt would confirm a guessed text."""
        keeper = self.run.keeper
        if keeper.hash_only:
            return keeper.digest(material)
        return hashlib.sha256(material.encode()).hexdigest()

    async def find(self, key: str, fields: Sequence[str]) -> CachedAnswer | None:
        """The stored answer to `key`, counted as a hit or a miss; a database that does not
        answer is a miss (the judge is asked)."""
        try:
            async with self.run.sessionmaker() as session:
                row = (await session.execute(self.query(key, fields))).first()
        except DATABASE_ERRORS as err:
            log.warning("judge_cache_lookup_failed", judge=self.judge.name, error=str(err))
            row = None
        if row is None:
            metrics.record_cache_lookup(self.judge.name, None)
            return None
        call_id, provider_model, raw_output, cost_usd, *answer = row
        metrics.record_cache_lookup(self.judge.name, cost_usd or 0.0)
        return CachedAnswer(
            call_id, provider_model, raw_output, dict(zip(fields, answer, strict=True))
        )

    def query(self, key: str, fields: Sequence[str]) -> Select[Any]:
        """The newest live, parsed call of this judge version that answered `key` with the
        model the judge's latest live call reported."""
        t, judge = self.table, self.judge
        live = (
            t.judge_name == judge.name,
            t.judge_config_hash == judge.config_hash,
            t.cached_from.is_(None),
            t.error_kind.is_(None),
        )
        latest_model = (
            select(t.provider_model)
            .where(*live)
            .order_by(t.started_at.desc(), t.id.desc())
            .limit(1)
            .scalar_subquery()
        )
        answer = [getattr(t, name) for name in fields]
        return (
            select(t.id, t.provider_model, t.raw_output, t.cost_usd, *answer)
            .where(
                *live,
                t.request_key == key,
                t.provider_model.is_not_distinct_from(latest_model),
            )
            .order_by(t.id.desc())
            .limit(1)
        )


def caching_clients(run: Run, table: type[StoredCall]) -> Callable[[RuntimeJudge], JudgeClient]:
    """`run.client_of`, with the calls of judges that have `cache: true` looked up in `table`
    first."""

    def client_of(judge: RuntimeJudge) -> JudgeClient:
        client = run.client_of(judge)
        if not judge.client.config.cache:
            return client
        return client.caching(StoredAnswers(judge, table, run))

    return client_of
