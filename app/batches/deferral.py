"""The deferral a provider-mode delivery runs under: a batch judge's calls are answered from the
item's resolved provider results, or planned for a provider job instead of being made.

It owns one delivery's side of provider mode: reading the item's answers in (`deferral_for`),
handing the kernel the deferring clients (`ItemDeferral`, the `Deferral` of
app/jobs/kind.py), and storing what was deferred while leaving the item to the rounds
(`park`). A delivery finds an earlier one's answers by `AnswerKey` (app/batches/provider_keys.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update

from app.batches import leases
from app.batches.leases import Claim
from app.batches.models import Batch, BatchItem, ItemStatus, ProviderRequest
from app.batches.provider_keys import (
    AnswerKey,
    answer_key,
    answer_of,
    draws_seed,
    new_custom_id,
    seal,
    unseal,
)
from app.batches.provider_requests import NOT_SENT, PENDING, RESOLVED
from app.db import rowcount, utcnow
from app.jobs.kind import Services
from app.judges.registry import RuntimeJudge
from app.judging.base import Deferred, JudgeClient
from app.judging.judge import ChatRequest, Completion
from app.judging.providers.http import HttpJudge
from app.judging.retries import CallFailedError
from app.privacy import TextKeeper


@dataclass(frozen=True)
class PendingCall:
    """A request a delivery deferred: what it asks (the judge and the keyed body) and the
    provider body to send."""

    asked: AnswerKey
    body: Mapping[str, Any]


@dataclass
class ItemDeferral:
    """One delivery's `Deferral` (app/jobs/kind.py): a batch judge's requests are answered
    from the item's resolved provider results, or deferred."""

    keeper: TextKeeper
    seed: str
    answers: Mapping[AnswerKey, Mapping[str, Any]]
    cancelled: bool  # the batch was cancelled: nothing new goes to a provider
    pending: dict[AnswerKey, PendingCall] = field(default_factory=dict)
    _clients: dict[str, JudgeClient] = field(default_factory=dict)

    @property
    def deferred(self) -> bool:
        """Whether a request was deferred in this delivery."""
        return bool(self.pending)

    def client(self, judge: RuntimeJudge) -> JudgeClient:
        """The judge's own client, or for a judge with a batch API its deferring twin."""
        client = judge.client
        if not isinstance(client, HttpJudge) or not client.config.has_batch_api:
            return client
        if judge.name not in self._clients:
            self._clients[judge.name] = client.deferring(self._send)
        return self._clients[judge.name]

    async def _send(self, judge: JudgeClient, request: ChatRequest) -> tuple[Completion, int]:
        assert isinstance(judge, HttpJudge)
        body = judge.request_body(request)
        asked = answer_key(self.keeper, judge.config.name, body)
        stored = self.answers.get(asked)
        if stored is not None:
            return answer_of(stored)
        if self.cancelled:
            raise CallFailedError("cancelled", NOT_SENT, 0)
        self.pending[asked] = PendingCall(asked, body)
        raise Deferred


async def deferral_for(services: Services, claim: Claim) -> ItemDeferral:
    """The delivery's deferral: the item's resolved results and whether its batch was
    cancelled."""
    async with services.sessionmaker() as session:
        cancelled_at = await session.scalar(
            select(Batch.cancelled_at).where(Batch.id == claim.batch_id)
        )
        rows = await session.execute(
            select(
                ProviderRequest.judge_name,
                ProviderRequest.request_key,
                ProviderRequest.result,
                ProviderRequest.encrypted,
            ).where(ProviderRequest.item_id == claim.item_id, ProviderRequest.state == RESOLVED)
        )
        settings = services.settings
        answers = {
            AnswerKey(name, key): unseal(settings, result, encrypted)
            for name, key, result, encrypted in rows
            if result is not None
        }
    seed = draws_seed(services.keeper, claim.target_id)
    return ItemDeferral(services.keeper, seed, answers, cancelled_at is not None)


async def park(services: Services, claim: Claim, pending: Sequence[PendingCall]) -> bool:
    """Store the delivery's deferred requests and leave the item `waiting`, held by nobody;
    False when this process no longer held it. Requests a killed delivery already stored are
    kept as they are."""
    now = utcnow()  # one time for all: a job takes an item's requests side by side
    async with services.sessionmaker() as session:
        result = await session.execute(
            update(BatchItem)
            .where(leases.held(claim))
            .values(status=ItemStatus.WAITING, lease_owner=None, lease_expires_at=None)
        )
        if rowcount(result) != 1:
            await session.rollback()
            return False
        stored = await session.execute(
            select(ProviderRequest.judge_name, ProviderRequest.request_key).where(
                ProviderRequest.item_id == claim.item_id
            )
        )
        known = {AnswerKey(name, key) for name, key in stored}
        fresh = [call for call in pending if call.asked not in known]
        rows = [request_row(services, claim, call, now) for call in fresh]
        if rows:
            await session.execute(insert(ProviderRequest), rows)
        await session.commit()
    return True


def request_row(
    services: Services, claim: Claim, call: PendingCall, now: datetime
) -> dict[str, Any]:
    """A deferred request as `provider_requests` stores it: pending, under a new custom id."""
    body, encrypted = seal(services.settings, call.body)
    return {
        "custom_id": new_custom_id(),
        "batch_id": claim.batch_id,
        "item_id": claim.item_id,
        "judge_name": call.asked.judge_name,
        "request_key": call.asked.request_key,
        "job_id": None,
        "state": PENDING,
        "body": body,
        "result": None,
        "encrypted": encrypted,
        "job_failures": 0,
        "created_at": now,
    }
