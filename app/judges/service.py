"""Judges in the database: create, update (new version when judging changes), read."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.errors import Conflict, ManagedByFile, NotFound
from app.judges import crypto
from app.judges.models import Judge, JudgeVersion
from app.judges.schemas import JUDGING_FIELDS, JudgeCreate, JudgeFields, JudgeUpdate
from app.judging.types import JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash


def to_judge_config(name: str, fields: JudgeFields, api_key: str | None) -> JudgeConfig:
    """The judging layer's view of a stored configuration."""
    sim = fields.sim.model_dump() if fields.sim else {}
    return JudgeConfig(
        name=name,
        provider=fields.provider,
        model=fields.model,
        base_url=fields.base_url,
        api_key=api_key,
        family=fields.family,
        temperature=fields.temperature,
        timeout_s=fields.timeout_s,
        max_concurrency=fields.max_concurrency,
        rpm=fields.rpm,
        json_mode=fields.json_mode,
        logprobs=fields.logprobs,
        price_in_per_mtok=fields.price_in_per_mtok,
        price_out_per_mtok=fields.price_out_per_mtok,
        templates={str(name): source for name, source in fields.templates.items()},
        label_pool=tuple((l1, l2) for l1, l2 in fields.label_pool) if fields.label_pool else None,
        sim=SimKnobs(**sim),
    )


def config_hash(name: str, fields: JudgeFields) -> str:
    """The judge version hash of JUDGING.md (provider, model, base_url host, ...)."""
    return judge_config_hash(to_judge_config(name, fields, api_key=None))


def stored_config(fields: JudgeFields) -> dict[str, Any]:
    """What the database keeps of a config (never a key)."""
    return fields.model_dump(mode="json")


async def get_judge(session: AsyncSession, name: str) -> tuple[Judge, JudgeVersion]:
    """A judge and its current version, or 404."""
    row = (
        await session.execute(
            select(Judge, JudgeVersion)
            .join(JudgeVersion, JudgeVersion.judge_id == Judge.id)
            .where(Judge.name == name, JudgeVersion.version == Judge.current_version)
        )
    ).first()
    if row is None:
        raise NotFound(f"no judge named '{name}'")
    return row[0], row[1]


async def list_judges(
    session: AsyncSession, *, enabled_only: bool = True
) -> list[tuple[Judge, JudgeVersion]]:
    """Judges with their current versions, by name."""
    query = (
        select(Judge, JudgeVersion)
        .join(JudgeVersion, JudgeVersion.judge_id == Judge.id)
        .where(JudgeVersion.version == Judge.current_version)
        .order_by(Judge.name)
    )
    if enabled_only:
        query = query.where(Judge.enabled.is_(True))
    return [(j, v) for j, v in (await session.execute(query)).all()]


async def list_versions(session: AsyncSession, judge: Judge) -> list[JudgeVersion]:
    """Every version of a judge, oldest first."""
    query = (
        select(JudgeVersion).where(JudgeVersion.judge_id == judge.id).order_by(JudgeVersion.version)
    )
    return list((await session.scalars(query)).all())


async def create_judge(
    session: AsyncSession, body: JudgeCreate, *, source: str, secret_key: SecretStr
) -> tuple[Judge, JudgeVersion]:
    """Insert a judge at version 1; 409 when the name is taken."""
    if await session.scalar(select(Judge.id).where(Judge.name == body.name)) is not None:
        raise Conflict(f"a judge named '{body.name}' exists")
    fields = JudgeFields.model_validate(body.model_dump(include=set(JudgeFields.model_fields)))
    judge = Judge(name=body.name, source=source, enabled=body.enabled, current_version=1)
    session.add(judge)
    await session.flush()
    version = JudgeVersion(
        judge_id=judge.id,
        version=1,
        config=stored_config(fields),
        config_hash=config_hash(body.name, fields),
        api_key_ciphertext=_encrypted(body.api_key, secret_key) if source == "api" else None,
    )
    session.add(version)
    await session.commit()
    return judge, version


def _encrypted(api_key: SecretStr | None, secret_key: SecretStr) -> str | None:
    return crypto.encrypt(secret_key, api_key.get_secret_value()) if api_key else None


async def update_judge(
    session: AsyncSession, name: str, patch: JudgeUpdate, *, secret_key: SecretStr
) -> tuple[Judge, JudgeVersion]:
    """Apply a PATCH: a judging field makes a new version; `enabled: false` retires."""
    judge, current = await get_judge(session, name)
    if judge.source != "api":
        raise ManagedByFile(f"judge '{name}' comes from the {judge.source} configuration")
    changes = patch.model_dump(exclude_unset=True, exclude={"api_key", "enabled"})
    merged = JudgeFields.model_validate({**current.config, **changes})
    ciphertext = _encrypted(patch.api_key, secret_key) or current.api_key_ciphertext
    if patch.enabled is not None:
        judge.enabled = patch.enabled
    if JUDGING_FIELDS & changes.keys() and config_hash(name, merged) != current.config_hash:
        current = JudgeVersion(
            judge_id=judge.id,
            version=judge.current_version + 1,
            config=stored_config(merged),
            config_hash=config_hash(name, merged),
            api_key_ciphertext=ciphertext,
        )
        session.add(current)
        judge.current_version = current.version
    else:
        # Operational fields (limits, prices, family, key) do not change what the judge is shown.
        current.config = stored_config(merged)
        current.api_key_ciphertext = ciphertext
    await session.commit()
    return judge, current
