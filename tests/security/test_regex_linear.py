"""No text can stall the event loop: every pattern applied to submitted text is linear in it.

The patterns are compiled by RE2 (`app/textpatterns.py`), which cannot backtrack; these tests hold
that (a) nothing in `app/` compiles a pattern any other way, and (b) each public entry point that
applies a pattern to outside text costs time linear in that text, on inputs built to make a
backtracking engine explode (long digit runs, repeated separators, near-misses that fail at the
very end) and on units that hypothesis draws, all up to the size limits. Growth is measured, never
absolute time: `time.process_time`, median of 5, on inputs that take >= 10 ms (a call is repeated
until it does); 10x the input may cost at most 20x the time, in the best of three tries.

Pydantic `pattern=` constraints (`app/fields.py`, `app/judges/schemas.py`, `app/batches/router.py`)
are not converted: pydantic-core compiles them with Rust's `regex` crate, a linear engine too, as
long as no model asks for `regex_engine="python-re"` (held below).

The anonymizer's old pattern under Python's `re`: `"I am GPT" + "1" * 25 + " x"`, 35 bytes, took
~15 s of CPU (each further digit about doubles it: 0.11 s at 28 bytes, 1.8 s at 32, 7.3 s at 34);
`test_the_old_anonymizer_pattern_was_exponential_under_re` shows the growth without waiting that
long.
"""

from __future__ import annotations

import ast
import asyncio
import re
import statistics
import time
import tomllib
from collections.abc import Callable
from importlib import resources
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.requests import cookie_parser

from app.config import Settings
from app.dashboard.filters import parse_window
from app.errors import ValidationProblem
from app.judging.anonymize import default_anonymizer
from app.judging.base import run_text_work
from app.judging.blocks import parse_response_blocks
from app.judging.judge import redact
from app.judging.labels import validate_label_pool
from app.judging.parsing import UnparseableAnswerError, parse_pair_answer
from app.judging.simulation import latent_quality, simulate_chat
from app.judging.types import SimKnobs
from app.logs import scrub_secrets
from app.middleware import REQUEST_ID, SUSPECT_ESCAPE, check_headers, check_json
from app.params import parse_age

APP = Path(__file__).resolve().parents[2] / "app"
# Modules that compile patterns with a backtracking engine (`fnmatch` and `glob` translate to `re`).
BACKTRACKING = {"re", "sre_compile", "sre_parse", "regex", "fnmatch", "glob"}

TEXT_LIMIT = Settings.model_fields["max_text_chars"].default  # one submitted text
BODY_LIMIT = Settings.model_fields["max_body_bytes"].default  # a body, a message, an answer
HEADER_LIMIT = 64 * 1024  # more than any server in front of us accepts in one header
MIN_SAMPLE_S = 0.010
MAX_GROWTH = 20.0


def _backtracking_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        else:
            continue
        found += [f"{path}:{node.lineno} {n}" for n in names if n.split(".")[0] in BACKTRACKING]
    return found


def test_no_module_outside_textpatterns_uses_a_backtracking_engine() -> None:
    offenders = [
        hit
        for path in sorted(APP.rglob("*.py"))
        if path != APP / "textpatterns.py"
        for hit in _backtracking_imports(path)
    ]
    assert offenders == []


def test_pydantic_patterns_stay_on_the_linear_rust_engine() -> None:
    users = [p for p in APP.rglob("*.py") if "python-re" in p.read_text("utf-8")]
    assert users == []


def _median_cpu(call: Callable[[], object], repeats: int) -> float:
    samples = []
    for _ in range(5):
        started = time.process_time()
        for _ in range(repeats):
            call()
        samples.append(time.process_time() - started)
    return statistics.median(samples)


def _repeats_for(call: Callable[[], object]) -> int:
    """How often `call` must run for one sample to take at least MIN_SAMPLE_S."""
    started = time.process_time()
    call()
    once = max(time.process_time() - started, 1e-6)
    return max(1, int(MIN_SAMPLE_S / once) + 1)


def growth(entry: Callable[[str], object], make: Callable[[int], str], limit: int) -> float:
    """CPU time of `entry` on an input of `limit` characters over one of `limit // 10`.

    Noise (a stolen CPU, a cache the large input outgrows) only ever inflates the ratio, so a
    ratio over MAX_GROWTH is measured again, up to three times, and the smallest counts: a
    quadratic cost stays near 100 in every try.
    """
    small, large = make(limit // 10), make(limit)
    repeats = _repeats_for(lambda: entry(small))
    ratios: list[float] = []
    while len(ratios) < 3 and min(ratios, default=float("inf")) > MAX_GROWTH:
        large_s = _median_cpu(lambda: entry(large), repeats)
        ratios.append(large_s / _median_cpu(lambda: entry(small), repeats))
    return min(ratios)


def shaped(prefix: str, unit: str, suffix: str = "") -> Callable[[int], str]:
    """Inputs of exactly `n` characters: `prefix`, `unit` repeated, and the near-miss `suffix`."""

    def make(n: int) -> str:
        middle = n - len(prefix) - len(suffix)
        return prefix + (unit * (middle // len(unit) + 1))[:middle] + suffix

    return make


def _ignoring(
    *errors: type[Exception],
) -> Callable[[Callable[[str], object]], Callable[[str], object]]:
    def wrap(entry: Callable[[str], object]) -> Callable[[str], object]:
        def call(text: str) -> object:
            try:
                return entry(text)
            except errors:
                return None

        return call

    return wrap


def anonymize(text: str) -> object:
    # `_scan`, not `anonymize`: the latter remembers recent texts, and repeats would be free.
    return default_anonymizer()._scan(text)


@_ignoring(UnparseableAnswerError)
def parse_answer(text: str) -> object:
    return parse_pair_answer(text, "Pim", "Quo")


NONCE = "0123456789abcdef"
BLOCK = f'<response label="Pim" nonce="{NONCE}">\nhi\n</response nonce="{NONCE}">\n'


def sim_scores(system: str) -> object:
    user = 'Answer with "scores".\n' + BLOCK
    messages = [{"role": "system", "content": system}, {"role": "user", "content": user}]
    return simulate_chat(SimKnobs(), "sim", messages)


def sim_pair(user: str) -> object:
    return simulate_chat(SimKnobs(), "sim", [{"role": "user", "content": user}])


@_ignoring(ValueError)
def check_label(text: str) -> object:
    validate_label_pool(((text, "Quo"),))
    return None


@_ignoring(ValueError)
def age(text: str) -> object:
    return parse_age(text)


@_ignoring(ValidationProblem)
def window(text: str) -> object:
    return parse_window(text)


def unclosed_openings(n: int) -> str:
    """Openings with distinct nonces and no closing: each one used to scan the rest."""
    return "".join(f'<response label="x" nonce="{i:016x}">\n' for i in range(n // 45 + 1))[:n]


def body_check(text: str) -> object:
    return check_json(text.encode())


def cookie_header(text: str) -> object:
    """What a request's Cookie header costs: the middleware's check, then Starlette's parse."""
    value = text.encode()
    if check_headers([(b"cookie", value)]) is not None:
        return None
    return cookie_parser(text)


def suspect_escape(text: str) -> object:
    return SUSPECT_ESCAPE.search_bytes(text.encode())


# (entry point, input of n characters, size limit): each pattern's worst shapes.
ADVERSARIAL: dict[str, tuple[Callable[[str], object], Callable[[int], str], int]] = {
    "anonymizer: the 35-byte digits run": (anonymize, shaped("I am GPT", "1", " x"), TEXT_LIMIT),
    "anonymizer: version separators": (anonymize, shaped("I'm GPT", "-1", "x?"), TEXT_LIMIT),
    "anonymizer: fullwidth digits": (anonymize, shaped("I am GPT", "\uff11", " x"), TEXT_LIMIT),
    "anonymizer: version words": (anonymize, shaped("I am Claude", " mini", " x"), TEXT_LIMIT),
    "anonymizer: spaces before I": (anonymize, shaped("As an AI", " ", "Ix"), TEXT_LIMIT),
    "anonymizer: sentence starts": (anonymize, shaped("", ". As an AI"), TEXT_LIMIT),
    "anonymizer: phrases removed": (anonymize, shaped("", "x. My name is Gemini."), TEXT_LIMIT),
    "anonymizer: a@": (anonymize, shaped("", "a@"), TEXT_LIMIT),
    "anonymizer: org near-miss": (
        anonymize,
        shaped("I am an AI made by ", "Open", "AIx"),
        TEXT_LIMIT,
    ),
    "sim: q line digits": (latent_quality, shaped("\n[sim q=", "1", "]\n x"), BODY_LIMIT),
    "sim: repeated q lines": (latent_quality, shaped("", "\n[sim q=1]"), BODY_LIMIT),
    "sim: scale digits": (sim_scores, shaped("scale from ", "1", " to x"), BODY_LIMIT),
    "sim: openings without closings": (
        sim_pair,
        shaped("", '<response label="x" nonce="0123456789abcdef">\n'),
        BODY_LIMIT,
    ),
    "blocks: distinct unclosed nonces": (parse_response_blocks, unclosed_openings, BODY_LIMIT),
    "blocks: an endless label": (
        parse_response_blocks,
        shaped('<response label="', "a"),
        BODY_LIMIT,
    ),
    "parsing: [[": (parse_answer, shaped("", "[["), BODY_LIMIT),
    "parsing: near-miss markers": (parse_answer, shaped("", "[[" + "a" * 40 + "]"), BODY_LIMIT),
    "parsing: braces": (parse_answer, shaped("", "{"), BODY_LIMIT),
    "parsing: nested arrays": (parse_answer, shaped("", '{"a":[' + "1," * 200), BODY_LIMIT),
    "labels: letters then a digit": (check_label, shaped("", "A", "1"), BODY_LIMIT),
    "judge scrubber: sk-": (lambda t: redact(t, None), shaped("sk-", "a"), BODY_LIMIT),
    "judge scrubber: key_ runs": (lambda t: redact(t, None), shaped("", "key_"), BODY_LIMIT),
    "judge scrubber: Bearer spaces": (
        lambda t: redact(t, None),
        shaped("Bearer", " ", "\n"),
        BODY_LIMIT,
    ),
    "log scrubber: userinfo without @": (scrub_secrets, shaped("://", "a:"), BODY_LIMIT),
    "log scrubber: fp_ digits": (scrub_secrets, shaped("fp_", "0", "_x"), BODY_LIMIT),
    "log scrubber: sk-": (scrub_secrets, shaped("", "sk-"), BODY_LIMIT),
    "retention age": (age, shaped("", "1", "x"), HEADER_LIMIT),
    "dashboard window": (window, shaped("", "1", "h"), HEADER_LIMIT),
    "middleware: request id": (REQUEST_ID.fullmatch, shaped("", "a", "!"), HEADER_LIMIT),
    "middleware: quoted cookie of backslashes": (
        cookie_header,
        shaped('fp_session="', "\\", '"'),
        HEADER_LIMIT,
    ),
    "middleware: escapes": (suspect_escape, shaped('"', "\\\\u12"), BODY_LIMIT),
    "middleware: body check": (body_check, shaped('["', "\\\\u00", '"]'), BODY_LIMIT),
}


@pytest.mark.parametrize("case", list(ADVERSARIAL))
def test_adversarial_inputs_cost_linear_time(case: str) -> None:
    entry, make, limit = ADVERSARIAL[case]
    assert growth(entry, make, limit) <= MAX_GROWTH


ENTRY_POINTS = {
    "anonymizer": (anonymize, TEXT_LIMIT),
    "sim q line": (latent_quality, BODY_LIMIT),
    "sim pair": (sim_pair, BODY_LIMIT),
    "parsing": (parse_answer, BODY_LIMIT),
    "judge scrubber": (lambda t: redact(t, None), BODY_LIMIT),
    "log scrubber": (scrub_secrets, BODY_LIMIT),
}
# Characters the patterns care about, so that drawn units come near a match.
ALPHABET = st.sampled_from([*'aAI1 .,:;!?-_@/[]{}<>"=\n\t’é１', "sk", "GPT", "as an AI"])


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
@settings(
    max_examples=3,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(unit=st.lists(ALPHABET, min_size=1, max_size=6).map("".join))
def test_repeated_random_units_cost_linear_time(name: str, unit: str) -> None:
    entry, limit = ENTRY_POINTS[name]
    assert growth(entry, shaped("", unit), limit // 2) <= MAX_GROWTH


def _old_name_pattern() -> re.Pattern[str]:
    """The anonymizer's third pattern as `re` compiled it before RE2 (lookarounds and all)."""
    source = resources.files("app.judging").joinpath("data/anonymize.toml").read_text("utf-8")
    data = tomllib.loads(source)
    names = "(?:" + "|".join(re.escape(n) for n in sorted(data["names"], key=len, reverse=True))
    version = r"(?:[-. ]?(?:\d[\w.]*|[a-z]{1,4}\d[\w.]*|mini|pro|instruct))*"
    orgs = "(?:" + "|".join(re.escape(o) for o in data["orgs"]) + ")"
    pattern = data["patterns"][2].replace("{name}", names + ")" + version + r"\b")
    return re.compile(pattern.replace("{org}", orgs + r"\b"), re.IGNORECASE | re.MULTILINE)


def test_the_old_anonymizer_pattern_was_exponential_under_re() -> None:
    old = _old_name_pattern()
    shorter, longer = "I am GPT" + "1" * 16 + " x", "I am GPT" + "1" * 18 + " x"
    # Two more bytes (+6%) at least double the time: exponential, where RE2 is linear.
    ratio = _median_cpu(lambda: old.search(longer), 1) / _median_cpu(lambda: old.search(shorter), 1)
    assert ratio > 2.0
    assert growth(anonymize, shaped("I am GPT", "1", " x"), 340) <= MAX_GROWTH


async def _ticks_during(work: Callable[[], object], chars: int) -> int:
    """How often another task ran while `run_text_work` did `work`."""
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await asyncio.sleep(0)

    ticker = asyncio.create_task(tick())
    await asyncio.sleep(0)
    before = ticks
    await run_text_work(work, chars)
    during = ticks - before
    ticker.cancel()
    return during


async def test_long_texts_are_anonymized_off_the_event_loop() -> None:
    # 5,000 phrases to remove in 100,000 characters: ~50 ms of CPU, too long to hold the loop.
    text = ("x. My name is Gemini." * 5000)[:TEXT_LIMIT]
    assert await _ticks_during(lambda: anonymize(text), len(text)) > 1


async def test_short_texts_are_anonymized_on_the_loop_without_a_thread_hop() -> None:
    text = "As an AI language model, I cannot browse."
    assert await _ticks_during(lambda: anonymize(text), len(text)) <= 1
