"""The provider-independent call flow: render, send, retry, parse, record."""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import functools
import random
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

from app.judging.anonymize import NO_ANONYMIZATION, default_anonymizer
from app.judging.cache import (
    PAIR_ANSWER,
    SCORES_ANSWER,
    CachedAnswer,
    CallCache,
    request_material,
)
from app.judging.judge import ChatRequest, Completion, redact
from app.judging.parsing import (
    ParsedPair,
    UnparseableAnswerError,
    pair_confidence,
    parse_pair_answer,
    parse_score_answer,
)
from app.judging.prompts import PromptRenderer, RenderedPrompt, TemplateRenderError
from app.judging.ratelimit import RateLimiter, RequestRateLimiter
from app.judging.retries import CallFailedError, RetryPolicy, send_with_retries
from app.judging.types import (
    CallRecord,
    Criteria,
    ErrorKind,
    JudgeConfig,
    PairCallResult,
    Rubric,
    ScoreCallResult,
)
from app.judging.versioning import judge_config_hash

T = TypeVar("T")
R = TypeVar("R", bound=CallRecord)
# Takes a judge's requests instead of its wire (a provider batch API): the completion and the
# requests it took after the first, or CallFailedError, or Deferred.
Sender = Callable[["JudgeClient", ChatRequest], Awaitable[tuple[Completion, int]]]


class Deferred(Exception):
    """A request handed to something outside (a provider's batch job): no answer yet."""


_PAIR_FORMAT = (
    '{"winner": "<one of the two labels, or tie>", "confidence": <number from 0 to 1>, '
    '"reason": "<one sentence>"}'
)
_SCORES_FORMAT = '{"scores": {"<label>": <number>, ...}, "reason": "<one or two sentences>"}'
# Rendering runs the anonymizer and the templates over the texts, up to ~0.5 us a character (a
# text dense with phrases to remove; two such 100,000-character texts took 57 ms), and parsing a
# hostile answer can cost more. Above this many characters that work runs in a worker thread,
# which hands the GIL back every 5 ms (sys.getswitchinterval; RE2 itself releases it), so one
# request never holds the event loop longer; below, the thread hop would cost more than it saves.
TEXT_WORK_ON_LOOP_CHARS = 8_000


async def run_text_work(work: Callable[[], T], chars: int) -> T:
    """`work()` on the event loop for short texts, in a worker thread for long ones."""
    if chars <= TEXT_WORK_ON_LOOP_CHARS:
        return work()
    return await asyncio.to_thread(work)


@dataclass
class _Outcome(Generic[T]):
    parsed: T | None = None
    completion: Completion | None = None
    raw_output: str | None = None
    provider_model: str | None = None
    tokens_in: int | None = None
    tokens_out: int | None = None
    reasoning_tokens: int | None = None
    retries: int = 0
    error_kind: ErrorKind | None = None
    error: str | None = None

    @classmethod
    def repeating(cls, hit: CachedAnswer) -> _Outcome[T]:
        """A call answered from the cache: what the stored call reported, and nothing spent."""
        return cls(
            raw_output=hit.raw_output,
            provider_model=hit.provider_model,
            tokens_in=0,
            tokens_out=0,
            reasoning_tokens=0,
        )

    def add(self, completion: Completion) -> None:
        self.raw_output = raw_output(completion)
        self.provider_model = completion.provider_model or self.provider_model
        self.tokens_in = _add_optional(self.tokens_in, completion.tokens_in)
        self.tokens_out = _add_optional(self.tokens_out, completion.tokens_out)
        self.reasoning_tokens = _add_optional(self.reasoning_tokens, completion.reasoning_tokens)


def raw_output(completion: Completion) -> str:
    """What a call stores as its raw output: the answer, after the model's thinking when it
    showed any (marked, so that a reader of the call sees which is which)."""
    if completion.thinking is None:
        return completion.text
    return f"{THINKING_MARK}\n{completion.thinking}\n{ANSWER_MARK}\n{completion.text}"


THINKING_MARK, ANSWER_MARK = "[thinking]", "[answer]"


@dataclass
class _Timing:
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    started: float = field(default_factory=time.monotonic)

    def finish(self) -> tuple[datetime, float]:
        return datetime.now(UTC), (time.monotonic() - self.started) * 1000


def _add_optional(total: int | None, more: int | None) -> int | None:
    if more is None:
        return total
    return (total or 0) + more


class JudgeClient(ABC):
    """One configured judge model: the shared call flow; providers only implement one request
    in `_complete`."""

    def __init__(self, config: JudgeConfig, limiter: RateLimiter | None = None) -> None:
        """`limiter` counts the judge's `rpm` (shared by processes); else counted in process."""
        self.config = config
        self.config_hash = judge_config_hash(config)
        anonymizer = default_anonymizer() if config.anonymize else NO_ANONYMIZATION
        self.renderer = PromptRenderer(config.templates, config.effective_label_pool, anonymizer)
        self._slots = asyncio.Semaphore(config.max_concurrency)
        self._limiter: RateLimiter | None = limiter
        if limiter is None and config.rpm:
            self._limiter = RequestRateLimiter(config.rpm)
        self._policy = RetryPolicy(config.max_attempts, config.backoff_base_s, config.backoff_max_s)
        self._sender: Sender | None = None
        self._cache: CallCache | None = None
        self._prices = (config.price_in_per_mtok, config.price_out_per_mtok)
        self._default_rng: random.Random = random.SystemRandom()
        # Jitter has its own generator so that retries never shift a seeded caller's draws.
        self._jitter_rng = random.Random()

    @abstractmethod
    async def _complete(self, request: ChatRequest, timeout_s: float) -> Completion:
        """Send one request; raise ProviderCallError on failure."""

    async def aclose(self) -> None:  # noqa: B027 - providers without a client keep it
        """Release the judge's HTTP client."""

    async def _send(self, request: ChatRequest, deadline: float) -> Completion:
        async with self._slots:
            if self._limiter is not None:
                await self._limiter.acquire()
            # Measured after queueing, so a request never gets more time than the call has left.
            seconds_left = deadline - time.monotonic()
            return await self._complete(request, min(self.config.timeout_s, seconds_left))

    def deferring(self, sender: Sender) -> JudgeClient:
        """This judge with its requests going to `sender` (its provider's batch API) instead of
        its wire, and priced at the batch price; the same prompts, parsing and records."""
        twin = copy.copy(self)
        twin._sender = sender
        twin._prices = self.config.batch_prices
        return twin

    def caching(self, cache: CallCache) -> JudgeClient:
        """This judge with its requests looked up in `cache` first (`cache: true`)."""
        twin = copy.copy(self)
        twin._cache = cache
        return twin

    async def _lookup(
        self, request: ChatRequest, fields: Sequence[str]
    ) -> tuple[str | None, CachedAnswer | None]:
        """The request's cache key and the stored answer to it, if the judge caches."""
        if self._cache is None:
            return None, None
        key = self._cache.key(request_material(self.config, self.config_hash, request))
        return key, await self._cache.find(key, fields)

    async def _send_with_retries(
        self, request: ChatRequest, deadline: float
    ) -> tuple[Completion, int]:
        if self._sender is not None:
            return await self._sender(self, request)
        return await send_with_retries(
            lambda: self._send(request, deadline),
            deadline=deadline,
            policy=self._policy,
            rng=self._jitter_rng,
        )

    async def _ask(
        self,
        request: ChatRequest,
        parse: Callable[[Completion], T],
        reminder: str,
        deadline: float,
    ) -> _Outcome[T]:
        """Send with retries, then parse; an unparseable answer gets exactly one repair."""
        outcome: _Outcome[T] = _Outcome()
        for is_repair in (False, True):
            try:
                completion, extra = await self._send_with_retries(request, deadline)
            except CallFailedError as failure:
                outcome.retries += failure.extra_requests
                outcome.error_kind, outcome.error = failure.kind, failure.message
                if failure.raw_output is not None:
                    outcome.raw_output = failure.raw_output
                return outcome
            outcome.retries += extra
            outcome.add(completion)
            try:
                parsed = await run_text_work(
                    functools.partial(parse, completion), len(completion.text)
                )
                outcome.parsed, outcome.completion = parsed, completion
                outcome.error_kind = outcome.error = None
                return outcome
            except UnparseableAnswerError as err:
                outcome.error_kind, outcome.error = "unparseable", str(err)
            if not is_repair:
                outcome.retries += 1
                request = ChatRequest(
                    request.system,
                    f"{request.user}\n\n{reminder}",
                    request.answer_kind,
                    request.want_logprobs,
                )
        return outcome

    async def _render(self, render: Callable[[], RenderedPrompt], chars: int) -> RenderedPrompt:
        """A judge's own templates render in a worker thread, within their budget (a hostile one
        may spend all of it); the packaged ones as any text work."""
        if self.renderer.custom:
            return await asyncio.to_thread(render)
        return await run_text_work(render, chars)

    def _template_failure(
        self, kind: type[R], timing: _Timing, err: TemplateRenderError, template_hash: str
    ) -> R:
        """The call of a judge whose own template failed on its inputs: no request was made."""
        failed = kind.failure(timing.started_at, "template_error", str(err))
        return dataclasses.replace(failed, template_hash=template_hash)

    def _cost(self, tokens_in: int | None, tokens_out: int | None) -> float | None:
        """What a call cost from its token counts; None (unknown) when the judge has no prices,
        or a count is missing or invalid: a negative count (a provider's bug or a hostile
        server) would make a negative cost, which would lower every sum it joins."""
        if not self.config.prices_known:
            return None
        if tokens_in is None or tokens_out is None or tokens_in < 0 or tokens_out < 0:
            return None
        price_in, price_out = self._prices
        # The provider edge keeps counts non-negative and prices are validated non-negative;
        # the floor keeps a judge built in code with a negative price from refunding calls.
        return max((tokens_in * price_in + tokens_out * price_out) / 1e6, 0.0)

    async def judge_pair(
        self,
        prompt: str,
        first_text: str,
        second_text: str,
        *,
        criteria: Criteria | None = None,
        reference: str | None = None,
        deadline: float,
        rng: random.Random | None = None,
    ) -> PairCallResult:
        """Ask which of two shown responses is better; failures come back as results."""
        timing = _Timing()
        try:
            rendered = await self._render(
                functools.partial(
                    self.renderer.render_pair,
                    prompt,
                    first_text,
                    second_text,
                    rng=rng or self._default_rng,
                    criteria=criteria,
                    reference=reference,
                ),
                len(first_text) + len(second_text),
            )
        except TemplateRenderError as err:
            return self._template_failure(PairCallResult, timing, err, self.renderer.pairwise_hash)
        first_label, second_label = rendered.labels
        request = ChatRequest(rendered.system, rendered.user, "pair", self.config.use_logprobs)
        reminder = (
            f"Reminder: answer with exactly one JSON object and nothing else: {_PAIR_FORMAT} "
            f"The labels are {first_label} and {second_label}."
        )
        key, hit = await self._lookup(request, PAIR_ANSWER)
        if hit is not None:
            outcome: _Outcome[ParsedPair] = _Outcome.repeating(hit)
            return self._pair_record(rendered, outcome, timing, key, hit, **hit.answer)
        outcome = await self._ask(
            request,
            lambda c: parse_pair_answer(c.text, first_label, second_label),
            reminder,
            deadline,
        )
        return self._pair_result(rendered, outcome, timing, key)

    def _pair_result(
        self,
        rendered: RenderedPrompt,
        outcome: _Outcome[ParsedPair],
        timing: _Timing,
        key: str | None = None,
    ) -> PairCallResult:
        first_label, second_label = rendered.labels
        confidence, source = None, None
        if outcome.parsed is not None and outcome.completion is not None:
            confidence, source = pair_confidence(
                outcome.parsed, outcome.completion.logprobs, first_label, second_label
            )
        pick = outcome.parsed.pick if outcome.parsed is not None else None
        return self._pair_record(
            rendered, outcome, timing, key, None, pick, confidence, confidence_source=source
        )

    def _pair_record(
        self,
        rendered: RenderedPrompt,
        outcome: _Outcome[ParsedPair],
        timing: _Timing,
        key: str | None,
        hit: CachedAnswer | None,
        pick: Any,
        confidence: float | None,
        confidence_source: Any,
    ) -> PairCallResult:
        first_label, second_label = rendered.labels
        return self._record(
            PairCallResult,
            rendered,
            outcome,
            timing,
            pick=pick,
            label_pair=rendered.label_pair or f"{first_label}/{second_label}",
            first_label=first_label,
            second_label=second_label,
            confidence=confidence,
            confidence_source=confidence_source,
            request_key=key,
            cached_from=hit.call_id if hit is not None else None,
        )

    async def judge_scores(
        self,
        prompt: str,
        shown_texts: Sequence[str],
        rubric: Rubric,
        *,
        criteria: Criteria | None = None,
        deadline: float,
        rng: random.Random | None = None,
    ) -> ScoreCallResult:
        """Score responses shown in the given order; failures come back as results."""
        timing = _Timing()
        try:
            rendered = await self._render(
                functools.partial(
                    self.renderer.render_scores,
                    prompt,
                    shown_texts,
                    rubric,
                    rng=rng or self._default_rng,
                    max_chars=self.config.max_score_chars,
                    criteria=criteria,
                ),
                sum(len(text) for text in shown_texts),
            )
        except TemplateRenderError as err:
            return self._template_failure(ScoreCallResult, timing, err, self.renderer.scoring_hash)
        request = ChatRequest(rendered.system, rendered.user, "scores", self.config.use_logprobs)
        reminder = (
            f"Reminder: answer with exactly one JSON object and nothing else: {_SCORES_FORMAT} "
            f"Score every label: {', '.join(rendered.labels)}; each from {rubric.min:g} "
            f"to {rubric.max:g}."
        )
        key, hit = await self._lookup(request, SCORES_ANSWER)
        if hit is not None:
            scores = tuple(hit.answer["scores"])
            return self._score_result(rendered, _Outcome.repeating(hit), timing, key, hit, scores)
        outcome = await self._ask(
            request,
            lambda c: parse_score_answer(c.text, rendered.labels, rubric),
            reminder,
            deadline,
        )
        return self._score_result(rendered, outcome, timing, key, None, outcome.parsed)

    def _score_result(
        self,
        rendered: RenderedPrompt,
        outcome: _Outcome[tuple[float, ...]],
        timing: _Timing,
        key: str | None = None,
        hit: CachedAnswer | None = None,
        scores: tuple[float, ...] | None = None,
    ) -> ScoreCallResult:
        answer = {
            "labels": rendered.labels,
            "scores": scores,
            "request_key": key,
            "cached_from": hit.call_id if hit is not None else None,
        }
        return self._record(ScoreCallResult, rendered, outcome, timing, **answer)

    def _record(
        self,
        kind: type[R],
        rendered: RenderedPrompt,
        outcome: _Outcome[Any],
        timing: _Timing,
        **answer: Any,
    ) -> R:
        """The call as recorded: what every call records, plus the `answer` fields of `kind`."""
        finished_at, latency_ms = timing.finish()
        return kind(
            raw_output=outcome.raw_output,
            provider_model=outcome.provider_model,
            tokens_in=outcome.tokens_in,
            tokens_out=outcome.tokens_out,
            reasoning_tokens=outcome.reasoning_tokens,
            cost_usd=self._cost(outcome.tokens_in, outcome.tokens_out),
            latency_ms=latency_ms,
            started_at=timing.started_at,
            finished_at=finished_at,
            retries=outcome.retries,
            error_kind=outcome.error_kind,
            error=redact(outcome.error, self.config.api_key) if outcome.error else None,
            template_hash=rendered.template_hash,
            nonces=rendered.nonces,
            anonymized_replacements=rendered.anonymized_replacements,
            **answer,
        )
