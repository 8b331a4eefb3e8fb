"""Plain value types shared by the judging package: configs, rubrics and call results."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal, Self
from urllib.parse import urlsplit

Provider = Literal["openai", "azure_openai", "anthropic", "sim"]
Pick = Literal["first", "second", "tie"]
ConfidenceSource = Literal["logprobs", "stated"]
ErrorKind = Literal[
    "rate_limited",
    "server_error",
    "timeout",
    "connection",
    "unparseable",
    "unsupported_parameter",
    "deadline",
    "bad_request",
    "auth",
    # A provider batch job ended before the request ran (app/judging/batchapi.py).
    "expired",
    "cancelled",
    # The provider's batch job failed whole, twice (it is retried once).
    "batch_failed",
    # Submitted to the provider's batch API three times without a known outcome (no job id
    # came back and none was found by its metadata): not sent a fourth time.
    "submit_unclear",
    # The judge answered 2xx with JSON that is not a completion as its API documents one
    # (app/judging/providers/answers.py); not retried, the answer kept as the raw output.
    "invalid_response",
    # A judge's own (API-posted) template failed or ran over its budget on this call's inputs.
    "template_error",
]
# Whether a judge's calls in a provider-mode batch go through the provider's batch API; `auto`:
# for the official OpenAI and Anthropic hosts only (vLLM, Ollama and the like have none).
BatchApiSetting = Literal["auto", "on", "off"]
BATCH_API_SETTINGS: tuple[BatchApiSetting, ...] = ("auto", "on", "off")
BATCH_API_HOSTS = {"openai": "api.openai.com", "anthropic": "api.anthropic.com"}
# Azure OpenAI's Batch API is another API (its own file uploads, deployments of a "Global-Batch"
# type, `/openai/batches` paths): not built, so an azure_openai judge's `batch_api` is never `on`.
AZURE_NO_BATCH_API = (
    "an azure_openai judge has no provider batch API in fairpair: Azure OpenAI's Batch API "
    "differs from OpenAI's (Global-Batch deployments, its own files and batches endpoints) "
    'and is not supported; use batch_api = "auto" or "off" (its calls in a provider-mode '
    "batch are then made live)"
)
# How a simulated provider batch job ends (app/simjudge/batches.py).
BatchOutcome = Literal["completed", "expired", "failed"]
BATCH_OUTCOMES: tuple[BatchOutcome, ...] = ("completed", "expired", "failed")
TemplateName = Literal["pairwise_system", "pairwise_user", "scoring_system", "scoring_user"]
TEMPLATE_NAMES: tuple[TemplateName, ...] = (
    "pairwise_system",
    "pairwise_user",
    "scoring_system",
    "scoring_user",
)
LabelPool = tuple[tuple[str, str], ...]
# Anthropic refuses a thinking budget below this (the extended-thinking docs).
MIN_THINKING_BUDGET = 1024
# OpenAI's `reasoning_effort` values (o-series and gpt-5; `minimal` is gpt-5's).
ReasoningEffort = Literal["minimal", "low", "medium", "high"]
REASONING_EFFORTS: tuple[ReasoningEffort, ...] = ("minimal", "low", "medium", "high")
AzureAuth = Literal["api_key", "entra_id"]
AZURE_AUTHS: tuple[AzureAuth, ...] = ("api_key", "entra_id")

# What the SDKs call when no base_url is given.
OFFICIAL_BASE_URLS = {
    "openai": "https://api.openai.com/v1",
    "anthropic": "https://api.anthropic.com",
}
DEFAULT_LABEL_POOL: LabelPool = (("X", "Y"), ("P", "Q"), ("K", "M"), ("R", "S"), ("F", "H"))


@dataclass(frozen=True)
class SimKnobs:
    """Biases and faults of the simulated judge; every bias is a logit offset."""

    position_bias: float = 0.0
    label_bias: float = 0.0
    length_bias: float = 0.0
    beta: float = 1.5
    tie_rate: float = 0.0
    offsets: Mapping[str, float] = field(default_factory=dict)
    first_slot_bonus: float = 0.0
    # Toward a response whose `[sim family=]` is the judge's own: a logit offset when exactly
    # one of a pair is, and score points (the units of q) on every such response when scoring.
    self_preference: float = 0.0
    # The share of pairs where exactly one response carries an instruction to the judge
    # (`INJECTION` in judging/simulation.py) in which the sim obeys it and picks that response.
    injection_following: float = 0.0
    score_noise: float = 0.5
    latency_ms: float = 0.0
    error_rate: float = 0.0
    malformed_rate: float = 0.0
    rate_limit_rate: float = 0.0
    seed: int = 0
    # The provider batch emulation: seconds a job takes, and how it ends.
    batch_delay_s: float = 0.0
    batch_outcome: BatchOutcome = "completed"

    def __post_init__(self) -> None:
        rates = {
            "tie_rate": self.tie_rate,
            "error_rate": self.error_rate,
            "malformed_rate": self.malformed_rate,
            "rate_limit_rate": self.rate_limit_rate,
            "injection_following": self.injection_following,
        }
        for name, rate in rates.items():
            if not 0.0 <= rate <= 1.0:
                raise ValueError(f"{name} must be between 0 and 1")
        if self.error_rate + self.rate_limit_rate > 1.0:
            raise ValueError("error_rate + rate_limit_rate must not exceed 1")
        if self.score_noise < 0 or self.latency_ms < 0:
            raise ValueError("score_noise and latency_ms must not be negative")
        if not 0 <= self.batch_delay_s < float("inf"):
            raise ValueError("batch_delay_s must be a finite number of seconds, not negative")
        if self.batch_outcome not in BATCH_OUTCOMES:
            raise ValueError(f"batch_outcome must be one of {', '.join(BATCH_OUTCOMES)}")


def prices_known(provider: str, price_in_per_mtok: float, price_out_per_mtok: float) -> bool:
    """Whether a judge's calls can be priced: a price was set (both are 0 by default, which means
    unset, so an unpriced judge never reads as free), or it is the simulated judge, which is."""
    return provider == "sim" or price_in_per_mtok > 0 or price_out_per_mtok > 0


@dataclass(frozen=True)
class JudgeConfig:
    """Everything needed to call one judge; `api_key` is already resolved by the caller."""

    name: str
    provider: Provider
    model: str
    base_url: str | None = None
    api_key: str | None = None
    family: str | None = None
    temperature: float = 0.0
    timeout_s: float = 60.0
    max_concurrency: int = 8
    rpm: int | None = None
    json_mode: bool | None = None
    logprobs: bool | None = None
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0
    templates: Mapping[str, str] = field(default_factory=dict)
    label_pool: LabelPool | None = None
    anonymize: bool = True
    sim: SimKnobs = field(default_factory=SimKnobs)
    max_attempts: int = 4
    backoff_base_s: float = 0.5
    backoff_max_s: float = 20.0
    max_tokens: int = 1024
    max_score_chars: int = 200_000
    batch_api: BatchApiSetting = "auto"
    # The batch API's prices; unset, half the live ones (both providers' discount).
    price_in_per_mtok_batch: float | None = None
    price_out_per_mtok_batch: float | None = None
    # A reasoning model (OpenAI o1, o3, o4-mini, gpt-5): it refuses `temperature`, `logprobs`
    # and `max_tokens`. `reasoning_effort` set makes a judge one as well (`is_reasoning`).
    reasoning: bool = False
    reasoning_effort: ReasoningEffort | None = None
    # Sent as is when set (a reasoning model counts its hidden reasoning tokens in it).
    max_completion_tokens: int | None = None
    # Anthropic extended thinking: the tokens the model may think in before it answers; the
    # request's `max_tokens` is this plus `max_tokens` (the answer's own allowance).
    thinking_budget_tokens: int | None = None
    # Azure OpenAI (`azure_openai`): the deployment that selects the model, and the
    # `api-version` query parameter; both checked by app/judging/egress.py's Azure rule.
    deployment: str | None = None
    api_version: str | None = None
    # How an Azure judge sends its key variable's value: `api_key` in an `api-key` header, or
    # `entra_id`, a Microsoft Entra ID token, as `Authorization: Bearer`.
    azure_auth: AzureAuth = "api_key"
    # The judge-call cache (app/judging/cache.py): an exact repeat of a request this judge
    # version answered is answered from the stored call. Not in the version: it changes no answer.
    cache: bool = False

    def __post_init__(self) -> None:
        positive = {
            "timeout_s": self.timeout_s,
            "max_concurrency": self.max_concurrency,
            "max_attempts": self.max_attempts,
            "max_tokens": self.max_tokens,
            "max_score_chars": self.max_score_chars,
            "rpm": self.rpm if self.rpm is not None else 1,
            "max_completion_tokens": self.max_completion_tokens or 1,
        }
        for name, value in positive.items():
            if value <= 0:
                raise ValueError(f"{name} must be positive")
        non_negative = {
            "temperature": self.temperature,
            "price_in_per_mtok": self.price_in_per_mtok,
            "price_out_per_mtok": self.price_out_per_mtok,
            "backoff_base_s": self.backoff_base_s,
            "backoff_max_s": self.backoff_max_s,
            "price_in_per_mtok_batch": self.price_in_per_mtok_batch or 0.0,
            "price_out_per_mtok_batch": self.price_out_per_mtok_batch or 0.0,
        }
        for name, value in non_negative.items():
            if value < 0:
                raise ValueError(f"{name} must not be negative")
        if self.batch_api not in BATCH_API_SETTINGS:
            raise ValueError(f"batch_api must be one of {', '.join(BATCH_API_SETTINGS)}")
        if self.reasoning_effort is not None and self.reasoning_effort not in REASONING_EFFORTS:
            raise ValueError(f"reasoning_effort must be one of {', '.join(REASONING_EFFORTS)}")
        if self.thinking_budget_tokens is not None:
            if self.provider != "anthropic":
                raise ValueError("only an anthropic judge takes thinking_budget_tokens")
            if self.thinking_budget_tokens < MIN_THINKING_BUDGET:
                raise ValueError(f"thinking_budget_tokens must be at least {MIN_THINKING_BUDGET}")
        if self.provider == "azure_openai":
            if self.base_url is None or self.deployment is None or self.api_version is None:
                raise ValueError("an azure_openai judge needs base_url, deployment and api_version")
            if self.batch_api == "on":
                raise ValueError(AZURE_NO_BATCH_API)
        if self.azure_auth not in AZURE_AUTHS:
            raise ValueError(f"azure_auth must be one of {', '.join(AZURE_AUTHS)}")

    @property
    def is_reasoning(self) -> bool:
        """Whether the judge is a reasoning model: `reasoning` or `reasoning_effort` is set."""
        return self.reasoning or self.reasoning_effort is not None

    @property
    def effective_base_url(self) -> str | None:
        """`base_url`, or the provider's official endpoint when it is unset."""
        if self.base_url is None:
            return OFFICIAL_BASE_URLS.get(self.provider)
        return self.base_url

    @property
    def base_url_host(self) -> str | None:
        """Host of `base_url`, or the provider's official host when it is unset."""
        if self.base_url is None:
            return {"openai": "api.openai.com", "anthropic": "api.anthropic.com"}.get(self.provider)
        return urlsplit(self.base_url).hostname

    @property
    def use_json_mode(self) -> bool:
        """Whether requests ask for a JSON object answer."""
        if self.json_mode is not None:
            return self.json_mode
        return self.base_url_host == "api.openai.com"

    @property
    def use_logprobs(self) -> bool:
        """Whether requests ask for token logprobs (never for the Messages API, nor a reasoning
        model: those refuse them)."""
        if self.provider == "anthropic" or self.is_reasoning:
            return False
        if self.logprobs is not None:
            return self.logprobs
        return self.base_url_host == "api.openai.com"

    @property
    def has_batch_api(self) -> bool:
        """Whether provider-mode batches send this judge's calls to its provider's batch API."""
        if self.provider not in BATCH_API_HOSTS or self.batch_api == "off":
            return False
        return self.batch_api == "on" or self.base_url_host == BATCH_API_HOSTS[self.provider]

    @property
    def prices_known(self) -> bool:
        """Whether the judge's calls can be priced (`prices_known`)."""
        return prices_known(self.provider, self.price_in_per_mtok, self.price_out_per_mtok)

    @property
    def batch_prices(self) -> tuple[float, float]:
        """(input, output) USD per million tokens through the batch API."""
        price_in = self.price_in_per_mtok_batch
        price_out = self.price_out_per_mtok_batch
        return (
            self.price_in_per_mtok / 2 if price_in is None else price_in,
            self.price_out_per_mtok / 2 if price_out is None else price_out,
        )

    @property
    def effective_label_pool(self) -> LabelPool:
        """The configured label pool, or the default one."""
        return self.label_pool if self.label_pool is not None else DEFAULT_LABEL_POOL


@dataclass(frozen=True)
class Criterion:
    """One weighted judging criterion."""

    name: str
    weight: float
    description: str


DEFAULT_CRITERIA: tuple[Criterion, ...] = (
    Criterion("correctness", 0.35, "Facts, reasoning and code are right; nothing misleading."),
    Criterion("relevance", 0.25, "Answers the request as asked and follows its constraints."),
    Criterion("completeness", 0.2, "Covers what the request needs, and no more."),
    Criterion(
        "conciseness",
        0.2,
        "No padding, repetition or filler; the length fits the request.",
    ),
)

Criteria = str | tuple[Criterion, ...] | list[Criterion]


@dataclass(frozen=True)
class RubricLevel:
    """One level of a scoring rubric, with optional anchor examples."""

    score: float
    description: str
    anchors: tuple[str, ...] = ()


@dataclass(frozen=True)
class Rubric:
    """A scoring scale from `min` to `max` with described levels."""

    min: float
    max: float
    levels: tuple[RubricLevel, ...]

    @property
    def midpoint(self) -> float:
        """Centre of the scale (the simulated judge's baseline score)."""
        return (self.min + self.max) / 2


DEFAULT_RUBRIC = Rubric(
    min=1,
    max=5,
    levels=(
        RubricLevel(1, "Wrong, off-topic or unusable; or mostly padding."),
        RubricLevel(2, "Major errors or omissions; or much longer than needed."),
        RubricLevel(3, "Mostly right with some errors, gaps, padding or repetition."),
        RubricLevel(4, "Right and complete with minor flaws; little or no padding."),
        RubricLevel(
            5,
            "Right, complete and concise: nothing missing, nothing superfluous. "
            "A short complete answer earns this as much as a long one.",
        ),
    ),
)


@dataclass(frozen=True, kw_only=True)
class CallRecord:
    """What every judge call records, whatever it asked: output, usage, timing and failure."""

    raw_output: str | None
    provider_model: str | None
    tokens_in: int | None
    tokens_out: int | None
    cost_usd: float | None
    latency_ms: float
    started_at: datetime
    finished_at: datetime
    retries: int
    error_kind: ErrorKind | None
    error: str | None
    template_hash: str
    nonces: tuple[str, ...]
    anonymized_replacements: int
    # Of tokens_out, the reasoning model's reasoning (priced as output, as they are billed).
    reasoning_tokens: int | None = None
    # The judge-call cache (app/judging/cache.py): the request's key when the judge caches, and
    # for an answer served from the cache, the id of the stored call it repeats.
    request_key: str | None = None
    cached_from: int | None = None

    @classmethod
    def failure(cls, started: datetime, error_kind: ErrorKind, message: str) -> Self:
        """A call that never produced an answer (deadline, a prompt over the call's limit): no
        output, no tokens, latency from `started` to now."""
        # The answer fields of each subclass default to "no answer", so only these are given.
        now = datetime.now(UTC)
        return cls(
            raw_output=None,
            provider_model=None,
            tokens_in=None,
            tokens_out=None,
            cost_usd=None,
            latency_ms=(now - started).total_seconds() * 1000,
            started_at=started,
            finished_at=now,
            retries=0,
            error_kind=error_kind,
            error=message,
            template_hash="",
            nonces=(),
            anonymized_replacements=0,
        )


@dataclass(frozen=True, kw_only=True)
class PairCallResult(CallRecord):
    """One pairwise judge call, as it is recorded; the defaults are a call without an answer."""

    pick: Pick | None = None
    label_pair: str = ""
    first_label: str = ""
    second_label: str = ""
    confidence: float | None = None
    confidence_source: ConfidenceSource | None = None

    @property
    def ok(self) -> bool:
        """True when the judge gave a usable pick."""
        return self.pick is not None


@dataclass(frozen=True, kw_only=True)
class ScoreCallResult(CallRecord):
    """One scoring call over 1..20 shown responses, as it is recorded; the defaults are a call
    without an answer."""

    labels: tuple[str, ...] = ()
    scores: tuple[float, ...] | None = None

    @property
    def ok(self) -> bool:
        """True when the judge scored every shown response."""
        return self.scores is not None


@dataclass(frozen=True)
class TokenLogprob:
    """One generated token with its logprob and the alternatives the provider reported."""

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()
