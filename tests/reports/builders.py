"""Stored comparisons and judge calls for report tests, inserted directly (no HTTP, no judge)."""

from __future__ import annotations

import random
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert

from app.comparisons.fanout import winner_of
from app.comparisons.protocols import Order, Pick, ProtocolKind, is_design_round
from app.comparisons.service import CompareKind, call_values
from app.db import create_engine, create_sessionmaker
from app.jobs.writes import StagedCall, store_calls
from app.judges.registry import RuntimeJudge
from app.judging.base import JudgeClient
from app.judging.providers import build_judge
from app.judging.types import JudgeConfig, SimKnobs
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from tests.support.rows import comparison_row, tag_rows

# Inside the report's default 30-day window, with room on either side.
BASE_TIME = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=3)
SWAP_ROUNDS: tuple[tuple[int, Order], ...] = ((0, "AB"), (1, "BA"))


@dataclass
class StoredData:
    """Rows to insert: comparisons, their tags and their judge calls, as column dicts."""

    comparisons: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    _protocols: dict[str, ProtocolKind] = field(default_factory=dict)

    def comparison(
        self,
        *,
        len_a: int = 500,
        len_b: int = 500,
        placebo: bool = False,
        status: str = "complete",
        protocol: ProtocolKind = "swap",
        family_a: str | None = None,
        family_b: str | None = None,
        tags: dict[str, str] | None = None,
        at: datetime = BASE_TIME,
    ) -> str:
        """A stored comparison; returns its id."""
        comparison_id = str(uuid.uuid4())
        self._protocols[comparison_id] = protocol
        self.comparisons.append(
            comparison_row(
                comparison_id, at, status=status, placebo=placebo, protocol=protocol,
                len_a=len_a, len_b=len_b, family_a=family_a, family_b=family_b, criteria=None,
                self_preference_risk=False, simulated=False,
            )
        )  # fmt: skip
        self.tags += tag_rows(comparison_id, tags)
        return comparison_id

    def call(
        self,
        comparison_id: str,
        *,
        judge: str = "judge-a",
        round_index: int = 0,
        order: Order | None = None,
        pick: Pick | None = "first",
        label_pair: str = "P/Q",
        first_slot_second_label: bool = False,
        version: int = 1,
        family: str | None = None,
        role: str = "voter",
        error_kind: str | None = None,
        at: datetime = BASE_TIME,
    ) -> None:
        """One judge call; order defaults to the round's (AB for even rounds)."""
        protocol = self._protocols[comparison_id]
        order = order or ("AB" if round_index % 2 == 0 else "BA")
        first, second = label_pair.split("/")
        first_label = second if first_slot_second_label else first
        other = first if first_slot_second_label else second
        label_a, label_b = (first_label, other) if order == "AB" else (other, first_label)
        self.calls.append(
            {
                "comparison_id": comparison_id,
                "judge_name": judge,
                "judge_version": version,
                "judge_config_hash": "c" * 64,
                "judge_family": family,
                "role": role,
                "protocol": protocol,
                "round": round_index,
                "design": is_design_round(protocol, round_index),
                "display_order": order,
                "label_pair": label_pair,
                "label_a": label_a,
                "label_b": label_b,
                "first_slot_second_label": first_slot_second_label,
                "template_hash": "t" * 64,
                "nonces": [],
                "anonymized_replacements": 0,
                "pick": pick,
                "mapped_winner": winner_of(pick, order),
                "confidence": None,
                "latency_ms": 1.0,
                "started_at": at,
                "finished_at": at,
                "retries": 0,
                "error_kind": error_kind if pick is None else None,
                "error": error_kind if pick is None else None,
            }
        )

    def swap(
        self,
        p1: Pick | None,
        p2: Pick | None,
        *,
        judge: str = "judge-a",
        comparison_id: str | None = None,
        **call_fields: Any,
    ) -> str:
        """A swap pair of one judge (AB then BA), on a new comparison unless one is given."""
        comparison_id = comparison_id or self.comparison()
        self.call(comparison_id, judge=judge, round_index=0, pick=p1, **call_fields)
        self.call(comparison_id, judge=judge, round_index=1, pick=p2, **call_fields)
        return comparison_id

    def add_row(self, row: JudgeCall) -> None:
        """A call built by the service's own `call_row`."""
        self.calls.append(
            {
                column.key: getattr(row, column.key)
                for column in JudgeCall.__table__.columns
                if column.key != "id"
            }
        )

    async def insert(self, database_url: str) -> None:
        """Write every row into the database; the calls through the write path, as the service
        writes them, so that they are folded into the report's rollups."""
        engine = create_engine(database_url)
        async with create_sessionmaker(engine)() as session:
            for model, rows in ((Comparison, self.comparisons), (ComparisonTag, self.tags)):
                if rows:
                    await session.execute(insert(model), rows)
            if self.calls:
                calls = [StagedCall(row) for row in self.calls]
                await store_calls(session, CompareKind.sink, calls)
            await session.commit()
        await engine.dispose()


def sim_runtime_judge(name: str, knobs: SimKnobs, family: str | None = None) -> RuntimeJudge:
    """A runtime judge backed by the in-process sim with the given knobs."""
    client: JudgeClient = build_judge(
        JudgeConfig(name=name, provider="sim", model=name, family=family, sim=knobs)
    )
    return RuntimeJudge(
        name=name,
        version=1,
        config_hash="s" * 64,
        model=name,
        family=family,
        simulated=True,
        client=client,
    )


async def sim_swap_comparisons(
    data: StoredData,
    judge: RuntimeJudge,
    count: int,
    *,
    text_a: str = "Answer one.\n[sim q=0]",
    text_b: str = "Answer two.\n[sim q=0]",
    seed: int = 0,
    at: datetime = BASE_TIME,
) -> None:
    """`count` swap comparisons whose picks come from the real sim judge (seeded)."""
    rng = random.Random(seed)
    for _ in range(count):
        comparison_id = data.comparison(
            len_a=len(text_a), len_b=len(text_b), placebo=text_a == text_b, at=at
        )
        stub = Comparison(id=comparison_id, protocol="swap")
        for round_index, order in SWAP_ROUNDS:
            first, second = (text_a, text_b) if order == "AB" else (text_b, text_a)
            result = await judge.client.judge_pair(
                "Which answer is better?", first, second, deadline=time.monotonic() + 60, rng=rng
            )
            data.add_row(JudgeCall(**call_values(stub, judge, "voter", round_index, order, result)))
