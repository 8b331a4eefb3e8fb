"""LLMBar's recorded verdicts, served through `POST /v1/compare`, and its gold labels, posted
through `POST /v1/comparisons/{id}/labels`.

LLMBar (tests/data/replay/README.md) judged each of its 419 pairs in both orders with 24 runs (six
judges times four prompting strategies). Each run is one fairpair judge named `<judge>--<strategy>`,
and each pair is one comparison judged by the panel of all 24 (A = output_1, B = output_2, swap
protocol): the AB call shows output_1 first and is answered with the run's `winner_output_1_first`,
the BA call with `winner_output_2_first`. A panel costs the same per call as one judge per
comparison and stores 24 times fewer comparisons. The pair's subset is a tag (`subset:<name>`), so
that the report filtered by it gives each run's figures per subset, as LLMBar publishes them.

The replay judge is `ReplayTransport` with a book of LLMBar's pairs: the criterion (in the system
message) names the pair, the shown text (exact, or as the default anonymizer renders it) says
which output was shown first.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Iterable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import httpx2

from app.config import Settings
from app.judging.anonymize import Anonymizer, default_anonymizer
from app.main import create_app
from tests.conftest import make_key
from tests.replay.replay import (
    REPLAY_DATA,
    CallKey,
    ReplayBook,
    ReplayMismatchError,
    ReplayTransport,
    Verdict,
    read_json,
    read_jsonl,
)
from tests.replay.serving import replay_judges_toml
from tests.support.databases import create_database, drop_database, sqlalchemy_url
from tests.support.live import LiveApp

LLMBAR = REPLAY_DATA / "llmbar"
_ITEM_IN_CRITERIA = re.compile(r"\[llmbar pair: ([^\]]+)\]")
Recorded = tuple[str | None, str | None]  # winner with output_1 shown first, with output_2 first


@dataclass(frozen=True)
class BarItem:
    """One LLMBar pair and its gold label (1 or 2: the better output)."""

    id: str
    subset: str
    input: str
    output_1: str
    output_2: str
    label: int

    @property
    def gold(self) -> str:
        """The gold label as a fairpair winner (output_1 is A)."""
        return "A" if self.label == 1 else "B"


@cache
def load_items() -> dict[str, BarItem]:
    """LLMBar's pairs by id."""
    return {
        row["id"]: BarItem(
            row["id"], row["subset"], row["input"], row["output_1"], row["output_2"], row["label"]
        )
        for row in read_jsonl(LLMBAR / "items.jsonl")
    }


def judge_name(judge: str, strategy: str) -> str:
    """The fairpair judge that serves one LLMBar run."""
    return f"{judge}--{strategy}"


@cache
def load_runs() -> dict[str, dict[str, Recorded]]:
    """Each run's recorded winners ("1"/"2"; None: not parsed) by pair id."""
    runs: dict[str, dict[str, Recorded]] = {}
    for row in read_jsonl(LLMBAR / "verdicts.jsonl"):
        run = runs.setdefault(judge_name(row["judge"], row["strategy"]), {})
        run[row["id"]] = (row["winner_output_1_first"], row["winner_output_2_first"])
    return runs


@cache
def published() -> dict[tuple[str, str], dict[str, Any]]:
    """LLMBar's published figures by (subset, fairpair judge)."""
    raw = read_json(LLMBAR / "published_statistics.json")
    figures = {}
    for key, values in raw.items():
        subset, judge, strategy = key.split("/")
        figures[(subset, judge_name(judge, strategy))] = values
    return figures


def criteria_for(item: BarItem) -> str:
    """The comparison's `criteria`: it names the pair to the replay judge."""
    return f"[llmbar pair: {item.id}]"


def run_verdicts(recorded: Mapping[str, Recorded]) -> dict[CallKey, Verdict]:
    """A run's verdicts by (pair, output shown first, shown second): A when the first won."""

    def verdict(winner: str | None, first: str) -> Verdict:
        return None if winner is None else "A" if winner == first else "B"

    verdicts: dict[CallKey, Verdict] = {}
    for item_id, (output_1_first, output_2_first) in recorded.items():
        verdicts[(item_id, "1", "2")] = verdict(output_1_first, "1")
        verdicts[(item_id, "2", "1")] = verdict(output_2_first, "2")
    return verdicts


class BarBook(ReplayBook):
    """Which LLMBar pair a rendered request showed, and which output came first."""

    def __init__(self, items: Iterable[BarItem], anonymizer: Anonymizer | None = None) -> None:
        self.pairs = {item.id: item for item in items}
        self.anonymizer = anonymizer or default_anonymizer()

    def identify(self, system: str, first_text: str, second_text: str) -> CallKey:
        """(pair, output shown first, output shown second) of one rendered request."""
        named = _ITEM_IN_CRITERIA.findall(system)
        if len(named) != 1 or named[0] not in self.pairs:
            raise ReplayMismatchError(f"the system message names pairs {named}")
        item = self.pairs[named[0]]
        orders = (
            ("1", "2", item.output_1, item.output_2),
            ("2", "1", item.output_2, item.output_1),
        )
        for render in (lambda text: text, lambda text: self.anonymizer.anonymize(text)[0]):
            for first, second, text_1, text_2 in orders:
                if (first_text, second_text) == (render(text_1), render(text_2)):
                    return (item.id, first, second)
        raise ReplayMismatchError(f"{item.id}: the shown texts are not its outputs")


def compare_request(item: BarItem, judges: list[str]) -> dict[str, Any]:
    """The pair judged by the panel of every run."""
    return {
        "prompt": item.input,
        "response_a": item.output_1,
        "response_b": item.output_2,
        "criteria": criteria_for(item),
        "judges": judges,
        "tags": {"replay": "llmbar", "subset": item.subset, "pair": item.id},
    }


@dataclass(frozen=True)
class ServedBar:
    """LLMBar served through the app (still running), with its labels posted."""

    database_url: str
    client: httpx2.AsyncClient
    headers: dict[str, str]
    transports: Mapping[str, ReplayTransport]
    comparison_ids: Mapping[str, str]  # pair id -> comparison id
    statuses: Mapping[str, int]  # pair id -> status code of POST /v1/compare


async def post_all(
    client: httpx2.AsyncClient,
    headers: dict[str, str],
    requests: list[tuple[str, dict[str, Any]]],
    concurrency: int,
) -> list[httpx2.Response]:
    """POST each (path, body), `concurrency` at a time; the answers in order."""
    slots = asyncio.Semaphore(concurrency)

    async def post(path: str, body: dict[str, Any]) -> httpx2.Response:
        async with slots:
            return await client.post(path, headers=headers, json=body)

    return list(await asyncio.gather(*(post(path, body) for path, body in requests)))


@asynccontextmanager
async def served_llmbar(pg_template: str, workdir: Path) -> AsyncIterator[ServedBar]:
    """Every LLMBar pair judged by the 24 replayed runs, and its gold label posted."""
    items, runs = load_items(), load_runs()
    book = BarBook(items.values())
    transports = {name: ReplayTransport(book, run_verdicts(runs[name])) for name in sorted(runs)}
    judges_file = workdir / "judges.toml"
    judges_file.write_text(replay_judges_toml(list(transports), max_concurrency=64))
    name = await create_database(template=pg_template)
    url = sqlalchemy_url(name)
    settings = Settings(
        database_url=url,
        secret_key="replay-secret-key",
        judges_file=judges_file,
        sweep_interval_s=3600,
        log_level="warning",
        max_panel=len(transports),
        max_sync_calls=2 * len(transports),
        max_request_concurrency=2 * len(transports),
    )
    try:
        headers = await make_key(url, "llmbar", ["compare", "read", "label"])
        async with (
            LiveApp(create_app(settings, transport_for=transports.get)) as live,
            httpx2.AsyncClient(
                transport=httpx2.ASGITransport(app=live), base_url="http://testserver", timeout=300
            ) as client,
        ):
            order = sorted(items)
            answers = await post_all(
                client,
                headers,
                [("/v1/compare", compare_request(items[i], list(transports))) for i in order],
                concurrency=4,
            )
            ids = {i: str(a.json()["id"]) for i, a in zip(order, answers, strict=True)}
            labels = await post_all(
                client,
                headers,
                [
                    (
                        f"/v1/comparisons/{ids[i]}/labels",
                        {"winner": items[i].gold},  # the key is the labeler
                    )
                    for i in order
                ],
                concurrency=8,
            )
            assert {r.status_code for r in labels} == {201}
            yield ServedBar(
                url,
                client,
                headers,
                transports,
                ids,
                {i: a.status_code for i, a in zip(order, answers, strict=True)},
            )
    finally:
        await drop_database(name)
