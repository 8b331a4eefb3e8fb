"""Settings: one `Settings` object read from `FAIRPAIR_*` environment variables (and a `.env`
file in the working directory, whose values the environment overrides)."""

from __future__ import annotations

import base64
import binascii
import difflib
import ipaddress
import string
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from app.proxies import JudgeProxy

EMBEDDED_DATABASE_URL = "sqlite+aiosqlite:///./fairpair.db"
PLACEHOLDER_SECRET = "insecure-placeholder-change-me"
# FAIRPAIR_SECRET_KEY must carry at least 256 bits (README "Security").
MIN_SECRET_BYTES = 32

SelfPreferencePolicy = Literal["exclude", "substitute", "audit", "warn", "allow"]


class Settings(BaseSettings):
    """Every knob of the service; defaults give the embedded quickstart."""

    # A refused value is not echoed: settings carry secrets (a proxy URL's password, keys).
    model_config = SettingsConfigDict(
        env_prefix="FAIRPAIR_",
        extra="ignore",
        env_file=".env",
        env_file_encoding="utf-8",
        hide_input_in_errors=True,
    )

    database_url: str = EMBEDDED_DATABASE_URL
    redis_url: str | None = None
    judges_file: Path | None = None
    default_panel: str | None = Field(default=None, description="comma-separated judge names")
    secret_key: SecretStr = SecretStr(PLACEHOLDER_SECRET)
    # Decrypts what the previous secret key encrypted, until `fairpair keys rotate-secret` ran.
    secret_key_previous: SecretStr | None = None
    auth: Literal["on", "off"] = "on"
    privacy: Literal["off", "hash"] = "off"
    log_level: str = "info"
    # `console`: one readable line per event; `json`: JSON lines; `auto`: console when stderr
    # is a terminal, JSON otherwise (a log collector).
    log_format: Literal["auto", "json", "console"] = "auto"

    # Limits (PRODUCT.md "Synchronous limits" and "Bad input").
    max_text_chars: int = 100_000
    max_body_bytes: int = 2_000_000
    max_panel: int = 5
    max_sync_calls: int = 20
    compare_timeout_s: float = 120.0
    # The longest one database statement (or a connect, capped at 10 s) may take: a database
    # that stops answering fails the statement (503, `not_persisted`) instead of holding a
    # request, a batch item or a shutdown forever (issue 36; docs/ARCHITECTURE.md "Bounds").
    database_timeout_s: float = Field(default=60.0, gt=0)
    max_request_concurrency: int = 16
    max_concurrency: int = 256
    max_pending: int = 1_000
    # API processes sharing the load (`fairpair serve --workers N` sets it for each of them): a
    # process takes 1/N of every in-process bound (judge calls in flight and waiting, each judge's
    # max_concurrency), so that the bounds hold for the whole server. rpm is shared through Redis.
    serve_workers: int = Field(default=1, ge=1)
    max_tags: int = 16

    # Self-preference (PRODUCT.md capability 2).
    family_prefixes: str = (
        "gpt-=openai,o1=openai,o3=openai,o4=openai,claude-=anthropic,gemini-=google,llama=meta"
    )
    self_preference: SelfPreferencePolicy = "exclude"
    self_preference_audit_rate: float = Field(default=0.05, ge=0.0, le=1.0)

    # Report (STATISTICS.md).
    min_effect: float = 0.05
    min_effect_correlation: float = 0.1
    reviewer_margin: float | None = None

    # Trust boundaries (README "Security").
    # Environment variables an API-posted judge may name as `api_key_env` (comma list), each bound
    # to an origin: `NAME=URL` to that URL's, a bare `NAME` to the judge's provider's official
    # URL. The judges file may name any, since the operator wrote it.
    judge_key_envs: str = ""
    # A bearer token for `/metrics`. Unset, loopback scrapers need nothing (a same-host proxy
    # would expose the metrics to whoever it serves); set, every scraper shows the token or a
    # `read` key, loopback included.
    metrics_token: SecretStr | None = None
    # Loopback/private judge hosts an API-posted judge may use (comma list of CIDRs and host names).
    judge_hosts_allow: str = ""
    # The operator's HTTP proxy for every judge connection (`http://[user:password@]host:port`),
    # never the environment's: the egress policy checks each target, the proxy carries it.
    judge_proxy: SecretStr | None = None
    # Proxies (comma list of IPs) whose X-Forwarded-Proto is believed, e.g. for `Secure` cookies.
    trusted_proxies: str = ""

    # Operations.
    sweep_interval_s: float = 60.0
    # How often each process settles finished canary runs and starts due ones (0: never).
    canary_tick_s: float = Field(default=30.0, ge=0)
    # The judge card's battery (app/cards): probes per family (four families, both display
    # orders: 8 calls per unit). 24 gives 192 calls, stated at $0.31 on GPT-4o ($2.50/$10).
    card_probes_per_family: int = Field(default=24, ge=1, le=500)
    card_seed: int = 0
    # Queue a judge's card by itself on the canary scheduler's tick: once per judge version (its
    # creation included) and once per provider model newly reported under it (app/cards/auto.py).
    card_auto: bool = True
    # How often each API process folds finished comparisons into the report's rollups (a report
    # folds what is left before it reads, so this bounds its work, not what it counts).
    fold_interval_s: float = Field(default=1.0, gt=0, le=3600)
    # A live request may still be writing just past its deadline; the sweeper leaves it this long.
    sweep_grace_s: float = 10.0
    key_cache_ttl_s: float = 30.0
    # How long a process trusts its read of the judges' current revisions: a change made through
    # another process (a rotated key, a new URL, a retirement) reaches this one within it; 0 reads
    # them on every request, as before issue 20 (one query per comparison).
    judge_refresh_s: float = Field(default=1.0, ge=0, le=60)
    # Seeds label, nonce and order draws per request content: reproducible runs for tests and
    # benchmarks only (predictable nonces would let a response forge its block's end).
    draw_seed: int | None = None
    # Share of the dashboard labeling page's draws that show an item someone else labelled exactly
    # once, so that agreement between labelers can be measured (issue 23).
    label_overlap: float = Field(default=0.1, ge=0.0, le=1.0)
    # Per API key: shared by every process through Redis when configured, else per process;
    # unset = no limit.
    rate_limit_per_minute: int | None = Field(default=None, ge=1)
    # Per client address (an IPv6 /64), per process: requests past it that fail authentication
    # are 429 instead of 401 (app/auth/ratelimit.py FailedAuthThrottle).
    auth_failures_per_minute: int = Field(default=60, ge=1)
    # On SIGTERM, in-flight comparisons get this long to finish before they are interrupted.
    shutdown_grace_s: float = 20.0

    # Batches (PRODUCT.md capability 7; docs/BATCHES.md).
    max_batch_bytes: int = 50_000_000
    # A body over 1 MB is checked in a child process (app/middleware.py); past this the request
    # is answered 503 with Retry-After and the child is killed. The largest batch body takes a
    # few seconds on a busy machine.
    body_check_timeout_s: float = Field(default=30.0, gt=0)
    # At most the schema's cap (app/batches/schemas.py BATCH_ITEMS_CAP), which stops validation
    # at the 10,001st item; the setting may only lower it.
    max_batch_items: int = Field(default=10_000, ge=1, le=10_000)
    # A worker holds an item for this long and renews the lease every third of it.
    batch_lease_s: float = Field(default=30.0, gt=0)
    # A queued item nobody picked up this long, while the queue holds nothing undelivered, is sent
    # again (its message was lost: Redis restarted without persistence, or a kick failed).
    batch_requeue_after_s: float = Field(default=60.0, gt=0)
    # An item delivered this many times is failed, so that a poison item cannot loop forever.
    batch_max_attempts: int = Field(default=5, ge=1)
    # Batch items one process (a worker, or the API without Redis) runs at once.
    worker_concurrency: int = Field(default=16, ge=1)
    batch_stream_maxlen: int = Field(default=1_000_000, ge=10_000)
    # Provider-mode batches (docs/BATCHES.md): how often a process looks for calls to submit,
    # jobs to poll and items whose answers are in; a job is polled after `provider_poll_min_s`,
    # then ever more slowly (doubling) up to `provider_poll_max_s`.
    provider_tick_s: float = Field(default=5.0, gt=0)
    provider_poll_min_s: float = Field(default=30.0, gt=0)
    provider_poll_max_s: float = Field(default=600.0, gt=0)

    def per_process(self, bound: int) -> int:
        """This process's share of a bound the whole server must keep (at least 1)."""
        return max(1, bound // self.serve_workers)

    @property
    def is_embedded(self) -> bool:
        """True on the embedded default: a SQLite database."""
        return self.database_url.startswith("sqlite")

    def judge_key_env_origins(self) -> dict[str, str | None]:
        """The `api_key_env` names an API-posted judge may use, each with the URL whose origin
        its key is bound to (None: the judge's provider's official URL)."""
        pairs = (entry.partition("=") for entry in _comma_list(self.judge_key_envs))
        return {name.strip(): url.strip() or None for name, _, url in pairs}

    @field_validator("judge_proxy")
    @classmethod
    def _proxy_url(cls, value: SecretStr | None) -> SecretStr | None:
        """An http://host:port proxy: a typo must stop the start, not send judges direct."""
        if value is not None and value.get_secret_value():
            JudgeProxy.parse(value.get_secret_value())
        return value

    def judge_proxy_parsed(self) -> JudgeProxy | None:
        """The judges' proxy, or None when unset."""
        url = self.judge_proxy.get_secret_value() if self.judge_proxy else ""
        return JudgeProxy.parse(url) if url else None

    @field_validator("judge_key_envs")
    @classmethod
    def _bound_to_urls(cls, value: str) -> str:
        """Each `NAME=URL` names an http(s) URL with a host: a typo must not start a server
        whose key variable matches no judge, or every judge."""
        for entry in _comma_list(value):
            name, sep, url = (part.strip() for part in entry.partition("="))
            parts = urlsplit(url)
            if not name or (sep and (parts.scheme not in ("http", "https") or not parts.hostname)):
                raise ValueError(f"expected NAME or NAME=https://host[:port], got {entry!r}")
        return value

    def judge_hosts_allowed(self) -> list[str]:
        """Where API-posted judges may point besides public addresses (README "Security").

        The embedded default is a single user's local service, whose main judges are local
        (Ollama, vLLM, LM Studio): it allows loopback unless the operator set the list.
        """
        allowed = _comma_list(self.judge_hosts_allow)
        if not allowed and self.is_embedded:
            return ["127.0.0.0/8", "::1/128", "localhost"]
        return allowed

    def panel_names(self) -> list[str]:
        """The default panel named by `FAIRPAIR_DEFAULT_PANEL`."""
        return _comma_list(self.default_panel or "")


def _comma_list(text: str) -> list[str]:
    return [part.strip() for part in text.split(",") if part.strip()]


class UnsafeSettingsError(RuntimeError):
    """The settings would run an exposed service with a known secret or without auth."""


def is_loopback(host: str) -> bool:
    """True when `host` only accepts connections from this machine."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def decoded_secret_key(value: str) -> bytes | None:
    """The bytes a secret key value encodes: hex when it is only hex digits (an even number of
    them), else base64url (padding optional; the standard alphabet's `+` `/` read the same);
    None when it is neither (a passphrase)."""
    text = value.strip()
    if text and len(text) % 2 == 0 and all(c in string.hexdigits for c in text):
        return bytes.fromhex(text)
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        return None


def secret_key_bytes(value: str) -> bytes | None:
    """The key material of a secret carrying at least 256 bits, else None."""
    decoded = decoded_secret_key(value)
    return decoded if decoded is not None and len(decoded) >= MIN_SECRET_BYTES else None


def check_secret_key(settings: Settings) -> None:
    """Refuse a secret key below 256 bits; the placeholder only on the embedded default, and
    never in privacy mode."""
    value = settings.secret_key.get_secret_value()
    if value == PLACEHOLDER_SECRET:
        if settings.privacy == "hash":
            # The privacy salt is stored encrypted under this key: under the public placeholder
            # anyone holding the database file could read it and test guesses against the HMACs.
            raise UnsafeSettingsError(
                "FAIRPAIR_PRIVACY=hash needs a real FAIRPAIR_SECRET_KEY, on the embedded default "
                "too: the privacy salt is encrypted with it"
            )
        if settings.is_embedded:
            return
        raise UnsafeSettingsError(
            "FAIRPAIR_SECRET_KEY is the placeholder; set a real secret outside the embedded default"
        )
    if secret_key_bytes(value) is None:
        # Never echo the value: it may be a real, merely short, secret.
        raise UnsafeSettingsError(
            f"FAIRPAIR_SECRET_KEY must carry at least {MIN_SECRET_BYTES * 8} bits: "
            f"{MIN_SECRET_BYTES} or more bytes written as hex ({MIN_SECRET_BYTES * 2}+ hex digits) "
            "or base64url; make one with "
            "python3 -c 'import secrets; print(secrets.token_urlsafe(32))'"
        )


def check_startup_safety(settings: Settings, host: str) -> None:
    """Refuse settings that would expose secrets or an open API."""
    check_secret_key(settings)
    if settings.auth == "off" and not is_loopback(host):
        raise UnsafeSettingsError("FAIRPAIR_AUTH=off is only allowed on a loopback address")


def check_metrics_host(settings: Settings, host: str) -> None:
    """A worker's `/metrics` checks no API key: off loopback it needs the metrics token."""
    if settings.metrics_token is None and not is_loopback(host):
        raise UnsafeSettingsError(
            "--metrics-host off loopback needs FAIRPAIR_METRICS_TOKEN "
            "(a worker's /metrics checks no API key)"
        )


# `FAIRPAIR_*` variables that are not settings: the CLI's server and key, and the knobs of the
# test suite, the benchmarks and CI (by prefix).
OTHER_VARIABLES = frozenset({"FAIRPAIR_URL", "FAIRPAIR_KEY"})
TOOL_PREFIXES = ("FAIRPAIR_TEST_", "FAIRPAIR_BENCH_", "FAIRPAIR_FUZZ_", "FAIRPAIR_INSTALL_")


def unknown_variables(names: Iterable[str], settings: Settings) -> list[tuple[str, str | None]]:
    """`FAIRPAIR_*` variables that no setting reads (a typo is silently ignored otherwise),
    each with the closest known name; judges' key variables allowed by a setting are known."""
    known = {f"FAIRPAIR_{name.upper()}" for name in Settings.model_fields}
    known |= OTHER_VARIABLES | set(settings.judge_key_env_origins())
    found = []
    for name in sorted(set(names)):
        if not name.startswith("FAIRPAIR_") or name in known or name.startswith(TOOL_PREFIXES):
            continue
        # Compared without the prefix they all share, which would make any two names close.
        suffixes = sorted(known_name.removeprefix("FAIRPAIR_") for known_name in known)
        close = difflib.get_close_matches(
            name.removeprefix("FAIRPAIR_"), suffixes, n=1, cutoff=0.75
        )
        found.append((name, f"FAIRPAIR_{close[0]}" if close else None))
    return found


@lru_cache
def get_settings() -> Settings:
    """The process's settings, read once."""
    return Settings()
