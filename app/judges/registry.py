"""The judges a process can call: loaded from the judges file and the database, built once."""

from __future__ import annotations

import os
import tomllib
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

import httpx2
import structlog
from pydantic import ValidationError
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.config import Settings
from app.errors import NoJudgesConfigured, ValidationProblem
from app.judges import crypto, service
from app.judges.models import Judge, JudgeVersion
from app.judges.schemas import JudgeCreate, JudgeFields, JudgesFile, SimSettings
from app.judging.judge import Judge as JudgeClient
from app.judging.providers import build_judge
from app.judging.ratelimit import LimiterFactory, RateLimiter

log = structlog.get_logger()
BUILTIN_SIM = JudgeCreate(name="sim", provider="sim", model="fairpair-sim", sim=SimSettings())
TransportFactory = Callable[[str], httpx2.AsyncBaseTransport | None]


# The enabled judges and their current versions: what the request path checks its clients against.
_CURRENT_VERSIONS = (
    select(Judge.name, Judge.current_version)
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
    family: str | None
    simulated: bool
    client: JudgeClient


def read_judges_file(path: os.PathLike[str] | str) -> JudgesFile:
    """Parse and validate the TOML judges file."""
    try:
        with open(path, "rb") as handle:
            return JudgesFile.model_validate(tomllib.load(handle))
    except (OSError, tomllib.TOMLDecodeError, ValidationError) as exc:
        raise JudgesFileError(f"judges file {path}: {exc}") from exc


class JudgeRegistry:
    """Builds provider clients once per judge version and closes them at shutdown.

    `limiters` gives each judge with an `rpm` the limiter every process shares (through Redis);
    without it each judge counts its `rpm` in this process.
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
        self._file_keys: dict[str, str | None] = {}
        self._clients: dict[tuple[str, int], RuntimeJudge] = {}

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
                self._runtime(judge, version)

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
            session.add(
                JudgeVersion(
                    judge_id=existing.id,
                    version=existing.current_version,
                    config=service.stored_config(fields),
                    config_hash=digest,
                )
            )
        else:
            current.config = service.stored_config(fields)
        await session.commit()

    def panel_or_default(self, names: Sequence[str] | None) -> list[str]:
        """The named judges, else the default panel; 422 when there is neither."""
        panel = list(names) if names else list(self.default_panel)
        if not panel:
            raise NoJudgesConfigured("name judges in the request or configure a default panel")
        return panel

    async def resolve(self, session: AsyncSession, names: Sequence[str]) -> list[RuntimeJudge]:
        """Runtime judges for names (422 with a pointer for an unknown or retired one)."""
        return self._pick(await service.list_judges(session), names)

    async def resolve_panel(
        self, session: AsyncSession, names: Sequence[str]
    ) -> tuple[list[RuntimeJudge], list[RuntimeJudge]]:
        """`resolve(names)` and `resolve_known(default_panel)` for the request path.

        One light query of the current versions; whole rows are loaded only when a judge's
        current version has no client yet (a new or changed judge).
        """
        current: dict[str, int] = dict((await session.execute(_CURRENT_VERSIONS)).all())
        wanted = {*names, *self.default_panel}
        if any((n, v) not in self._clients for n, v in current.items() if n in wanted):
            listed = await service.list_judges(session)
            current = {j.name: self._runtime(j, v).version for j, v in listed if j.name in wanted}
        _require_known(names, current)
        panel = [self._clients[(n, current[n])] for n in names]
        return panel, [self._clients[(n, current[n])] for n in self.default_panel if n in current]

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
        """Runtime judges for the enabled judges among `names` (the default panel's stand-ins)."""
        rows = {j.name: (j, v) for j, v in await service.list_judges(session) if j.name in names}
        return [self._runtime(*rows[name]) for name in names if name in rows]

    def _runtime(self, judge: Judge, version: JudgeVersion) -> RuntimeJudge:
        key = (judge.name, version.version)
        if key not in self._clients:
            fields = JudgeFields.model_validate(version.config)
            config = service.to_judge_config(
                judge.name, fields, self._api_key(judge, version, fields)
            )
            client = build_judge(
                config,
                transport=self.transport_for(judge.name),
                limiter=self._limiter(judge.name, config.rpm),
            )
            self._clients[key] = RuntimeJudge(
                name=judge.name,
                version=version.version,
                config_hash=version.config_hash,
                model=fields.model,
                family=fields.family,
                simulated=fields.provider == "sim",
                client=client,
            )
        return self._clients[key]

    def _limiter(self, name: str, rpm: int | None) -> RateLimiter | None:
        """The shared limiter of a judge with an `rpm`; None lets the judge count in process."""
        return self.limiters(name, rpm) if self.limiters is not None and rpm else None

    def _api_key(self, judge: Judge, version: JudgeVersion, fields: JudgeFields) -> str | None:
        if version.api_key_ciphertext:
            return crypto.decrypt(self.settings.secret_key, version.api_key_ciphertext)
        if self._file_keys.get(judge.name):
            return self._file_keys[judge.name]
        return os.environ.get(fields.api_key_env) if fields.api_key_env else None

    async def aclose(self) -> None:
        """Close every provider client."""
        for runtime in self._clients.values():
            await runtime.client.aclose()
        self._clients.clear()
