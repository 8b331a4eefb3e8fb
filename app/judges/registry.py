"""The judges a process can call: loaded from the judges file and the database, built once
per revision.

Every change of a judge bumps its revision (app/judges/service.py); the request path reads the
current (version, revision) of each judge with one light query, at most once every
`judge_refresh_s` (1 s by default), so a key rotation, a new `rpm` or URL reaches every API and
worker process within that time, and the process that made the change at once. A judge this
process has not seen yet is looked up at once (never a 422 for a judge another process just
created). A stored judge that cannot be built
(a row an older release wrote, a key the secret no longer opens, a variable no longer allowed) is
marked unavailable with its reason: start-up and every other judge go on, and a request naming it
gets a problem+json.
"""

from __future__ import annotations

import asyncio
import os
import time
import tomllib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Annotated

import httpx2
import structlog
from cryptography.fernet import InvalidToken
from pydantic import ValidationError
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.deps import from_state
from app.errors import JudgeUnavailable, NoJudgesConfigured, ValidationProblem
from app.judges import crypto, service
from app.judges.models import Judge, JudgeVersion
from app.judges.schemas import JudgeCreate, JudgeFields, JudgesFile, SimSettings
from app.judging.base import JudgeClient
from app.judging.egress import EgressPolicy
from app.judging.families import family_of, parse_family_prefixes
from app.judging.providers import build_judge
from app.judging.ratelimit import LimiterFactory, RateLimiter
from app.judging.types import JudgeConfig

log = structlog.get_logger()
BUILTIN_SIM = JudgeCreate(name="sim", provider="sim", model="fairpair-sim", sim=SimSettings())
TransportFactory = Callable[[str], httpx2.AsyncBaseTransport | None]


# The enabled judges and their current versions: what the request path checks its clients against.
_CURRENT_VERSIONS = (
    select(Judge.name, Judge.current_version, Judge.revision)
    .join(JudgeVersion, JudgeVersion.judge_id == Judge.id)
    .where(JudgeVersion.version == Judge.current_version, Judge.enabled.is_(True))
)


def _require_known(names: Sequence[str], known: Collection[str]) -> None:
    """422 with a pointer for every unknown or retired judge among `names`."""
    missing = [i for i, name in enumerate(names) if name not in known]
    if missing:
        raise ValidationProblem(
            f"/judges/{missing[0]}: unknown or retired judge '{names[missing[0]]}'",
            extra={
                "errors": [{"pointer": f"/judges/{i}", "message": "unknown judge"} for i in missing]
            },
        )


class JudgesFileError(RuntimeError):
    """The judges file cannot be read or does not validate."""


@dataclass(frozen=True)
class RuntimeJudge:
    """A callable judge at one version."""

    name: str
    version: int
    config_hash: str
    model: str
    # The effective family (`family_of`: explicit, else FAIRPAIR_FAMILY_PREFIXES of the model),
    # resolved once here so that the panel is planned with the family its calls are stored with.
    family: str | None
    simulated: bool
    client: JudgeClient
    revision: int = 0
    # How long a call may still run on the client after it is replaced.
    timeout_s: float = 60.0


@dataclass(frozen=True)
class Unbuildable:
    """A stored judge revision that cannot be built, and why (shown in `GET /v1/judges`)."""

    version: int
    revision: int
    reason: str


def read_judges_file(path: os.PathLike[str] | str) -> JudgesFile:
    """Parse and validate the TOML judges file."""
    try:
        with open(path, "rb") as handle:
            return JudgesFile.model_validate(tomllib.load(handle))
    except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
        raise JudgesFileError(f"judges file {path}: {exc}") from exc


class JudgeRegistry:
    """Builds provider clients once per judge revision and closes them when they are replaced.

    `limiters` gives each judge with an `rpm` the limiter every process shares (through Redis);
    without it each judge counts its `rpm` in this process. `transport_for` replaces the network
    of a judge (tests, replays); every other judge connects through the URL policy's guard.
    """

    def __init__(
        self,
        settings: Settings,
        sessionmaker: async_sessionmaker[AsyncSession],
        transport_for: TransportFactory | None = None,
        limiters: LimiterFactory | None = None,
    ) -> None:
        self.settings = settings
        self.sessionmaker = sessionmaker
        self.transport_for = transport_for or (lambda _name: None)
        self.limiters = limiters
        self.default_panel: list[str] = settings.panel_names()
        self.family_prefixes = parse_family_prefixes(settings.family_prefixes)
        self.api_rules = service.ApiJudgeRules(
            key_envs=settings.judge_key_env_origins(),
            egress=EgressPolicy.parse(
                settings.judge_hosts_allowed(), proxy=settings.judge_proxy_parsed()
            ),
        )
        self._file_keys: dict[str, str | None] = {}
        self._clients: dict[str, RuntimeJudge] = {}
        self._unbuildable: dict[str, Unbuildable] = {}
        self._closing: set[asyncio.Task[None]] = set()
        self._current: dict[str, tuple[int, int]] = {}
        self._current_read_at: float | None = None

    async def start(self) -> None:
        """Load the judges file, or register the simulated judge on a bare embedded default."""
        judges_file = (
            read_judges_file(self.settings.judges_file) if self.settings.judges_file else None
        )
        if judges_file is not None:
            self.default_panel = self.default_panel or judges_file.default_panel
            await self._sync(judges_file.judges, source="file")
        elif self.settings.is_embedded:
            await self._sync([BUILTIN_SIM], source="builtin")
            self.default_panel = self.default_panel or [BUILTIN_SIM.name]
        await self._warm()

    async def _warm(self) -> None:
        # Build every enabled judge now: SDK imports and clients must not slow the first request.
        async with self.sessionmaker() as session:
            for judge, version in await service.list_judges(session):
                self._build(judge, version)

    async def _sync(self, judges: Sequence[JudgeCreate], source: str) -> None:
        async with self.sessionmaker() as session:
            for body in judges:
                self._file_keys[body.name] = (
                    body.api_key.get_secret_value() if body.api_key else None
                )
                try:
                    await self._upsert(session, body, source)
                except IntegrityError:  # another process inserted it first
                    await session.rollback()
                    await self._upsert(session, body, source)
            await session.execute(
                update(Judge)
                .where(Judge.source == source, Judge.name.not_in([b.name for b in judges]))
                .values(enabled=False)
            )
            await session.commit()

    async def _upsert(self, session: AsyncSession, body: JudgeCreate, source: str) -> None:
        existing = await session.scalar(select(Judge).where(Judge.name == body.name))
        if existing is None:
            await service.create_judge(
                session, body, source=source, secret_key=self.settings.secret_key
            )
            return
        if existing.source == "api":
            raise JudgesFileError(f"judge '{body.name}' exists in the database as an API judge")
        fields = JudgeFields.model_validate(body.model_dump(include=set(JudgeFields.model_fields)))
        current = await session.scalar(
            select(JudgeVersion).where(
                JudgeVersion.judge_id == existing.id,
                JudgeVersion.version == existing.current_version,
            )
        )
        digest = service.config_hash(body.name, fields)
        existing.enabled = body.enabled
        if current is None or current.config_hash != digest:
            existing.current_version += 1
            existing.revision += 1
            session.add(
                JudgeVersion(
                    judge_id=existing.id,
                    version=existing.current_version,
                    config=service.stored_config(fields),
                    config_hash=digest,
                )
            )
        elif current.config != service.stored_config(fields):
            current.config = service.stored_config(fields)
            existing.revision += 1
        await session.commit()

    def panel_or_default(self, names: Sequence[str] | None) -> list[str]:
        """The named judges, else the default panel; 422 when there is neither."""
        panel = list(names) if names else list(self.default_panel)
        if not panel:
            raise NoJudgesConfigured("name judges in the request or configure a default panel")
        return panel

    async def resolve(self, session: AsyncSession, names: Sequence[str]) -> list[RuntimeJudge]:
        """Runtime judges for names (422 for an unknown or retired one, 503 for an unavailable)."""
        return self._pick(await service.list_judges(session), names)

    async def resolve_panel(
        self, session: AsyncSession, names: Sequence[str]
    ) -> tuple[list[RuntimeJudge], list[RuntimeJudge]]:
        """`resolve(names)` and `resolve_known(default_panel)` for the request path.

        One light query of the current versions and revisions (at most every `judge_refresh_s`,
        or when a named judge is not among them); whole rows are loaded only when a judge's
        current revision has no client yet (a new or changed judge).
        """
        current = await self._current_versions(session, names)
        wanted = {*names, *self.default_panel}
        if any(not self._is_built(n, at) for n, at in current.items() if n in wanted):
            for judge, version in await service.list_judges(session):
                if judge.name in wanted:
                    self._build(judge, version)
        _require_known(names, current)
        panel = [self._available(name) for name in names]
        return panel, [self._clients[n] for n in self.default_panel if self._usable(n, current)]

    async def _current_versions(
        self, session: AsyncSession, names: Sequence[str]
    ) -> dict[str, tuple[int, int]]:
        """Enabled judges' (version, revision), read again once `judge_refresh_s` passed."""
        read_at = self._current_read_at
        fresh = read_at is not None and time.monotonic() - read_at < self.settings.judge_refresh_s
        if fresh and all(name in self._current for name in names):
            return self._current
        read_at = time.monotonic()
        rows = (await session.execute(_CURRENT_VERSIONS)).all()
        self._current = {name: (version, revision) for name, version, revision in rows}
        self._current_read_at = read_at
        return self._current

    def changed(self) -> None:
        """This process changed a judge: its next request reads the revisions again."""
        self._current_read_at = None

    def _pick(
        self, listed: Sequence[tuple[Judge, JudgeVersion]], names: Sequence[str]
    ) -> list[RuntimeJudge]:
        wanted = set(names)
        rows = {j.name: (j, v) for j, v in listed if j.name in wanted}
        _require_known(names, rows)
        return [self._runtime(*rows[name]) for name in names]

    async def resolve_known(
        self, session: AsyncSession, names: Sequence[str]
    ) -> list[RuntimeJudge]:
        """Runtime judges for the usable judges among `names` (the default panel's stand-ins)."""
        rows = {j.name: (j, v) for j, v in await service.list_judges(session) if j.name in names}
        for name in names:
            if name in rows:
                self._build(*rows[name])
        return [self._clients[n] for n in names if n in rows and n not in self._unbuildable]

    def unavailable_reason(self, judge: Judge, version: JudgeVersion) -> str | None:
        """Why this process cannot call `judge` at its current revision (built now if it was
        not), or None. Retired judges are not built."""
        if not judge.enabled or version.version != judge.current_version:
            return None
        self._build(judge, version)
        entry = self._unbuildable.get(judge.name)
        return entry.reason if entry is not None else None

    def unavailable(self) -> dict[str, str]:
        """The judges this process cannot call, each with why, as built so far (every enabled
        judge at start, a changed one when next used)."""
        return {name: entry.reason for name, entry in sorted(self._unbuildable.items())}

    def _is_built(self, name: str, at: tuple[int, int]) -> bool:
        built = self._clients.get(name) or self._unbuildable.get(name)
        return built is not None and (built.version, built.revision) == at

    def _usable(self, name: str, current: dict[str, tuple[int, int]]) -> bool:
        return name in current and name in self._clients and name not in self._unbuildable

    def _available(self, name: str) -> RuntimeJudge:
        if (entry := self._unbuildable.get(name)) is not None:
            raise JudgeUnavailable(f"judge '{name}' is unavailable: {entry.reason}")
        return self._clients[name]

    def _runtime(self, judge: Judge, version: JudgeVersion) -> RuntimeJudge:
        self._build(judge, version)
        return self._available(judge.name)

    def _build(self, judge: Judge, version: JudgeVersion) -> None:
        """Build the judge's client at this revision unless it is built; never raises."""
        name, at = judge.name, (version.version, judge.revision)
        if self._is_built(name, at):
            return
        try:
            runtime = self._make(judge, version)
        except Exception as exc:  # any stored judge that cannot be built is marked, never fatal
            self._unbuildable[name] = Unbuildable(*at, reason=unbuildable_reason(exc))
            log.warning("judge_unavailable", judge=name, reason=self._unbuildable[name].reason)
            runtime = None
        else:
            self._unbuildable.pop(name, None)
        # The older revision's client goes either way: a broken revision must not fall back to it.
        replaced = self._clients.pop(name, None)
        if runtime is not None:
            self._clients[name] = runtime
        if replaced is not None:
            self._close_later(replaced)

    def _make(self, judge: Judge, version: JudgeVersion) -> RuntimeJudge:
        fields = JudgeFields.model_validate(version.config)
        config = service.to_judge_config(judge.name, fields, self._api_key(judge, version, fields))
        if (missing := missing_key(config, fields.api_key_env)) is not None:
            raise KeyMissing(missing)
        trusted = judge.source != "api"  # the judges file's and the built-in judges
        egress = self.api_rules.egress.trusting() if trusted else self.api_rules.egress
        client = build_judge(
            config,
            transport=self.transport_for(judge.name),
            egress=egress,
            max_connections=self.settings.per_process(config.max_concurrency),
            limiter=self._limiter(judge.name, config.rpm),
        )
        return RuntimeJudge(
            name=judge.name,
            version=version.version,
            revision=judge.revision,
            config_hash=version.config_hash,
            model=fields.model,
            family=family_of(fields.model, fields.family, self.family_prefixes),
            simulated=fields.provider == "sim",
            client=client,
            timeout_s=config.timeout_s,
        )

    def _close_later(self, replaced: RuntimeJudge) -> None:
        """Close a replaced client once the calls it may still carry have timed out."""

        async def close() -> None:
            try:
                await asyncio.sleep(replaced.timeout_s + 5)
            finally:  # at shutdown (cancelled) as well
                await replaced.client.aclose()

        task = asyncio.get_running_loop().create_task(close())
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    def _limiter(self, name: str, rpm: int | None) -> RateLimiter | None:
        """The shared limiter of a judge with an `rpm`; None lets the judge count in process."""
        return self.limiters(name, rpm) if self.limiters is not None and rpm else None

    def _api_key(self, judge: Judge, version: JudgeVersion, fields: JudgeFields) -> str | None:
        if version.api_key_ciphertext:
            return crypto.decrypt(
                self.settings.secret_key,
                version.api_key_ciphertext,
                previous=self.settings.secret_key_previous,
            )
        if self._file_keys.get(judge.name):
            return self._file_keys[judge.name]
        if fields.api_key_env is None:
            return None
        if judge.source == "api" and service.key_env_refusal(fields, self.api_rules) is not None:
            raise KeyEnvNotAllowed(fields.api_key_env)
        return os.environ.get(fields.api_key_env)

    async def aclose(self) -> None:
        """Close every provider client, replaced ones included."""
        for task in list(self._closing):
            task.cancel()
        await asyncio.gather(*self._closing, return_exceptions=True)
        for runtime in self._clients.values():
            await runtime.client.aclose()
        self._clients.clear()


class KeyEnvNotAllowed(Exception):
    """An API judge names a key variable the operator no longer allows, or binds elsewhere."""


class KeyMissing(Exception):
    """A judge that would call its provider without a key (its message says why)."""


# Hosted APIs that refuse every call without a key; a local server (vLLM, Ollama) needs none.
KEYED_HOSTS = frozenset(
    {"api.openai.com", "api.anthropic.com", "generativelanguage.googleapis.com", "openrouter.ai"}
)


def missing_key(config: JudgeConfig, key_env: str | None) -> str | None:
    """Why the judge has no key to send although it needs one, or None. A named variable that
    is unset or empty counts as missing whatever the URL: the operator meant a key."""
    if config.api_key:
        return None
    if key_env is not None:
        return f"its api_key_env '{key_env}' is unset or empty in this process's environment"
    if config.provider == "azure_openai" or config.base_url_host in KEYED_HOSTS:
        host = "Azure OpenAI" if config.provider == "azure_openai" else config.base_url_host
        return f"it has no provider key and {host} refuses calls without one (set api_key_env)"
    return None


def unbuildable_reason(exc: Exception) -> str:
    """Why a stored judge cannot be built, in words safe to show to `read` keys (no secrets)."""
    if isinstance(exc, InvalidToken):
        return (
            "its stored provider key cannot be decrypted with FAIRPAIR_SECRET_KEY or "
            "FAIRPAIR_SECRET_KEY_PREVIOUS"
        )
    if isinstance(exc, KeyMissing):
        return str(exc)
    if isinstance(exc, KeyEnvNotAllowed):
        return f"its api_key_env '{exc}' is not allowed (for its URL) by {service.KEY_ENVS_SETTING}"
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = "/".join(str(part) for part in first["loc"])
        return f"its stored configuration is not valid: /{where}: {first['msg'][:200]}"
    return f"it cannot be built: {type(exc).__name__}: {str(exc)[:200]}"


# The process's registry (built in app/lifespan.py), for routes.
RegistryDep = Annotated[JudgeRegistry, from_state("registry")]
