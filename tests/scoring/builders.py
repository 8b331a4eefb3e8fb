"""Score sessions for tests: generated with the sim's scoring function, stored as the service
stores them, and the same data as `ScoreRow`s for the pure-math oracle."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import utcnow
from app.judging.simulation import simulate_chat
from app.judging.types import SimKnobs
from app.scoring.models import Score, ScoreCall, ScoreSession, ScoreSessionTag
from app.scoring.stats import ScoreRow


@dataclass(frozen=True)
class CallData:
    """One reviewer's call: responses in shown order and their scores."""

    reviewer: str
    order: list[int]
    scores: list[float]
    audit: frozenset[int] = frozenset()  # responses it scored as a conflicted audit (uncounted)


@dataclass(frozen=True)
class SessionData:
    """One session: response lengths and the reviewers' calls."""

    id: str
    lengths: list[int]
    calls: list[CallData]
    tags: dict[str, str] = field(default_factory=dict)


def sim_judges_toml(
    offsets: dict[str, float], default: list[str] | None = None, **knobs: float
) -> str:
    """A judges file with one in-process sim reviewer per model name in `offsets`."""
    table = ", ".join(f'"{name}" = {value}' for name, value in offsets.items())
    extra = "".join(f"{k} = {v}\n" for k, v in knobs.items())
    judges = "".join(
        f'\n[[judges]]\nname = "{name}"\nprovider = "sim"\nmodel = "{name}"\n'
        f"[judges.sim]\noffsets = {{ {table} }}\n{extra}"
        for name in offsets
    )
    return f"default_panel = {json.dumps(default or list(offsets))}\n{judges}"


_LABELS = [a + b for a in "EFGHJKNPQRSTUWYZ" for b in "EFGHJKNPQRSTUWYZ" if a != b]


def _messages(
    texts: list[str], low: float, high: float, rng: random.Random
) -> list[dict[str, str]]:
    """A scoring request in the contract's block format, as the sim parses it."""
    blocks = []
    for text, label in zip(texts, rng.sample(_LABELS, len(texts)), strict=True):
        nonce = f"{rng.getrandbits(64):016x}"
        blocks.append(
            f'<response label="{label}" nonce="{nonce}">\n{text}\n</response nonce="{nonce}">'
        )
    system = f"Rubric: score each response on the scale from {low:g} to {high:g}."
    user = "Request:\ntask\n\n" + "\n\n".join(blocks) + '\n{"scores": {}}'
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]


def sim_scores(
    knobs: SimKnobs, model: str, texts: list[str], low: float, high: float, rng: random.Random
) -> list[float]:
    """The sim's scores of texts shown in this order (JUDGING.md "Scoring")."""
    reply = simulate_chat(knobs, model, _messages(texts, low, high, rng))
    scores = json.loads(reply.text)["scores"]
    return [float(v) for v in scores.values()]  # labels come back in shown order


def sim_sessions(
    offsets: dict[str, float],
    *,
    sessions: int,
    responses: int,
    seed: int,
    low: float = 1,
    high: float = 5,
    first_slot_bonus: float = 0.0,
    length_bias: float = 0.0,
    quality: tuple[float, float] = (-1.0, 1.0),
    skip: float = 0.0,
) -> list[SessionData]:
    """Sessions scored by sim reviewers, each in its own random order; `skip` drops calls."""
    rng = random.Random(seed)
    knobs = SimKnobs(
        offsets=offsets, first_slot_bonus=first_slot_bonus, length_bias=length_bias, seed=seed
    )
    data = []
    for s in range(sessions):
        texts = [
            f"answer {s}-{i} "
            + "x" * rng.randrange(50, 900)
            + f"\n[sim q={rng.uniform(*quality):.4f}]"
            for i in range(responses)
        ]
        calls = []
        for name in offsets:
            if rng.random() < skip:
                continue
            order = rng.sample(range(responses), responses)
            shown = [texts[i] for i in order]
            calls.append(CallData(name, order, sim_scores(knobs, name, shown, low, high, rng)))
        data.append(SessionData(f"s{seed}-{s}", [len(t) for t in texts], calls))
    return data


def score_rows(sessions: list[SessionData], *, counted_only: bool = False) -> list[ScoreRow]:
    """The same scores as the math takes them (`counted_only`: without the audit scores)."""
    return [
        ScoreRow(f"{s.id}/{index}", call.reviewer, k + 1, score, f"{s.id}:{call.reviewer}")
        for s in sessions
        for call in s.calls
        for k, (index, score) in enumerate(zip(call.order, call.scores, strict=True))
        if not (counted_only and index in call.audit)
    ]


async def store_sessions(
    sessionmaker: async_sessionmaker[AsyncSession],
    sessions: list[SessionData],
    *,
    rubric: str = "r-test",
    low: float = 1,
    high: float = 5,
) -> None:
    """Insert sessions, calls and scores as the service writes them."""
    now = utcnow()
    async with sessionmaker() as db:
        for s in sessions:
            db.add(_session_row(s, rubric, low, high, now))
            db.add_all(ScoreSessionTag(session_id=s.id, key=k, value=v) for k, v in s.tags.items())
        await db.flush()
        calls = [(s, call, _call_row(s, call, rubric, now)) for s in sessions for call in s.calls]
        db.add_all(row for _, _, row in calls)
        await db.flush()
        db.add_all(
            Score(
                session_id=s.id,
                response_index=index,
                reviewer=call.reviewer,
                judge_version=1,
                call_id=row.id,
                rubric_id=rubric,
                position=k + 1,
                label=f"L{k}",
                score=score,
                length=s.lengths[index],
                counted=index not in call.audit,
                scored_at=now,
            )
            for s, call, row in calls
            for k, (index, score) in enumerate(zip(call.order, call.scores, strict=True))
        )
        await db.commit()


def _session_row(
    s: SessionData, rubric: str, low: float, high: float, now: datetime
) -> ScoreSession:
    return ScoreSession(
        id=s.id,
        created_at=now,
        deadline_at=now,
        status="complete",
        request_hash="h",
        rubric={},
        rubric_id=rubric,
        rubric_min=low,
        rubric_max=high,
        self_preference="exclude",
        timeout_s=1,
        panel={},
    )


def _call_row(s: SessionData, call: CallData, rubric: str, now: datetime) -> ScoreCall:
    return ScoreCall(
        session_id=s.id,
        judge_name=call.reviewer,
        judge_version=1,
        judge_config_hash="c",
        rubric_id=rubric,
        display_order=call.order,
        labels=[f"L{k}" for k in range(len(call.order))],
        scores=call.scores,
        template_hash="t",
        nonces=[],
        latency_ms=1.0,
        started_at=now,
        finished_at=now + timedelta(milliseconds=1),
    )
