"""Judge configuration as the judges file and the API give it, and as the API shows it."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, SecretStr, StringConstraints

from app.fields import Name

Provider = Literal["openai", "anthropic", "sim"]
TemplateName = Literal["pairwise_system", "pairwise_user", "scoring_system", "scoring_user"]


def check_base_url(url: str) -> str:
    """An http(s) URL with a host, which the SDKs and the version hash can parse."""
    try:
        parts = urlsplit(url)
    except ValueError as exc:
        raise ValueError(f"not a valid URL: {exc}") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname or not url.isascii():
        raise ValueError("give an http(s) URL with a host, in ASCII")
    return url


BaseUrl = Annotated[str, StringConstraints(max_length=2000), AfterValidator(check_base_url)]

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
    templates: dict[TemplateName, str] = Field(default_factory=dict)
    label_pool: list[tuple[str, str]] | None = Field(None, min_length=1, max_length=50)
    sim: SimSettings | None = None


class JudgeCreate(JudgeFields):
    """`POST /v1/judges` and a `[[judges]]` table of the judges file."""

    name: Name
    api_key: SecretStr | None = Field(None, description="write-only; stored encrypted")
    enabled: bool = True


class JudgeUpdate(BaseModel):
    """`PATCH /v1/judges/{name}`: only the fields given change."""

    model_config = ConfigDict(extra="forbid")

    provider: Provider | None = None
    model: str | None = Field(None, min_length=1, max_length=200)
    base_url: BaseUrl | None = None
    api_key_env: str | None = Field(None, max_length=200, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    api_key: SecretStr | None = None
    family: str | None = Field(None, max_length=100)
    temperature: float | None = Field(None, ge=0, le=2)
    timeout_s: float | None = Field(None, gt=0, le=600)
    max_concurrency: int | None = Field(None, ge=1, le=1000)
    rpm: int | None = Field(None, ge=1, le=1_000_000)
    json_mode: bool | None = None
    logprobs: bool | None = None
    price_in_per_mtok: float | None = Field(None, ge=0, le=10_000)
    price_out_per_mtok: float | None = Field(None, ge=0, le=10_000)
    templates: dict[TemplateName, str] | None = None
    label_pool: list[tuple[str, str]] | None = Field(None, min_length=1, max_length=50)
    sim: SimSettings | None = None
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
    config: JudgeFields


class JudgeRead(BaseModel):
    """A judge as the API shows it: never its key."""

    name: str
    source: Literal["file", "api", "builtin"]
    enabled: bool
    default: bool
    version: int
    config_hash: str
    provider: Provider
    model: str
    family: str | None
    json_mode: bool
    logprobs: bool
    has_api_key: bool
    config: JudgeFields
    versions: list[JudgeVersionRead] | None = None


class JudgeList(BaseModel):
    """The enabled judges."""

    items: list[JudgeRead]
