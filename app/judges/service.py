"""Judges in the database: create, update (new version when judging changes), read.

A judge posted through the API is checked against `ApiJudgeRules` when it is saved: the
environment variables it may read its key from, and where its URL may point. A stored provider
key is bound to its origin (scheme, host, port): moving the judge elsewhere needs a new key in
the same request, so an admin cannot redirect a key to a server of their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from pydantic import SecretStr
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import values_of
from app.errors import Conflict, ManagedByFile, NotFound, ValidationProblem
from app.judges import crypto
from app.judges.models import Judge, JudgeVersion
from app.judges.schemas import JUDGING_FIELDS, JudgeCreate, JudgeFields, JudgeUpdate
from app.judging.egress import EgressPolicy, EgressRefused
from app.judging.types import OFFICIAL_BASE_URLS, JudgeConfig, SimKnobs
from app.judging.versioning import judge_config_hash
from app.params import decode_name_cursor, encode_name_cursor

# The stored fields the judging layer takes as they are.
SAME_FIELDS = (
    "provider", "model", "base_url", "family", "temperature", "timeout_s", "max_concurrency",
    "rpm", "json_mode", "logprobs", "price_in_per_mtok", "price_out_per_mtok",
    "price_in_per_mtok_batch", "price_out_per_mtok_batch", "batch_api", "reasoning",
    "reasoning_effort", "max_completion_tokens", "thinking_budget_tokens", "deployment",
    "api_version", "azure_auth", "cache",
)  # fmt: skip


def to_judge_config(name: str, fields: JudgeFields, api_key: str | None) -> JudgeConfig:
    """The judging layer's view of a stored configuration."""
    sim = fields.sim.model_dump() if fields.sim else {}
    return JudgeConfig(
        name=name,
        api_key=api_key,
        **values_of(fields, *SAME_FIELDS),
        templates={str(name): source for name, source in fields.templates.items()},
        label_pool=tuple((l1, l2) for l1, l2 in fields.label_pool) if fields.label_pool else None,
        sim=SimKnobs(**sim),
    )


KEY_ENVS_SETTING = "FAIRPAIR_JUDGE_KEY_ENVS"


@dataclass(frozen=True)
class ApiJudgeRules:
    """What a judge posted through the API may name (the judges file is the operator's own)."""

    # Each allowed key variable with the URL whose origin its key may go to; None: the judge's
    # provider's official URL (an OpenAI key to api.openai.com, never to a host an admin chose).
    key_envs: Mapping[str, str | None]
    egress: EgressPolicy


def field_problem(field: str, message: str) -> ValidationProblem:
    """A 422 naming one field of the judge body."""
    pointer = f"/{field}"
    return ValidationProblem(
        f"{pointer}: {message}", extra={"errors": [{"pointer": pointer, "message": message}]}
    )


def key_env_refusal(fields: JudgeFields, rules: ApiJudgeRules) -> str | None:
    """Why an API judge may not read its key from its `api_key_env`, or None: the variable is
    listed and the judge's origin is the one the listing binds it to."""
    name = fields.api_key_env
    if name is None:
        return None
    if name not in rules.key_envs:
        return (
            f"'{name}' is not among the variables the operator allowed ({KEY_ENVS_SETTING}); "
            "post the key as api_key instead"
        )
    bound = rules.key_envs[name] or OFFICIAL_BASE_URLS.get(fields.provider)
    if bound is None or url_origin(bound) != origin(fields):
        where = "{}://{}:{}".format(*url_origin(bound)) if bound else "no URL"
        return (
            f"'{name}' may only be sent to {where} ({KEY_ENVS_SETTING} binds it there); "
            "post the key for this base_url as api_key instead"
        )
    return None


async def check_api_judge(fields: JudgeFields, rules: ApiJudgeRules) -> None:
    """422 unless the judge's key variable is allowed (for its origin) and its URL points where
    it may."""
    if (refusal := key_env_refusal(fields, rules)) is not None:
        raise field_problem("api_key_env", refusal)
    if fields.base_url is not None:
        try:
            await rules.egress.check_url(fields.base_url)
        except EgressRefused as refused:
            raise field_problem("base_url", str(refused)) from None


def url_origin(url: str) -> tuple[str, str, int]:
    """Scheme, host and port of a URL (the port its scheme implies when it names none)."""
    parts = urlsplit(url)
    default_port = 443 if parts.scheme == "https" else 80
    return parts.scheme, (parts.hostname or "").rstrip("."), parts.port or default_port


def origin(fields: JudgeFields) -> tuple[str, str, int]:
    """Scheme, host and port the judge's requests (and its key) go to."""
    return url_origin(fields.base_url or OFFICIAL_BASE_URLS.get(fields.provider) or "")


def config_hash(name: str, fields: JudgeFields) -> str:
    """The judge version hash of JUDGING.md (provider, model, the whole base_url, ...)."""
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
    session: AsyncSession,
    *,
    enabled_only: bool = True,
    after: str | None = None,
    limit: int | None = None,
) -> list[tuple[Judge, JudgeVersion]]:
    """Judges with their current versions, by name (names are unique: the keyset of a page is
    the last name shown); `limit` rows after `after`, or all."""
    query = (
        select(Judge, JudgeVersion)
        .join(JudgeVersion, JudgeVersion.judge_id == Judge.id)
        .where(JudgeVersion.version == Judge.current_version)
        .order_by(Judge.name)
    )
    if enabled_only:
        query = query.where(Judge.enabled.is_(True))
    if after is not None:
        query = query.where(Judge.name > after)
    if limit is not None:
        query = query.limit(limit)
    return [(j, v) for j, v in (await session.execute(query)).all()]


async def list_judges_page(
    session: AsyncSession, *, limit: int, cursor: str | None
) -> tuple[list[tuple[Judge, JudgeVersion]], str | None]:
    """A page of the enabled judges by name, and the cursor of the next page (None at the end)."""
    after = decode_name_cursor(cursor, "j") if cursor else None
    rows = await list_judges(session, after=after, limit=limit + 1)
    page = rows[:limit]
    return page, encode_name_cursor("j", page[-1][0].name) if len(rows) > limit else None


async def list_versions(session: AsyncSession, judge: Judge) -> list[JudgeVersion]:
    """Every version of a judge, oldest first."""
    query = (
        select(JudgeVersion).where(JudgeVersion.judge_id == judge.id).order_by(JudgeVersion.version)
    )
    return list((await session.scalars(query)).all())


async def create_judge(
    session: AsyncSession,
    body: JudgeCreate,
    *,
    source: str,
    secret_key: SecretStr,
    rules: ApiJudgeRules | None = None,
) -> tuple[Judge, JudgeVersion]:
    """Insert a judge at version 1; 409 when the name is taken; `rules` check an API judge."""
    if await session.scalar(select(Judge.id).where(Judge.name == body.name)) is not None:
        raise Conflict(f"a judge named '{body.name}' exists")
    fields = JudgeFields.model_validate(body.model_dump(include=set(JudgeFields.model_fields)))
    if rules is not None:
        await check_api_judge(fields, rules)
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
    session: AsyncSession,
    name: str,
    patch: JudgeUpdate,
    *,
    secret_key: SecretStr,
    rules: ApiJudgeRules,
) -> tuple[Judge, JudgeVersion]:
    """Apply a PATCH: a judging field makes a new version; `enabled: false` retires.

    Every change bumps the judge's revision, so each process rebuilds its client on its next call.
    """
    judge, current = await get_judge(session, name)
    if judge.source != "api":
        raise ManagedByFile(f"judge '{name}' comes from the {judge.source} configuration")
    changes = patch.model_dump(exclude_unset=True, exclude={"api_key", "enabled"})
    before = JudgeFields.model_validate(current.config)
    merged = JudgeFields.model_validate({**current.config, **changes})
    await check_api_judge(merged, rules)
    ciphertext = _key_for(before, merged, patch, current.api_key_ciphertext, secret_key)
    if patch.enabled is not None:
        judge.enabled = patch.enabled
    judge.revision += 1
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


def _key_for(
    before: JudgeFields,
    after: JudgeFields,
    patch: JudgeUpdate,
    ciphertext: str | None,
    secret_key: SecretStr,
) -> str | None:
    """The stored key after a patch; 422 when the judge would carry its key to a new origin."""
    if patch.api_key is not None:
        return _encrypted(patch.api_key, secret_key)
    if origin(before) == origin(after):
        return ciphertext
    if "api_key_env" in patch.model_fields_set:
        return None  # the key now comes from the variable named with the move
    if ciphertext is not None or before.api_key_env is not None:
        raise field_problem(
            "api_key",
            "a stored provider key stays with its origin (scheme, host, port): send the key "
            "for the new base_url as api_key (or api_key_env) in the same request",
        )
    return None
