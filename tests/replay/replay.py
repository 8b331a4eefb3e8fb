"""Replay of recorded judge verdicts: the data sets, and a judge transport that answers with them.

`ReplayTransport` is an OpenAI-compatible Chat Completions endpoint in process. For each request it
reads the two nonce-delimited response blocks (JUDGING.md), works out which recorded answers were
shown first and second, and answers with the verdict the real judge gave for that display order,
naming the label of the block it picked. A verdict the study could not parse (`null`) is answered
with prose, so the call fails as unparseable after its repair retry, as it did for the study.

Identifying the question: a DevBench prompt and its answers are shared by every criterion of a
project's artifact (the four or five `uml_class-*` questions show the same texts), so the texts
alone cannot name the question. Each comparison therefore carries its benchmark criterion as
`criteria` (`criteria_for(task)`), which the judge sees in the system message; the criterion and
the two shown texts name exactly one recorded call.

Matching texts: the service anonymizes responses before rendering (self-identification phrases are
removed), so a shown text may differ from the recorded answer. A shown text is looked up exactly
first; on a miss, among the answers as the service's default anonymizer renders them (that index is
built on the first miss only: no DevBench answer is changed by anonymization, and computing it costs
seconds). An ambiguous or unknown text is a mismatch, recorded in `unmatched`, never a guess.
"""

from __future__ import annotations

import gzip
import json
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal, TextIO

import httpx2

from app.judging.anonymize import Anonymizer, default_anonymizer
from app.judging.blocks import parse_response_blocks

# The repository's copy (tests/data/replay/README.md: sources, licences, how it was derived), each
# data file gzipped. `FAIRPAIR_REPLAY_DATA` names another folder of the same layout, whose files may
# be plain (`items.jsonl`) or gzipped (`items.jsonl.gz`). A missing file is an error, not a skip:
# the data is part of the repository, so a replay test without it has nothing to stand on.
IN_REPO_DATA = Path(__file__).resolve().parents[1] / "data/replay"
REPLAY_DATA = Path(os.environ.get("FAIRPAIR_REPLAY_DATA", IN_REPO_DATA))
JUDGING_THE_JUDGES = REPLAY_DATA / "judging-the-judges"
UNDECIDED_ANSWER = "I cannot decide which response is better."

Verdict = Literal["A", "B", "C"] | None  # A: the first-shown won, B: the second, C: tie
Winner = Literal["A", "B", "tie"]
CallKey = tuple[str, str, str]  # (question_id, model_first, model_second)

# What a recorded verdict means for the comparison's A and B: in the AB call A was shown first,
# in the BA call B was.
WINNER_WHEN_A_FIRST: dict[str, Winner] = {"A": "A", "B": "B", "C": "tie"}
WINNER_WHEN_B_FIRST: dict[str, Winner] = {"A": "B", "B": "A", "C": "tie"}


@dataclass(frozen=True)
class Item:
    """One benchmark question: its criterion (`task`), prompt and each model's answer."""

    question_id: str
    task: str
    prompt: str
    answers: Mapping[str, str]


@cache
def load_items(bench: str) -> dict[str, Item]:
    """The questions of a Judging-the-Judges bench (`DevBench`, `MTBench`) by id."""
    items: dict[str, Item] = {}
    for row in read_jsonl(JUDGING_THE_JUDGES / f"{bench}_items.jsonl"):
        items[row["question_id"]] = Item(
            row["question_id"], row["task"], row["prompt"], row["answers"]
        )
    return items


@cache
def load_verdicts(bench: str, judge: str) -> dict[CallKey, Verdict]:
    """One judge's recorded verdicts on a bench, by (question, model shown first, shown second)."""
    verdicts: dict[CallKey, Verdict] = {}
    for row in read_jsonl(JUDGING_THE_JUDGES / f"{bench}__{judge}.jsonl"):
        key = (row["question_id"], row["model_first"], row["model_second"])
        if key in verdicts:
            raise ValueError(f"{bench}__{judge}: {key} is recorded twice")
        verdicts[key] = row["verdict"]
    return verdicts


def recorded_judges(bench: str) -> list[str]:
    """The judges with recorded verdicts on a bench, sorted."""
    prefix = f"{bench}__"
    judges = sorted(
        {
            path.name.removeprefix(prefix).removesuffix(".gz").removesuffix(".jsonl")
            for pattern in (f"{prefix}*.jsonl", f"{prefix}*.jsonl.gz")
            for path in JUDGING_THE_JUDGES.glob(pattern)
        }
    )
    if not judges:  # else a test parametrized by them would be collected empty, i.e. skipped
        raise FileNotFoundError(f"no recorded {bench} verdicts under {JUDGING_THE_JUDGES}")
    return judges


def data_file(path: Path) -> Path:
    """The file holding the data set `path` names: its gzipped copy (`<path>.gz`), else `path`."""
    for candidate in (path.with_name(f"{path.name}.gz"), path):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(
        f"no replay data {path}(.gz): the repository's copy is {IN_REPO_DATA}; "
        "FAIRPAIR_REPLAY_DATA, when set, must name a folder of the same layout"
    )


def open_data(path: Path) -> TextIO:
    """The data set `path` names, open as UTF-8 text (gunzipped when it is stored gzipped)."""
    found = data_file(path)
    if found.suffix == ".gz":
        return gzip.open(found, "rt", encoding="utf-8")
    return found.open(encoding="utf-8")


def read_jsonl(path: Path) -> Iterable[dict[str, Any]]:
    """The rows of the JSON-lines data set `path` names."""
    with open_data(path) as handle:
        for line in handle:
            if line.strip():
                yield json.loads(line)


def read_json(path: Path) -> Any:
    """The JSON data set `path` names."""
    with open_data(path) as handle:
        return json.load(handle)


def criteria_for(task: str) -> str:
    """The `criteria` a comparison of this benchmark task carries (and the judge is shown)."""
    return f"[benchmark criterion: {task}]"


@dataclass(frozen=True)
class SwapPair:
    """The two recorded verdicts of one (question, model) against the reference answer."""

    question_id: str
    model: str
    a_first: Verdict  # response_a (the model's answer) shown first
    b_first: Verdict  # response_b (the reference) shown first

    @property
    def parsed(self) -> bool:
        """Whether the study parsed both verdicts."""
        return self.a_first is not None and self.b_first is not None

    @property
    def winners(self) -> tuple[Winner | None, Winner | None]:
        """The mapped winners of the AB and the BA call (None: not parsed)."""
        return (
            None if self.a_first is None else WINNER_WHEN_A_FIRST[self.a_first],
            None if self.b_first is None else WINNER_WHEN_B_FIRST[self.b_first],
        )

    @property
    def consistent(self) -> bool:
        """Both parsed and naming the same winner."""
        ab, ba = self.winners
        return self.parsed and ab == ba


def swap_pairs(verdicts: Mapping[CallKey, Verdict], reference: str) -> list[SwapPair]:
    """Every (question, model) compared with `reference` in both orders, in recorded order."""
    return [
        SwapPair(question_id, model, verdict, verdicts[(question_id, reference, model)])
        for (question_id, model, second), verdict in verdicts.items()
        if second == reference
    ]


@dataclass(frozen=True)
class Consistency:
    """Swap consistency of recorded verdicts, at pair level and as the study's logs count it."""

    pairs: int  # swap pairs with both verdicts parsed
    consistent: int
    parsed_answers: int  # verdicts parsed, over all pairs
    lone_answers: int  # parsed verdicts whose partner was not parsed

    @property
    def pair_level(self) -> float:
        """Consistent pairs / pairs with both verdicts parsed (STATISTICS.md)."""
        return self.consistent / self.pairs

    @property
    def as_logged(self) -> float:
        """Parsed answers that agree with their partner, or whose partner was not parsed."""
        return (2 * self.consistent + self.lone_answers) / self.parsed_answers


def consistency(pairs: Sequence[SwapPair]) -> Consistency:
    """Both consistency figures of a judge's swap pairs."""
    parsed = [p for p in pairs if p.parsed]
    lone = [p for p in pairs if (p.a_first is None) != (p.b_first is None)]
    return Consistency(
        pairs=len(parsed),
        consistent=sum(p.consistent for p in parsed),
        parsed_answers=2 * len(parsed) + len(lone),
        lone_answers=len(lone),
    )


class ReplayMismatchError(LookupError):
    """A request that does not show exactly one recorded pair of answers."""


class ReplayBook:
    """Which recorded question and answers a rendered judge request showed."""

    def __init__(self, items: Iterable[Item], anonymizer: Anonymizer | None = None) -> None:
        self.items = list(items)
        self.anonymizer = anonymizer or default_anonymizer()
        self._tasks = {criteria_for(item.task): item.task for item in self.items}
        self._exact = self._index(lambda text: text)
        self._anonymized: dict[tuple[str, str], list[tuple[str, str]]] | None = None
        self.anonymized_matches = 0  # shown texts found only in their anonymized form

    def _index(self, render: Callable[[str], str]) -> dict[tuple[str, str], list[tuple[str, str]]]:
        index: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        for item in self.items:
            for model, answer in item.answers.items():
                index[(item.task, render(answer))].append((item.question_id, model))
        return dict(index)

    def _answers_shown_as(self, task: str, text: str) -> list[tuple[str, str]]:
        found = self._exact.get((task, text))
        if found:
            return found
        if self._anonymized is None:
            self._anonymized = self._index(lambda answer: self.anonymizer.anonymize(answer)[0])
        found = self._anonymized.get((task, text), [])
        self.anonymized_matches += bool(found)
        return found

    def task_of(self, system: str) -> str:
        """The benchmark task whose criterion the system message shows."""
        tasks = [task for criteria, task in self._tasks.items() if criteria in system]
        if len(tasks) != 1:
            raise ReplayMismatchError(f"the system message names {len(tasks)} known criteria")
        return tasks[0]

    def identify(self, system: str, first_text: str, second_text: str) -> CallKey:
        """(question, model shown first, model shown second) of one rendered request."""
        task = self.task_of(system)
        seconds = defaultdict(list)
        for question_id, model in self._answers_shown_as(task, second_text):
            seconds[question_id].append(model)
        keys = [
            (question_id, first, second)
            for question_id, first in self._answers_shown_as(task, first_text)
            for second in seconds.get(question_id, [])
            if second != first
        ]
        if len(keys) != 1:
            raise ReplayMismatchError(f"{task}: the shown texts match {len(keys)} recorded calls")
        return keys[0]


def reply_text(verdict: Verdict, first_label: str, second_label: str) -> str:
    """The judge's answer for a recorded verdict, naming the label of the block it picked."""
    if verdict is None:
        return UNDECIDED_ANSWER
    winner = {"A": first_label, "B": second_label, "C": "tie"}[verdict]
    return json.dumps({"winner": winner, "confidence": 1.0, "reason": "recorded"})


@dataclass(frozen=True)
class ShownCall:
    """What one request showed the judge, and what the replay answered."""

    key: CallKey
    first_label: str
    second_label: str
    verdict: Verdict
    answer: str


def chat_completion(model: str, content: str) -> dict[str, Any]:
    """A Chat Completions answer body."""
    return {
        "id": "chatcmpl-replay",
        "object": "chat.completion",
        "created": 0,
        "model": model,
        "choices": [
            {
                "index": 0,
                "finish_reason": "stop",
                "message": {"role": "assistant", "content": content},
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _message(payload: Mapping[str, Any], role: str) -> str:
    contents = [m.get("content") for m in payload.get("messages", []) if m.get("role") == role]
    if len(contents) != 1 or not isinstance(contents[0], str):
        raise ReplayMismatchError(f"expected one {role} message as a string")
    return contents[0]


@dataclass
class ReplayTransport(httpx2.AsyncBaseTransport):
    """An OpenAI-compatible judge answering every request with its recorded verdict."""

    book: ReplayBook
    verdicts: Mapping[CallKey, Verdict]
    shown: list[ShownCall] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    # The model the answers report (a provider names its snapshot); None: the model asked for.
    provider_model: str | None = None

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Answer one chat completion request (repair retries get the same answer)."""
        payload = json.loads(await request.aread())
        try:
            shown = self._shown(payload)
        except ReplayMismatchError as err:
            self.unmatched.append(str(err))
            error = {"message": str(err), "type": "not_found_error", "param": None, "code": None}
            return httpx2.Response(404, json={"error": error})
        self.shown.append(shown)
        model = self.provider_model or payload["model"]
        return httpx2.Response(200, json=chat_completion(model, shown.answer))

    def _shown(self, payload: Mapping[str, Any]) -> ShownCall:
        blocks = parse_response_blocks(_message(payload, "user"))
        if len(blocks) != 2:
            raise ReplayMismatchError(f"expected two response blocks, found {len(blocks)}")
        first, second = blocks
        key = self.book.identify(_message(payload, "system"), first.text, second.text)
        if key not in self.verdicts:
            raise ReplayMismatchError(f"{key} has no recorded verdict")
        verdict = self.verdicts[key]
        return ShownCall(
            key, first.label, second.label, verdict, reply_text(verdict, first.label, second.label)
        )


@dataclass
class ModelRoutedTransport(httpx2.AsyncBaseTransport):
    """One judge replaying the recorded run its configured model names.

    The judge's `model` reaches the provider in every request body, so changing it (a new judge
    version, `PATCH /v1/judges/{name}`) switches the run that answers: one fairpair judge can be
    replayed as one recorded run and then as another, as a judge whose prompt or model changed.
    """

    runs: Mapping[str, ReplayTransport]  # by the model named in the request
    unrouted: list[str] = field(default_factory=list)

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        """Hand the request to the run its model names; 404 (recorded) for any other model."""
        model = json.loads(await request.aread()).get("model")
        run = self.runs.get(model) if isinstance(model, str) else None
        if run is None:
            self.unrouted.append(str(model))
            error = {"message": f"no recorded run {model!r}", "type": "not_found_error"}
            return httpx2.Response(404, json={"error": error})
        return await run.handle_async_request(request)


PICK_OF: dict[Verdict, str | None] = {"A": "first", "B": "second", "C": "tie", None: None}


def shown_by_key(transport: ReplayTransport) -> dict[CallKey, ShownCall]:
    """What a judge was shown, by recorded call (a repair retry shows the same again)."""
    return {shown.key: shown for shown in transport.shown}


def expected_calls(
    pair: SwapPair, shown: Mapping[CallKey, ShownCall], reference: str
) -> list[dict[str, Any]]:
    """A comparison's stored calls as the judge saw them: round 0 A first, round 1 B first."""
    question, model = pair.question_id, pair.model
    a_first, b_first = shown[(question, model, reference)], shown[(question, reference, model)]
    ab_winner, ba_winner = pair.winners
    return [
        {"round": 0, "display_order": "AB", "pick": PICK_OF[a_first.verdict],
         "mapped_winner": ab_winner,
         "labels": {"A": a_first.first_label, "B": a_first.second_label}},
        {"round": 1, "display_order": "BA", "pick": PICK_OF[b_first.verdict],
         "mapped_winner": ba_winner,
         "labels": {"A": b_first.second_label, "B": b_first.first_label}},
    ]  # fmt: skip


def call_view(call: Mapping[str, Any]) -> dict[str, Any]:
    """The fields of a stored call (`ComparisonRead` shape) that `expected_calls` predicts."""
    return {key: call[key] for key in ("round", "display_order", "pick", "mapped_winner", "labels")}


def expected_answer(pair: SwapPair) -> tuple[Any, ...]:
    """What `POST /v1/compare` must answer for a swap pair served to its only judge."""
    if not pair.parsed:
        return (502, "judges-failed")
    if pair.consistent:  # the agreed winner, with the mean stated confidence (1.0)
        return (200, "complete", pair.winners[0], False, True, 1.0)
    return (200, "complete", "tie", True, False, 0.5)
