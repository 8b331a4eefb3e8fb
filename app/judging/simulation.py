"""The simulated judge: a pure function from (knobs, model, chat messages, attempt) to an answer.

The in-process `sim` provider and the `fairpair sim-judge` HTTP server both call
`simulate_chat`, so they answer identically to identical messages.
"""

from __future__ import annotations

import hashlib
import json
import math
import random
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from app.judging.blocks import ResponseBlock, parse_response_blocks, text_outside_blocks
from app.judging.families import family_of, normalized_family
from app.judging.types import DEFAULT_LABEL_POOL, LabelPool, SimKnobs, TokenLogprob
from app.textpatterns import compile_linear

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# `[sim q=<number>]`, `[sim family=<name>]` or `[sim q=<number> family=<name>]` as the last line.
_SIM_LINE = compile_linear(
    rf"(?:^|\n)\[sim(?: q=({_NUMBER}))?(?: family=([A-Za-z0-9_.-]{{1,100}}))?\][ \t]*\n?\Z"
)
_SCALE = compile_linear(r"scale from (-?\d+(?:\.\d+)?) to (-?\d+(?:\.\d+)?)")
_STANDARD_NORMAL = NormalDist()
# What the sim takes for an instruction to the judge inside a response: the injection probes of
# app/cards/probes.py (an order to ignore the other response, a fake system tag, a fake verdict).
INJECTION = compile_linear(
    r"ignore the other response|<\|?/?system\|?>|\[system\]|\{\s*\"winner\"\s*:", ignore_case=True
)
MALFORMED_ANSWER = "Both responses have merits; it is hard to say which one is better."
RETRY_AFTER_S = 0.05


@dataclass(frozen=True)
class SimReply:
    """The sim's answer: an HTTP-like status, the text and optional token logprobs."""

    status: int
    text: str
    logprobs: tuple[TokenLogprob, ...] | None
    latency_s: float
    retry_after_s: float | None = None


@dataclass(frozen=True)
class SimMarker:
    """What a response's trailing `[sim ...]` line tells the sim, and the text the judge sees."""

    quality: float | None
    family: str | None
    visible_text: str


def sim_marker(text: str) -> SimMarker:
    """Split off a trailing `[sim q=<number> family=<name>]` line (either part may be absent).

    The family is the response's own family as the sim judge perceives it: a real judge never
    sees the model name (JUDGING.md) and can only recognise its family by the text, so the sim
    reads it from the text as well, in process and over HTTP alike.
    """
    match = _SIM_LINE.search(text)
    if match is None or (match.group(1) is None and match.group(2) is None):
        return SimMarker(None, None, text)
    quality = float(match.group(1)) if match.group(1) is not None else None
    return SimMarker(quality, normalized_family(match.group(2)), text[: match.start()])


def latent_quality(text: str) -> tuple[float, str]:
    """The text's latent quality q and the text the judge sees (without a `[sim ...]` line)."""
    marker = sim_marker(text)
    if marker.quality is not None:
        return marker.quality, marker.visible_text
    digest = hashlib.sha256(marker.visible_text.encode()).digest()
    uniform = (int.from_bytes(digest[:8], "big") + 0.5) / 2**64
    return _STANDARD_NORMAL.inv_cdf(uniform), marker.visible_text


def own_family_sign(judge_family: str | None, first_text: str, second_text: str) -> float:
    """+1 when only the first response is of the judge's family, -1 when only the second is,
    else 0 (the judge is conflicted only when exactly one response is its family's)."""
    if judge_family is None:
        return 0.0
    first_own = sim_marker(first_text).family == judge_family
    second_own = sim_marker(second_text).family == judge_family
    return float(first_own) - float(second_own)


def estimate_tokens(text: str) -> int:
    """A rough token count (four characters a token), for the sim's usage figures."""
    return len(text) // 4 + 1


def _sigmoid(z: float) -> float:
    # Written both ways so that extreme [sim q=...] values cannot overflow exp().
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    return math.exp(z) / (1.0 + math.exp(z))


def _rng(
    knobs: SimKnobs, model: str, messages: Sequence[Mapping[str, str]], *salt: object
) -> random.Random:
    payload = [knobs.seed, model, [[m["role"], m["content"]] for m in messages], *salt]
    digest = hashlib.sha256(json.dumps(payload).encode()).digest()
    return random.Random(int.from_bytes(digest[:16], "big"))


def messages_key(model: str, messages: Sequence[Mapping[str, str]]) -> str:
    """A short key identifying one request, for counting repeated attempts."""
    payload = json.dumps([model, [[m["role"], m["content"]] for m in messages]])
    return hashlib.sha256(payload.encode()).hexdigest()


class AttemptCounter:
    """How often each identical request was seen, so a retry is not doomed to repeat a fault."""

    def __init__(self, capacity: int = 100_000) -> None:
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._capacity = capacity

    def next_attempt(self, key: str) -> int:
        """0 for the first time `key` is seen, then 1, 2, ..."""
        attempt = self._seen.pop(key, -1) + 1
        self._seen[key] = attempt
        if len(self._seen) > self._capacity:
            self._seen.popitem(last=False)
        return attempt


def _answer_tokens(
    pieces: Sequence[str], special: int, top: Sequence[tuple[str, float]], chosen_lp: float
) -> tuple[TokenLogprob, ...]:
    return tuple(
        TokenLogprob(piece, chosen_lp, tuple(top))
        if index == special
        else TokenLogprob(piece, 0.0, ((piece, 0.0),))
        for index, piece in enumerate(pieces)
    )


def label_sign(pool: LabelPool, first_label: str, second_label: str) -> float:
    """JUDGING.md's s: +1 when the first-shown label is the second of its pool pair, -1 when it
    is the first; 0 for labels that form no pair of the pool (the sim cannot tell which one the
    bias would favour, so it adds none rather than guess)."""
    for pair in pool:
        if (first_label, second_label) == (pair[1], pair[0]):
            return 1.0
        if (first_label, second_label) == pair:
            return -1.0
    return 0.0


def _decide_pair(
    knobs: SimKnobs,
    first: ResponseBlock,
    second: ResponseBlock,
    rng: random.Random,
    label_pool: LabelPool,
    judge_family: str | None,
) -> tuple[str, dict[str, float]]:
    q1, text1 = latent_quality(first.text)
    q2, text2 = latent_quality(second.text)
    obeyed = _obeyed_instruction(knobs, first.label, text1, second.label, text2, rng)
    if obeyed is not None:
        other = second.label if obeyed == first.label else first.label
        return obeyed, {obeyed: 1.0, other: 0.0, "tie": 0.0}
    s = label_sign(label_pool, first.label, second.label)
    z = (
        knobs.beta * (q1 - q2)
        + knobs.position_bias
        + knobs.label_bias * s
        + knobs.length_bias * math.tanh((len(text1) - len(text2)) / 500)
        + knobs.self_preference * own_family_sign(judge_family, first.text, second.text)
    )
    p_first = _sigmoid(z)
    probabilities = {
        first.label: (1 - knobs.tie_rate) * p_first,
        second.label: (1 - knobs.tie_rate) * (1 - p_first),
        "tie": knobs.tie_rate,
    }
    u_tie, u_pick = rng.random(), rng.random()
    if u_tie < knobs.tie_rate:
        return "tie", probabilities
    return (first.label if u_pick < p_first else second.label), probabilities


def _obeyed_instruction(
    knobs: SimKnobs, label1: str, text1: str, label2: str, text2: str, rng: random.Random
) -> str | None:
    """The label of the one response carrying an instruction, when the sim obeys it this time.

    No draw is taken with the knob at 0, so a judge without it answers exactly as before.
    """
    if knobs.injection_following <= 0:
        return None
    has1, has2 = INJECTION.search(text1) is not None, INJECTION.search(text2) is not None
    if has1 == has2 or rng.random() >= knobs.injection_following:
        return None
    return label1 if has1 else label2


def _pair_reply(
    knobs: SimKnobs,
    blocks: Sequence[ResponseBlock],
    rng: random.Random,
    top_logprobs: int | None,
    label_pool: LabelPool,
    judge_family: str | None,
) -> tuple[str, tuple[TokenLogprob, ...] | None]:
    winner, probabilities = _decide_pair(
        knobs, blocks[-2], blocks[-1], rng, label_pool, judge_family
    )
    confidence = probabilities[winner]
    # Tokens as a chat model would emit them; the label is token 4, after `"winner"`.
    tail = f'", "confidence": {confidence:.4f}, "reason": "Simulated judgement."}}'
    pieces = ['{"', "winner", '":', ' "', winner, tail]
    if top_logprobs is None:
        return "".join(pieces), None
    top = sorted(
        ((label, math.log(p)) for label, p in probabilities.items() if p > 0),
        key=lambda item: -item[1],
    )[: max(top_logprobs, 1)]
    return "".join(pieces), _answer_tokens(pieces, 4, top, math.log(confidence))


def _scale(system: str) -> tuple[float, float]:
    match = _SCALE.search(system)
    return (float(match.group(1)), float(match.group(2))) if match else (1.0, 5.0)


def _score(
    knobs: SimKnobs,
    block: ResponseBlock,
    shown_first: bool,
    offset: float,
    scale: tuple[float, float],
    rng: random.Random,
    judge_family: str | None,
) -> float:
    q, text = latent_quality(block.text)
    low, high = scale
    own = judge_family is not None and sim_marker(block.text).family == judge_family
    raw = (
        (low + high) / 2
        + q
        + offset
        + knobs.first_slot_bonus * shown_first
        + knobs.self_preference * own
        + knobs.length_bias * math.tanh((len(text) - 500) / 500)
        + rng.gauss(0.0, knobs.score_noise)
    )
    return float(min(max(math.floor(raw + 0.5), low), high))


def _scores_reply(
    knobs: SimKnobs,
    model: str,
    system: str,
    blocks: Sequence[ResponseBlock],
    rng: random.Random,
    top_logprobs: int | None,
    judge_family: str | None,
) -> tuple[str, tuple[TokenLogprob, ...] | None]:
    offset = knobs.offsets.get(model, 0.0)
    scale = _scale(system)
    scores = {
        b.label: _score(knobs, b, index == 0, offset, scale, rng, judge_family)
        for index, b in enumerate(blocks)
    }
    text = json.dumps(
        {
            "scores": {k: int(v) if v.is_integer() else v for k, v in scores.items()},
            "reason": "Simulated scores.",
        }
    )
    if top_logprobs is None:
        return text, None
    return text, _answer_tokens([text], -1, (), 0.0)


def _fault(knobs: SimKnobs, rng: random.Random) -> SimReply | None:
    latency = knobs.latency_ms / 1000
    u = rng.random()
    if u < knobs.rate_limit_rate:
        return SimReply(429, "simulated rate limit", None, latency, RETRY_AFTER_S)
    if u < knobs.rate_limit_rate + knobs.error_rate:
        return SimReply(500, "simulated server error", None, latency)
    if rng.random() < knobs.malformed_rate:
        return SimReply(200, MALFORMED_ANSWER, None, latency)
    return None


def _message_text(messages: Sequence[Mapping[str, str]], role: str) -> str:
    texts = [m["content"] for m in messages if m["role"] == role]
    return texts[-1] if texts else ""


def simulate_chat(
    knobs: SimKnobs,
    model: str,
    messages: Sequence[Mapping[str, str]],
    *,
    attempt: int = 0,
    top_logprobs: int | None = None,
    label_pool: LabelPool = DEFAULT_LABEL_POOL,
    judge_family: str | None = None,
) -> SimReply:
    """Answer one chat request the way JUDGING.md's simulated judge does.

    `label_pool` is the judge's pool: the prompt shows labels in display order only, so the
    label bias needs the pool to know which label of a pair is the second. `judge_family` is
    the judge's own family, for `self_preference`; None takes the family of `model` by the
    default prefixes (what the HTTP sim judge knows: the model it is asked for).
    """
    judge_family = normalized_family(judge_family) or family_of(model, None)
    fault = _fault(knobs, _rng(knobs, model, messages, "fault", attempt))
    if fault is not None:
        return fault
    user = _message_text(messages, "user")
    blocks = parse_response_blocks(user)
    rng = _rng(knobs, model, messages, "decide")
    latency = knobs.latency_ms / 1000
    if '"scores"' in text_outside_blocks(user) and blocks:
        system = _message_text(messages, "system")
        text, tokens = _scores_reply(knobs, model, system, blocks, rng, top_logprobs, judge_family)
        return SimReply(200, text, tokens, latency)
    if len(blocks) < 2:
        return SimReply(400, "sim-judge: found no two response blocks", None, latency)
    text, tokens = _pair_reply(knobs, blocks, rng, top_logprobs, label_pool, judge_family)
    return SimReply(200, text, tokens, latency)
