"""`fairpair demo`: three simulated judges with known biases, a few hundred comparisons through a
running service's API, and the bias report that should flag exactly the injected biases.

Everything the demo makes is its own: judges `demo-*`, models `demo-model-*`, comparisons tagged
`fairpair:demo`; `purge_*` removes it again. The service holds no API to delete comparisons, so
they are deleted in the database (`FAIRPAIR_DATABASE_URL`, as `fairpair purge` does); the judges
are retired through the API (`enabled: false`), the only removal it offers.
"""

from __future__ import annotations

import asyncio
import math
import random
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import httpx2

from app.textpatterns import compile_linear

TAG_KEY, TAG_VALUE = "fairpair", "demo"
TAG = f"{TAG_KEY}:{TAG_VALUE}"
MODELS = ("demo-model-a", "demo-model-b")
# How often the second model's answer is the better one: the leaderboard has something to show.
MODEL_B_BETTER = 0.65
DEFAULT_COUNT = 400
DEFAULT_SEED = 1
DEFAULT_CONCURRENCY = 8
# How long the demo waits for its judges' cards after the report (their 288 probe comparisons
# run beside the demo's own; a card still running is printed as it stands), and how often it asks.
CARD_WAIT_S = 300.0
CARD_POLL_S = 1.0


@dataclass(frozen=True)
class DemoJudge:
    """A simulated judge the demo creates, and the flag its injected bias should raise."""

    name: str
    sim: dict[str, float]
    expected_flag: str | None
    injected: str


# Strengths chosen so that every flag is far past its threshold at the default count (400
# comparisons, 800 calls a judge; STATISTICS.md tiers: `high` for calls, `moderate` for swap
# pairs): a logit offset of 2 against quality gaps of β·Δq ≈ 3 moves the first-pick rate to about
# 0.63 (2.5: the second-label rate to about 0.69, its test being on calls, not swap pairs), six
# standard errors or more from 0.5 (p < 1e-6 in every trial run). The fair judge sees gaps
# it resolves in both orders (β = 2, Δq ≥ 1.5: position consistency ≈ 0.95, above the 0.80
# floor), and both responses of a comparison have the same length, so no length effect can show.
DEMO_JUDGES = (
    DemoJudge(
        "demo-position",
        {"position_bias": 2.0},
        "position_bias",
        "picks the response shown first more often (position_bias = 2)",
    ),
    DemoJudge(
        "demo-label",
        {"label_bias": 2.5},
        "label_bias",
        "picks the second label of its pair (Y, Q, M, S, H) more often (label_bias = 2.5)",
    ),
    DemoJudge("demo-fair", {"beta": 2.0}, None, "no bias: it picks the better response"),
)
DEMO_JUDGE_NAMES = tuple(judge.name for judge in DEMO_JUDGES)


class DemoError(Exception):
    """A step of the demo failed; the message is one line for the terminal."""


def judge_body(judge: DemoJudge, seed: int) -> dict[str, Any]:
    """The `POST /v1/judges` body of one demo judge."""
    return {
        "name": judge.name,
        "provider": "sim",
        "model": judge.name,
        # Every comparison is sent at once to all three; the default of 8 would queue them.
        "max_concurrency": 32,
        "sim": {**judge.sim, "seed": seed},
    }


def _answer(index: int, side: str, quality: float) -> str:
    # Fixed width (q within ±9.999) so that both answers of a comparison are equally long.
    return f"Demo answer {index:04d}{side}.\n[sim q={quality:+.3f}]"


def comparison_bodies(count: int, seed: int) -> list[dict[str, Any]]:
    """`count` compare bodies whose better answer is known: qualities ±0.75..1.25 (`[sim q=]`)."""
    rng = random.Random(seed)
    bodies = []
    for index in range(count):
        gap = rng.uniform(0.75, 1.25)
        quality_b = gap if rng.random() < MODEL_B_BETTER else -gap
        bodies.append(
            {
                "prompt": f"Demo question {index:04d}: which answer is better?",
                "response_a": {"text": _answer(index, "a", -quality_b), "model": MODELS[0]},
                "response_b": {"text": _answer(index, "b", quality_b), "model": MODELS[1]},
                "judges": list(DEMO_JUDGE_NAMES),
                "tags": {TAG_KEY: TAG_VALUE},
            }
        )
    return bodies


def _problem(response: httpx2.Response) -> str:
    """The one-line reason of a failed answer: the problem's detail, else the start of its text."""
    try:
        body = response.json()
    except ValueError:
        body = None
    detail = body.get("detail") or body.get("title") if isinstance(body, dict) else None
    text = str(detail or response.text[:200] or response.reason_phrase)
    return " ".join(text.split())


@dataclass(frozen=True)
class DemoClient:
    """The running service's API, as the demo uses it; every failure is a `DemoError`."""

    http: httpx2.AsyncClient
    url: str

    async def call(
        self, method: str, path: str, *, ok: Sequence[int] = (200,), **options: Any
    ) -> httpx2.Response:
        """The answer to one request, or a DemoError unless its status is in `ok`."""
        try:
            response = await self.http.request(method, path, **options)
        except (httpx2.HTTPError, httpx2.InvalidURL) as exc:
            raise DemoError(f"cannot reach {self.url}: {exc}") from exc
        if response.status_code not in ok:
            needs_key = response.status_code in (401, 403)
            hint = " (an admin key is needed: --key or FAIRPAIR_KEY)" if needs_key else ""
            raise DemoError(
                f"{method} {path} answered {response.status_code}: {_problem(response)}{hint}"
            )
        return response


@asynccontextmanager
async def open_demo_client(url: str, key: str | None) -> AsyncIterator[DemoClient]:
    """A client of the service at `url`, with `key` (none with auth off)."""
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    try:
        http = httpx2.AsyncClient(base_url=url.rstrip("/"), headers=headers, timeout=120)
    except httpx2.InvalidURL as exc:
        raise DemoError(f"cannot reach {url}: {exc}") from exc
    async with http:
        yield DemoClient(http, url)


async def ensure_judges(client: DemoClient, seed: int) -> dict[str, str]:
    """Create the demo judges, or bring back and update those of an earlier run; what was done
    to each ("created" or "updated")."""
    done = {}
    for judge in DEMO_JUDGES:
        body = judge_body(judge, seed)
        created = await client.call("POST", "/v1/judges", json=body, ok=(201, 409))
        if created.status_code == 201:
            done[judge.name] = "created"
            continue
        # A judge of that name exists: an earlier demo's (same name, same settings) is updated in
        # place; a PATCH that changes nothing makes no new version.
        patch = {k: v for k, v in body.items() if k != "name"} | {"enabled": True}
        await client.call("PATCH", f"/v1/judges/{judge.name}", json=patch)
        done[judge.name] = "updated"
    return done


async def send_comparisons(
    client: DemoClient,
    bodies: Sequence[dict[str, Any]],
    seed: int,
    *,
    concurrency: int = DEFAULT_CONCURRENCY,
    on_done: Callable[[], None] = lambda: None,
) -> None:
    """Send the comparisons, `concurrency` at a time; each with an Idempotency-Key of the seed and
    its index, so that a rerun within the service's idempotency window adds no duplicates."""
    gate = asyncio.Semaphore(concurrency)

    async def send(index: int, body: dict[str, Any]) -> None:
        async with gate:
            await client.call(
                "POST",
                "/v1/compare",
                json=body,
                headers={"Idempotency-Key": f"fairpair-demo-{seed}-{index}"},
            )
        on_done()

    async with asyncio.TaskGroup() as group:
        for index, body in enumerate(bodies):
            group.create_task(send(index, body))


# Simulated labelers (`--labels`): their names say they are simulated; each prefers the answer of
# higher hidden quality with probability σ(Δq), Δq being 1.5-2.5 here (0.82-0.92).
SIM_LABELERS = ("demo-simulated-labeler-1", "demo-simulated-labeler-2", "demo-simulated-labeler-3")
QUALITY = compile_linear(r"\[sim q=([+-]\d+\.\d+)\]")
MAX_QUEUE_DRAWS = 100  # bounds the draws when the queue holds few demo comparisons
QUEUE_PAGE = 200


def simulated_winner(item: dict[str, Any], rng: random.Random) -> str | None:
    """A simulated labeler's verdict on a queue item from the hidden qualities in its answers;
    None when the item is not the demo's (no qualities, or texts withheld)."""
    a = QUALITY.search(item.get("response_a") or "")
    b = QUALITY.search(item.get("response_b") or "")
    if a is None or b is None:
        return None
    gap = float(b.group(1)) - float(a.group(1))
    return "B" if rng.random() < 1 / (1 + math.exp(-gap)) else "A"


async def post_simulated_labels(client: DemoClient, count: int, seed: int) -> int:
    """Label up to `count` demo comparisons drawn from the random labeling queue, as simulated
    labelers (`from_queue: true`, so they anchor the win rates); how many were posted. Other
    comparisons the queue draws are left for real labelers."""
    rng, posted = random.Random(seed), 0
    for draw in range(MAX_QUEUE_DRAWS):
        params = {"n": QUEUE_PAGE, "seed": seed * MAX_QUEUE_DRAWS + draw}
        items = (await client.call("GET", "/v1/labeling-queue", params=params)).json()["items"]
        if not items:
            break
        for item in items:
            winner = simulated_winner(item, rng)
            if winner is None or posted >= count:
                continue
            body = {"winner": winner, "labeler": SIM_LABELERS[posted % 3], "from_queue": True}
            path = f"/v1/comparisons/{item['id']}/labels"
            await client.call("POST", path, json=body, ok=(200, 201))
            posted += 1
        if posted >= count:
            break
    return posted


async def fetch_report(client: DemoClient) -> dict[str, Any]:
    """The bias report over the demo's comparisons, with only the demo judges."""
    response = await client.call("GET", "/v1/bias-report", params={"tag": TAG})
    report: dict[str, Any] = response.json()
    report["judges"] = [j for j in report["judges"] if j["judge"] in DEMO_JUDGE_NAMES]
    return report


async def run_demo(
    client: DemoClient,
    *,
    count: int = DEFAULT_COUNT,
    seed: int = DEFAULT_SEED,
    concurrency: int = DEFAULT_CONCURRENCY,
    on_judges: Callable[[dict[str, str]], None] = lambda _done: None,
    on_done: Callable[[], None] = lambda: None,
    labels: int = 0,
    on_labels: Callable[[int], None] = lambda _posted: None,
    cards: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Judges (`on_judges` hears what was done to each), comparisons (`on_done` after each),
    `labels` simulated queue labels (`on_labels` hears how many), then the report over them.
    With a `cards` list, the judges' cards are queued first (they run beside the comparisons)
    and the list receives them, as `GET /v1/judges/{name}/card` answers, at the end."""
    on_judges(await ensure_judges(client, seed))
    carded = await start_cards(client) if cards is not None else []
    bodies = comparison_bodies(count, seed)
    await send_comparisons(client, bodies, seed, concurrency=concurrency, on_done=on_done)
    if labels:
        on_labels(await post_simulated_labels(client, labels, seed))
    report = await fetch_report(client)
    if cards is not None:
        cards.extend(await fetch_cards(client, carded))
    return report


async def start_cards(client: DemoClient) -> list[str]:
    """Queue each demo judge's card battery; the judges whose card was queued (none in privacy
    mode, where the service refuses cards with a 422)."""
    started = []
    for name in DEMO_JUDGE_NAMES:
        response = await client.call("POST", f"/v1/judges/{name}/card", ok=(202, 422))
        if response.status_code == 202:
            started.append(name)
    return started


async def fetch_cards(
    client: DemoClient, names: Sequence[str], wait_s: float = CARD_WAIT_S
) -> list[dict[str, Any]]:
    """The judges' cards once all are complete, or as they stand after `wait_s` seconds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_s
    while True:
        answers = [(await client.call("GET", f"/v1/judges/{n}/card")).json() for n in names]
        done = all(a["card"] is not None and a["card"]["complete"] for a in answers)
        if done or loop.time() >= deadline:
            return answers
        await asyncio.sleep(CARD_POLL_S)


def unexpected_flags(report: dict[str, Any]) -> dict[str, list[str]]:
    """Per demo judge, what differs from the injected biases: an expected flag that is missing
    ("missing <flag>") or a flag on the fair judge; empty when the report shows what it should."""
    flags = {j["judge"]: j["flags"] for j in report["judges"]}
    problems: dict[str, list[str]] = {}
    for judge in DEMO_JUDGES:
        shown = flags.get(judge.name)
        if shown is None:
            problems[judge.name] = ["not in the report"]
        elif judge.expected_flag is None and shown:
            problems[judge.name] = list(shown)
        elif judge.expected_flag is not None and judge.expected_flag not in shown:
            problems[judge.name] = [f"missing {judge.expected_flag}"]
    return problems


async def retire_judges(client: DemoClient) -> list[str]:
    """Retire the demo judges through the API (`enabled: false`); the names retired."""
    retired = []
    for name in DEMO_JUDGE_NAMES:
        response = await client.call(
            "PATCH", f"/v1/judges/{name}", json={"enabled": False}, ok=(200, 404)
        )
        if response.status_code == 200:
            retired.append(name)
    return retired


async def delete_demo_comparisons(client: DemoClient) -> tuple[int, int]:
    """Delete every finished comparison tagged `fairpair:demo`, with its calls, tags and labels,
    through the service (`DELETE /v1/comparisons?tag=`): on the server the demo ran against,
    whatever database this machine would open; (comparisons, calls) deleted."""
    response = await client.call("DELETE", "/v1/comparisons", params={"tag": TAG})
    deleted = response.json()
    return int(deleted["comparisons"]), int(deleted["calls"])
