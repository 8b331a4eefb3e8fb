"""Stored comparisons, swap calls and labels for label tests, inserted directly (no judge)."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert

from app.comparisons.fanout import winner_of
from app.comparisons.protocols import Pick
from app.db import create_engine, create_sessionmaker
from app.labels.models import Label
from app.ledger import fold
from app.ledger.models import Comparison, ComparisonTag, JudgeCall
from tests.support.rows import comparison_row, tag_rows

# Inside the report's default 30-day window.
BASE_TIME = datetime.now(UTC).replace(microsecond=0) - timedelta(days=3)


@dataclass(frozen=True)
class Swap:
    """One judge's swap pair: the picks of its AB and BA calls and their confidences."""

    judge: str
    ab: Pick | None
    ba: Pick | None
    confidence: tuple[float | None, float | None] = (None, None)
    source: str | None = "stated"
    extra: Pick | None = None  # a third, non-design call (round 2), as adaptive makes
    role: str = "voter"

    @property
    def winners(self) -> tuple[str | None, str | None]:
        """Mapped winners of the AB and the BA call."""
        return winner_of(self.ab, "AB"), winner_of(self.ba, "BA")

    @property
    def verdict(self) -> str | None:
        """The swap protocol's result: the agreed winner, tie on disagreement."""
        ab, ba = self.winners
        if ab is None or ba is None:
            return None
        return ab if ab == ba else "tie"


def panel_winner(swaps: tuple[Swap, ...]) -> str | None:
    """Majority of the voters' decisive winners; all ties or an even split give tie."""
    verdicts = [s.verdict for s in swaps if s.role == "voter" and s.verdict is not None]
    if not verdicts:
        return None
    decisive = Counter(v for v in verdicts if v != "tie").most_common()
    if not decisive or (len(decisive) == 2 and decisive[0][1] == decisive[1][1]):
        return "tie"
    return decisive[0][0]


@dataclass
class Rows:
    """Rows to insert, as column dicts."""

    comparisons: list[dict[str, Any]] = field(default_factory=list)
    tags: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)
    labels: list[dict[str, Any]] = field(default_factory=list)

    def comparison(
        self,
        *swaps: Swap,
        status: str = "complete",
        placebo: bool = False,
        tags: dict[str, str] | None = None,
        at: datetime = BASE_TIME,
        origin: str = "traffic",
    ) -> str:
        """A swap comparison judged by `swaps`; returns its id."""
        comparison_id = str(uuid.uuid4())
        self.comparisons.append(
            comparison_row(
                comparison_id, at, status=status, placebo=placebo, origin=origin,
                prompt=f"prompt {comparison_id}", criteria=None, self_preference_risk=False,
                simulated=False,
                panel={"judges": [[s.judge, 1, s.role] for s in swaps], "excluded": []},
                winner=panel_winner(swaps),
                judge_results={
                    s.judge: ({"winner": s.verdict} if s.verdict else None) for s in swaps
                },
            )
        )  # fmt: skip
        self.tags += tag_rows(comparison_id, tags)
        for swap in swaps:
            rounds = [
                (0, "AB", swap.ab, swap.confidence[0]),
                (1, "BA", swap.ba, swap.confidence[1]),
            ]
            if swap.extra is not None:
                rounds.append((2, "AB", swap.extra, None))
            for round_index, order, pick, confidence in rounds:
                self.calls.append(
                    call(comparison_id, swap, round_index, order, pick, confidence, at)
                )
        return comparison_id

    def label(
        self,
        comparison_id: str,
        labeler: str,
        winner: str,
        *,
        from_queue: bool = False,
        at: datetime = BASE_TIME,
    ) -> None:
        """A labeler's label."""
        self.labels.append(
            {
                "comparison_id": comparison_id,
                "labeler": labeler,
                "winner": winner,
                "from_queue": from_queue,
                "created_at": at,
                "updated_at": at,
            }
        )

    async def insert(self, database_url: str) -> None:
        """Write every row."""
        engine = create_engine(database_url)
        async with create_sessionmaker(engine)() as session:
            for model, rows in (
                (Comparison, self.comparisons),
                (ComparisonTag, self.tags),
                (JudgeCall, self.calls),
                (Label, self.labels),
            ):
                if rows:
                    await session.execute(insert(model), rows)
            await fold.rebuild(session)  # the calls bypassed the ORM
            await session.commit()
        await engine.dispose()


def call(
    comparison_id: str,
    swap: Swap,
    round_index: int,
    order: str,
    pick: Pick | None,
    confidence: float | None,
    at: datetime,
) -> dict[str, Any]:
    """One judge call's columns."""
    return {
        "comparison_id": comparison_id,
        "judge_name": swap.judge,
        "judge_version": 1,
        "judge_config_hash": "c" * 64,
        "judge_family": None,
        "role": swap.role,
        "protocol": "swap",
        "round": round_index,
        "design": round_index < 2,
        "display_order": order,
        "label_pair": "P/Q",
        "label_a": "P" if order == "AB" else "Q",
        "label_b": "Q" if order == "AB" else "P",
        "first_slot_second_label": False,
        "template_hash": "t" * 64,
        "nonces": [],
        "anonymized_replacements": 0,
        "pick": pick,
        "mapped_winner": winner_of(pick, order),  # type: ignore[arg-type]
        "confidence": confidence if pick is not None else None,
        "confidence_source": swap.source if pick is not None and confidence is not None else None,
        "latency_ms": 1.0,
        "started_at": at,
        "finished_at": at,
        "retries": 0,
        "error_kind": None if pick is not None else "unparseable",
        "error": None if pick is not None else "unparseable",
    }
