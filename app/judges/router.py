"""`/v1/judges`: list, read, create and update judges."""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import urlparse

from fastapi import APIRouter, Query
from pydantic import ValidationError

from app.deps import AdminKey, ReadKey, SessionDep, SettingsDep
from app.judges import service
from app.judges.models import Judge, JudgeVersion
from app.judges.registry import JudgeRegistry, RegistryDep
from app.judges.schemas import (
    JudgeCreate,
    JudgeFields,
    JudgeList,
    JudgeRead,
    JudgeUpdate,
    JudgeVersionRead,
)
from app.judging.families import family_of

router = APIRouter(prefix="/v1/judges", tags=["judges"])


def official_openai(fields: JudgeFields) -> bool:
    """JSON mode and logprobs default on only where support is known: api.openai.com."""
    if fields.provider != "openai":
        return False
    return fields.base_url is None or urlparse(fields.base_url).hostname == "api.openai.com"


def stored_fields(config: dict[str, Any]) -> JudgeFields | None:
    """A stored configuration, or None when it no longer validates (an older row)."""
    try:
        return JudgeFields.model_validate(config)
    except ValidationError:
        return None


def to_read(
    judge: Judge,
    version: JudgeVersion,
    registry: JudgeRegistry,
    versions: list[JudgeVersion] | None = None,
) -> JudgeRead:
    """The API's view of a judge: never a key; its effective family, as the panels see it."""
    fields = stored_fields(version.config)
    model = fields.model if fields else str(version.config.get("model", ""))
    known = fields is not None and official_openai(fields)
    # A reasoning model refuses logprobs, so none are asked for (JudgeConfig.use_logprobs).
    logprobs_known = known and not (fields and (fields.reasoning or fields.reasoning_effort))
    reason = registry.unavailable_reason(judge, version)
    return JudgeRead(
        name=judge.name,
        source=judge.source,
        enabled=judge.enabled,
        default=judge.name in registry.default_panel,
        available=reason is None,
        unavailable_reason=reason,
        version=version.version,
        config_hash=version.config_hash,
        provider=fields.provider if fields else None,
        model=model,
        family=family_of(model, fields.family if fields else None, registry.family_prefixes),
        json_mode=fields.json_mode if fields and fields.json_mode is not None else known,
        logprobs=fields.logprobs if fields and fields.logprobs is not None else logprobs_known,
        has_api_key=bool(version.api_key_ciphertext or (fields and fields.api_key_env)),
        config=fields,
        versions=[
            JudgeVersionRead(
                version=v.version,
                config_hash=v.config_hash,
                created_at=v.created_at,
                config=stored_fields(v.config),
            )
            for v in versions
        ]
        if versions is not None
        else None,
    )


@router.get("", operation_id="list_judges")
async def list_judges(
    _: ReadKey,
    session: SessionDep,
    registry: RegistryDep,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    cursor: Annotated[str | None, Query(max_length=500)] = None,
) -> JudgeList:
    """The enabled judges by name, with their current versions; pages like every list."""
    rows, next_cursor = await service.list_judges_page(session, limit=limit, cursor=cursor)
    return JudgeList(items=[to_read(j, v, registry) for j, v in rows], next_cursor=next_cursor)


@router.get("/{name}", operation_id="get_judge")
async def get_judge(name: str, _: ReadKey, session: SessionDep, registry: RegistryDep) -> JudgeRead:
    """One judge with every version it has had."""
    judge, version = await service.get_judge(session, name)
    versions = await service.list_versions(session, judge)
    return to_read(judge, version, registry, versions)


@router.post("", status_code=201, operation_id="create_judge")
async def create_judge(
    body: JudgeCreate,
    _: AdminKey,
    session: SessionDep,
    settings: SettingsDep,
    registry: RegistryDep,
) -> JudgeRead:
    """Add a judge; its provider key is stored encrypted and never shown again."""
    judge, version = await service.create_judge(
        session, body, source="api", secret_key=settings.secret_key, rules=registry.api_rules
    )
    registry.changed()
    return to_read(judge, version, registry)


@router.patch("/{name}", operation_id="update_judge")
async def update_judge(
    name: str,
    body: JudgeUpdate,
    _: AdminKey,
    session: SessionDep,
    settings: SettingsDep,
    registry: RegistryDep,
) -> JudgeRead:
    """Change a judge: a judging field makes a new version; `enabled: false` retires it."""
    judge, version = await service.update_judge(
        session, name, body, secret_key=settings.secret_key, rules=registry.api_rules
    )
    registry.changed()
    return to_read(judge, version, registry)
