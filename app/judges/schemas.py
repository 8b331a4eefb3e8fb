"""Judge configuration as the judges file and the API give it, and as the API shows it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal, Self
from urllib.parse import urlsplit

from jinja2 import TemplateError
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SecretStr,
    StringConstraints,
    ValidationError,
    model_validator,
)
from pydantic_core import InitErrorDetails, PydanticCustomError

from app.fields import Name
from app.judging.anonymize import default_anonymizer
from app.judging.egress import (
    AZURE_API_VERSION_RULE,
    AZURE_DEPLOYMENT_RULE,
    azure_api_version_refusal,
    azure_deployment_refusal,
    parse_url,
)
from app.judging.labels import validate_label_pool
from app.judging.prompts import PromptRenderer
from app.judging.types import (
    AZURE_NO_BATCH_API,
    DEFAULT_LABEL_POOL,
    MIN_THINKING_BUDGET,
    AzureAuth,
    BatchApiSetting,
    ReasoningEffort,
)

Provider = Literal["openai", "azure_openai", "anthropic", "sim"]
# The providers that take OpenAI's Chat Completions settings (reasoning ones included).
OPENAI_APIS = ("openai", "azure_openai")
TemplateName = Literal["pairwise_system", "pairwise_user", "scoring_system", "scoring_user"]


def check_base_url(url: str) -> str:
    """An http(s) URL with a host and nothing that could smuggle a secret or a second target.

    Userinfo would be sent as credentials, and a query or fragment has no meaning to a judge
    API; where the URL may point (SSRF) is app/judging/egress.py's rule, checked by the service.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"not a valid URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname or not url.isascii():
        raise ValueError("give an http(s) URL with a host, in ASCII")
    if "@" in parts.netloc:
        raise ValueError("a judge URL must not carry a user or password: post the key as api_key")
    if parts.query or parts.fragment or url.endswith(("?", "#")):
        raise ValueError("a judge URL has no query or fragment")
    if port == 0:
        raise ValueError("port 0 is no port")
    parse_url(url)  # what the judges' client would refuse (a tab, an octal quad) is refused now
    return url


def check_deployment(deployment: str) -> str:
    """An Azure deployment name that cannot reach another path (app/judging/egress.py)."""
    if (refusal := azure_deployment_refusal(deployment)) is not None:
        raise ValueError(refusal)
    return deployment


def check_api_version(api_version: str) -> str:
    """An Azure api-version that cannot add to the query (app/judging/egress.py)."""
    if (refusal := azure_api_version_refusal(api_version)) is not None:
        raise ValueError(refusal)
    return api_version


def check_label_pool(pool: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """JUDGING.md's labels: letters only, no order words (A/B, first, ...), two distinct a pair."""
    validate_label_pool(tuple(pool))
    return pool


def check_templates(templates: dict[TemplateName, str]) -> dict[TemplateName, str]:
    """Each template compiles in the sandbox and renders against samples within its budget,
    now, not when used; an error points at `/templates/<name>`."""
    errors = []
    for name, source in templates.items():
        try:
            PromptRenderer({name: source}, DEFAULT_LABEL_POOL, default_anonymizer())
        except (ValueError, TemplateError) as exc:
            error = PydanticCustomError("template", "{reason}", {"reason": str(exc)[:500]})
            errors.append(InitErrorDetails(type=error, loc=(name,), input=source))
    if errors:
        raise ValidationError.from_exception_data("templates", errors)
    return templates


BaseUrl = Annotated[str, StringConstraints(max_length=2000), AfterValidator(check_base_url)]
Deployment = Annotated[
    str,
    StringConstraints(max_length=200),
    AfterValidator(check_deployment),
    Field(description=f"azure_openai: the deployment, {AZURE_DEPLOYMENT_RULE} characters"),
]
ApiVersion = Annotated[
    str,
    StringConstraints(max_length=50),
    AfterValidator(check_api_version),
    Field(description=f"azure_openai: the api-version query parameter, {AZURE_API_VERSION_RULE}"),
]
LabelPoolField = Annotated[
    list[tuple[str, str]], Field(min_length=1, max_length=50), AfterValidator(check_label_pool)
]
# A judge's own templates: the packaged ones are under 1,300 characters each.
MAX_TEMPLATE_CHARS = 20_000
# Far above any provider's key (they are under 200 characters).
MAX_API_KEY_CHARS = 4_096
Templates = Annotated[
    dict[TemplateName, Annotated[str, StringConstraints(max_length=MAX_TEMPLATE_CHARS)]],
    AfterValidator(check_templates),
]
# Above every OpenAI model's output limit (gpt-5: 128,000 tokens).
MAX_COMPLETION_TOKENS = 1_000_000
ApiKey = Annotated[SecretStr, StringConstraints(max_length=MAX_API_KEY_CHARS)]

# Fields whose change alters what a judge is shown or how it answers: a change makes a new version.
JUDGING_FIELDS = frozenset(
    {
        "provider",
        "model",
        "base_url",
        "temperature",
        "templates",
        "label_pool",
        "json_mode",
        "logprobs",
        "sim",
        "reasoning",
        "reasoning_effort",
        "max_completion_tokens",
        "thinking_budget_tokens",
        "deployment",
        "api_version",
    }
)


class SimSettings(BaseModel):
    """Knobs of the simulated judge (JUDGING.md)."""

    model_config = ConfigDict(extra="forbid")

    position_bias: float = Field(0.0, ge=-50, le=50)
    label_bias: float = Field(0.0, ge=-50, le=50)
    length_bias: float = Field(0.0, ge=-50, le=50)
    beta: float = Field(1.5, ge=0, le=20)
    tie_rate: float = Field(0.0, ge=0, le=1)
    offsets: dict[str, float] = Field(default_factory=dict, max_length=100)
    first_slot_bonus: float = Field(0.0, ge=-10, le=10)
    self_preference: float = Field(0.0, ge=-50, le=50)
    injection_following: float = Field(
        0.0, ge=0, le=1, description="share of pairs where it obeys an instruction in a response"
    )
    score_noise: float = Field(0.5, ge=0, le=10)
    latency_ms: float = Field(0.0, ge=0, le=600_000)
    error_rate: float = Field(0.0, ge=0, le=1)
    malformed_rate: float = Field(0.0, ge=0, le=1)
    seed: int = 0


class JudgeFields(BaseModel):
    """Everything that configures a judge except its name and secret."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider
    model: str = Field(min_length=1, max_length=200)
    base_url: BaseUrl | None = None
    api_key_env: str | None = Field(None, max_length=200, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    family: str | None = Field(None, max_length=100)
    temperature: float = Field(0.0, ge=0, le=2)
    timeout_s: float = Field(60.0, gt=0, le=600)
    max_concurrency: int = Field(8, ge=1, le=1000)
    rpm: int | None = Field(None, ge=1, le=1_000_000)
    json_mode: bool | None = None
    logprobs: bool | None = None
    price_in_per_mtok: float = Field(0.0, ge=0, le=10_000)
    price_out_per_mtok: float = Field(0.0, ge=0, le=10_000)
    price_in_per_mtok_batch: float | None = Field(
        None, ge=0, le=10_000, description="through the provider's batch API; unset: half"
    )
    price_out_per_mtok_batch: float | None = Field(
        None, ge=0, le=10_000, description="through the provider's batch API; unset: half"
    )
    batch_api: BatchApiSetting = Field(
        "auto",
        description=(
            "whether provider-mode batches send this judge's calls to its provider's batch API; "
            "`auto`: for api.openai.com and api.anthropic.com only (vLLM, Ollama have none)"
        ),
    )
    templates: Templates = Field(default_factory=dict)
    label_pool: LabelPoolField | None = None
    sim: SimSettings | None = None
    reasoning: bool = Field(
        False,
        description=(
            "an OpenAI reasoning model (o1, o3, o4-mini, gpt-5): its requests carry no "
            "`temperature` and no logprobs; implied by `reasoning_effort`"
        ),
    )
    reasoning_effort: ReasoningEffort | None = Field(
        None, description="sent as OpenAI's `reasoning_effort`; makes the judge a reasoning one"
    )
    max_completion_tokens: int | None = Field(
        None,
        ge=1,
        le=MAX_COMPLETION_TOKENS,
        description="sent as `max_completion_tokens` (a reasoning model counts its reasoning)",
    )
    thinking_budget_tokens: int | None = Field(
        None,
        ge=MIN_THINKING_BUDGET,
        le=MAX_COMPLETION_TOKENS,
        description="Anthropic extended thinking: sent as `thinking: {type: enabled, "
        "budget_tokens}`, with `max_tokens` raised by as much; the thinking is kept in the raw "
        "output, never parsed",
    )
    deployment: Deployment | None = None
    api_version: ApiVersion | None = None
    azure_auth: AzureAuth = Field(
        "api_key",
        description="azure_openai: how the key variable's value is sent: `api_key` (an "
        "`api-key` header) or `entra_id` (a Microsoft Entra ID token, `Authorization: Bearer`)",
    )
    cache: bool = Field(
        False,
        description="answer an exact repeat of a call this judge version made before (same "
        "rendered prompt, labels, order and parameters) from the stored call, at no cost; "
        "not part of the version",
    )

    @model_validator(mode="after")
    def _settings_fit(self) -> Self:
        """A reasoning judge is an openai (or Azure) one and asks for no logprobs (its model
        refuses them); an Azure judge has what its requests need, and no batch API."""
        refusal = reasoning_refusal(self) or azure_refusal(self)
        if refusal is not None:
            field, message = refusal
            error = PydanticCustomError("judge_settings", "{reason}", {"reason": message})
            details = [InitErrorDetails(type=error, loc=(field,), input=getattr(self, field))]
            raise ValidationError.from_exception_data(type(self).__name__, details)
        return self


def reasoning_refusal(fields: JudgeFields) -> tuple[str, str] | None:
    """The field and reason a judge's reasoning settings do not fit together, or None."""
    reasoning = fields.reasoning or fields.reasoning_effort is not None
    if reasoning and fields.logprobs:
        return "logprobs", (
            "a reasoning judge (reasoning or reasoning_effort set) gets no logprobs: OpenAI's "
            "reasoning models refuse them; its confidence is the stated one"
        )
    if fields.provider not in OPENAI_APIS:
        for name in ("reasoning_effort", "max_completion_tokens"):
            if getattr(fields, name) is not None:
                return name, "only an openai or azure_openai judge takes this setting"
        if fields.reasoning:
            return "reasoning", "only an openai or azure_openai judge can be a reasoning judge"
    if fields.thinking_budget_tokens is not None and fields.provider != "anthropic":
        return "thinking_budget_tokens", "only an anthropic judge takes this setting"
    return None


def azure_refusal(fields: JudgeFields) -> tuple[str, str] | None:
    """The field and reason an Azure OpenAI judge (or another judge's Azure settings) cannot
    work, or None."""
    if fields.provider != "azure_openai":
        for name in ("deployment", "api_version"):
            if getattr(fields, name) is not None:
                return name, "only an azure_openai judge takes this setting"
        if fields.azure_auth != "api_key":
            return "azure_auth", "only an azure_openai judge takes this setting"
        return None
    if fields.base_url is None:
        return (
            "base_url",
            "an azure_openai judge needs its resource URL (https://RESOURCE.openai.azure.com)",
        )
    if urlsplit(fields.base_url).path not in ("", "/"):
        return "base_url", (
            "an azure_openai judge's base_url is the resource URL without a path "
            "(https://RESOURCE.openai.azure.com): the deployment path is built from deployment"
        )
    for name in ("deployment", "api_version"):
        if getattr(fields, name) is None:
            return name, "an azure_openai judge needs this setting"
    if fields.batch_api == "on":
        return "batch_api", AZURE_NO_BATCH_API
    return None


class JudgeCreate(JudgeFields):
    """`POST /v1/judges` and a `[[judges]]` table of the judges file."""

    name: Name
    api_key: ApiKey | None = Field(None, description="write-only; stored encrypted")
    enabled: bool = True


class JudgeUpdate(BaseModel):
    """`PATCH /v1/judges/{name}`: only the fields given change."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider | None = None
    model: str | None = Field(None, min_length=1, max_length=200)
    base_url: BaseUrl | None = None
    api_key_env: str | None = Field(None, max_length=200, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    api_key: ApiKey | None = None
    family: str | None = Field(None, max_length=100)
    temperature: float | None = Field(None, ge=0, le=2)
    timeout_s: float | None = Field(None, gt=0, le=600)
    max_concurrency: int | None = Field(None, ge=1, le=1000)
    rpm: int | None = Field(None, ge=1, le=1_000_000)
    json_mode: bool | None = None
    logprobs: bool | None = None
    price_in_per_mtok: float | None = Field(None, ge=0, le=10_000)
    price_out_per_mtok: float | None = Field(None, ge=0, le=10_000)
    price_in_per_mtok_batch: float | None = Field(None, ge=0, le=10_000)
    price_out_per_mtok_batch: float | None = Field(None, ge=0, le=10_000)
    batch_api: BatchApiSetting | None = None
    templates: Templates | None = None
    label_pool: LabelPoolField | None = None
    sim: SimSettings | None = None
    reasoning: bool | None = None
    reasoning_effort: ReasoningEffort | None = None
    max_completion_tokens: int | None = Field(None, ge=1, le=MAX_COMPLETION_TOKENS)
    thinking_budget_tokens: int | None = Field(
        None, ge=MIN_THINKING_BUDGET, le=MAX_COMPLETION_TOKENS
    )
    deployment: Deployment | None = None
    api_version: ApiVersion | None = None
    azure_auth: AzureAuth | None = None
    cache: bool | None = None
    enabled: bool | None = None


class JudgesFile(BaseModel):
    """The TOML judges file: `default_panel = [...]` and `[[judges]]` tables."""

    model_config = ConfigDict(extra="forbid")

    default_panel: list[str] = Field(default_factory=list)
    judges: list[JudgeCreate] = Field(default_factory=list)


class JudgeVersionRead(BaseModel):
    """One version of a judge."""

    version: int
    config_hash: str
    created_at: datetime
    config: JudgeFields | None = Field(description="null when the stored row no longer validates")


class JudgeRead(BaseModel):
    """A judge as the API shows it: never its key."""

    name: str
    source: Literal["file", "api", "builtin"]
    enabled: bool
    default: bool
    available: bool = Field(description="false when this process cannot build the judge")
    unavailable_reason: str | None = Field(None, description="why it is unavailable")
    version: int
    config_hash: str
    provider: Provider | None = Field(description="null when the stored row no longer validates")
    model: str
    family: str | None = Field(
        description="the effective family the self-preference guard uses: `family` as configured,"
        " else the family of the first FAIRPAIR_FAMILY_PREFIXES prefix of `model`; null when"
        " unknown (`config.family` shows what was configured)"
    )
    json_mode: bool
    logprobs: bool
    has_api_key: bool
    config: JudgeFields | None = Field(description="null when the stored row no longer validates")
    versions: list[JudgeVersionRead] | None = None


class JudgeList(BaseModel):
    """A page of the enabled judges, by name."""

    items: list[JudgeRead]
    next_cursor: str | None = None
